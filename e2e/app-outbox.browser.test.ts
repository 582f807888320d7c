import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, capture, expectAccessible, INSTALL_TIMEOUT_MS, printAxeSummary, signIn, startApp } from './app.ts';

/**
 * Point 7 in the browser: the notification bell fills as the live stream says a notification
 * arrived, and opening one marks it read; the Deliveries screen shows each call and mail with its
 * status, attempts and last answer, and "Retry now" tries a failing call again. The desk of
 * packages/server/test/fixtures/desk-outbox.md, whose agents manage people.
 */

const DESK = 'packages/server/test/fixtures/desk-outbox.md';
const SECRET = `whsec_${Buffer.from('the browser test secret, long').toString('base64')}`;

describe('notifications and deliveries in Chromium', () => {
  let app: App;
  let receiver: Server;
  let calls = 0;

  beforeAll(async () => {
    receiver = createHttpServer((req, res) => {
      req.resume();
      calls++;
      res.statusCode = 503;
      res.end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    app = await startApp(DESK, {
      outbox: {
        env: { HOOK_URL: url, HOOK_SECRET: SECRET, CALLS_ALLOW_PRIVATE: 'true' },
        // A failed call is tried again only an hour later: "Retry now" is what tries it.
        timing: { baseDelayMs: 3_600_000, pollMs: 100 },
      },
    });
  }, INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    if (app?.chromium) printAxeSummary('outbox');
    await app?.close();
    receiver?.close();
  });

  const api = (token: string, method: string, path: string, body?: unknown) =>
    fetch(`${app.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

  it('the bell counts a notification the live stream brings, and opening it marks it read', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const agent = app.users.agent;
    if (!agent) throw new Error('the desk has an agent');
    const page = await app.page();
    await signIn(page, app, agent, '/');
    const bell = page.getByRole('button', { name: /^Notifications, / });
    await bell.waitFor();
    expect(await bell.getAttribute('aria-label')).toBe('Notifications, none unread');

    const created = await api(agent.token, 'POST', '/api/tickets', {
      title: 'Projector flickers',
      reporter: agent.id,
      assignee: agent.id,
    });
    expect(created.status).toBe(201);
    expect((await api(agent.token, 'POST', `/api/tickets/${created.body.id}/assign`)).status).toBe(200);
    await page.getByRole('button', { name: 'Notifications, 1 unread' }).waitFor();
    await page.getByRole('button', { name: 'Notifications, 1 unread' }).click();
    await page.getByText('Assigned: Projector flickers').waitFor();
    await expectAccessible(page, 'the notification list');
    await capture(page, 'outbox-bell');
    await page.getByText('Assigned: Projector flickers').click();
    await page.getByRole('button', { name: 'Notifications, none unread' }).waitFor();
    app.expectQuiet();
  });

  it('the Deliveries screen shows a failing call, and Retry now tries it again', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const agent = app.users.agent;
    if (!agent) throw new Error('the desk has an agent');
    const created = await api(agent.token, 'POST', '/api/tickets', {
      title: 'Printer jams',
      reporter: agent.id,
      assignee: agent.id,
    });
    await api(agent.token, 'POST', `/api/tickets/${created.body.id}/assign`);
    expect((await api(agent.token, 'POST', `/api/tickets/${created.body.id}/resolve`)).status).toBe(200);
    await expect.poll(() => calls).toBeGreaterThan(0);
    const before = calls;

    const page = await app.page();
    await signIn(page, app, agent, '/');
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: /^Deliveries/ })
      .click();
    await page.getByRole('heading', { name: 'Deliveries', level: 1 }).waitFor();
    const table = page.getByRole('table', { name: 'Deliveries' });
    const callRow = table.getByRole('row').filter({ hasText: 'POST env HOOK_URL' });
    await callRow.getByText('pending').waitFor();
    await callRow.getByText('503', { exact: true }).waitFor();
    await table
      .getByRole('row')
      .filter({ hasText: 'notify reporter, assignee' })
      .first()
      .getByText('delivered')
      .waitFor();
    await expectAccessible(page, 'the Deliveries screen');
    await capture(page, 'outbox-deliveries');
    await callRow.getByRole('button', { name: /^Retry now: call POST env HOOK_URL/ }).click();
    await expect.poll(() => calls).toBeGreaterThan(before);
    await expect.poll(async () => (await callRow.getByRole('cell').nth(3).textContent()) ?? '').toBe('2');
    app.expectQuiet();
  });
});
