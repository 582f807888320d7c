import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DevServer, serveDev } from '@ninepoint/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureWebApp, INSTALL_TIMEOUT_MS } from './app.ts';
import { type Chromium, ensureChromium, launchChromium, watchPage } from './browser.ts';

/**
 * `ninepoint dev` without SMTP settings, in Chromium: after asking for a reset link, the page
 * says where the mail went (the terminal and `/api/dev/outbox`), and the outbox has it.
 */

let dir: string;
let dev: DevServer;
let chromium: Chromium | null = null;
let unavailable = '';

beforeAll(async () => {
  await ensureWebApp();
  dir = mkdtempSync(join(tmpdir(), 'ninepoint-dev-outbox-'));
  const specPath = join(dir, 'spec.md');
  writeFileSync(specPath, readFileSync(new URL('../examples/lending-desk.md', import.meta.url), 'utf8'));
  const result = await serveDev({
    specPath,
    dbPath: join(dir, 'dev.db'),
    port: 0,
    logger: false,
    handleSignals: false,
    print: () => undefined,
    printError: () => undefined,
    env: {},
  });
  if (!result.ok) throw new Error('ninepoint dev did not start');
  dev = result.server;
  const status = await ensureChromium();
  if (status.ok) chromium = await launchChromium();
  else unavailable = status.reason;
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  await chromium?.close();
  await dev?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
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
