import type { DevServer } from '@ninepoint/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevApp, INSTALL_TIMEOUT_MS, startDevApp } from './app.ts';
import { type Chromium, watchPage } from './browser.ts';

/**
 * `ninepoint dev` without SMTP settings, in Chromium: after asking for a reset link, the page
 * says where the mail went (the terminal and `/api/dev/outbox`), and the outbox has it.
 */

let devApp: DevApp;
let dev: DevServer;
let chromium: Chromium | null = null;
let unavailable = '';

beforeAll(async () => {
  devApp = await startDevApp('lending-desk.md');
  ({ dev, chromium, unavailable } = devApp);
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  await devApp?.close();
});

describe('the dev outbox in Chromium', () => {
  it('tells, after asking for a reset link, that the mail is in the terminal and the outbox', async (ctx) => {
    if (!chromium) return ctx.skip(unavailable);
    const page = await chromium.context.newPage();
    const watch = await watchPage(page, dev.url);
    await page.goto(`${dev.url}/forgot-password`);
    await page.getByRole('textbox', { name: 'Email' }).fill('nobody@example.org');
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByRole('heading', { name: 'Check your email', level: 1 }).waitFor();
    await page.getByText('Mails are not sent: the link is printed in the terminal').waitFor();
    await page.getByRole('link', { name: '/api/dev/outbox' }).waitFor();
    const outbox = (await (await fetch(`${dev.url}/api/dev/outbox`)).json()) as { mailer: string; mails: unknown[] };
    // Nobody has that email: the page says the same, and no mail was kept.
    expect(outbox).toEqual({ mailer: 'outbox', mails: [] });
    expect(watch.pageErrors).toEqual([]);
    expect(watch.offsite).toEqual([]);
  });
});
