import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  capture,
  expectAccessible,
  INSTALL_TIMEOUT_MS,
  navigationLinks,
  type Person,
  poll,
  printAxeSummary,
  signIn,
  startApp,
} from './app.ts';

/**
 * The helpdesk's Overview dashboard in Chromium: the lead sees the desk's figures as charts with
 * their numbers in tables, counted by the server; they follow changes others make.
 */

let app: App;
let lead: Person;
let agent: Person;
let requester: Person;

beforeAll(async () => {
  app = await startApp('helpdesk.md');
  lead = app.users.lead as Person;
  agent = app.users.agent as Person;
  requester = app.users.requester as Person;
  const ticket = (by: Person, title: string, fields: Record<string, unknown>) =>
    app.api(by, 'POST', '/api/tickets', { title, description: `${title}, since this morning.`, ...fields });
  await ticket(requester, 'Printer on floor 3 jams', { category: 'hardware', priority: 'high' });
  await ticket(requester, 'Outlook asks for a password', { category: 'software' });
  const fan = await ticket(agent, 'Laptop fan is very loud', { category: 'hardware' });
  await app.api(agent, 'PATCH', `/api/tickets/${fan.id}`, { time_spent: 1.5 });
  await app.api(agent, 'POST', '/api/articles', {
    title: 'How do I reset my password?',
    body: 'Open the self-service portal, choose "Forgot password" and follow the mail you get.',
    category: 'access',
    published: true,
    review_by: '2099-01-01',
  });
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (app?.chromium) printAxeSummary('the helpdesk dashboard');
  await app?.close();
});

/** The rows of a figure's table, as "name: value". */
async function tableOf(page: Page, title: string): Promise<string[]> {
  const card = page.getByRole('region', { name: title });
  const rows = card.getByRole('table').getByRole('row');
  const texts: string[] = [];
  for (const row of await rows.all()) {
    const cells = await row.getByRole('cell').allTextContents();
    const head = await row.getByRole('rowheader').allTextContents();
    if (cells.length > 0) texts.push(`${head.join('')}: ${cells.join('')}`);
  }
  return texts;
}

describe('the Overview dashboard in Chromium', () => {
  it('shows the lead the desk’s figures as charts with tables, and follows others’ changes', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, lead);
    expect(await navigationLinks(page)).toContain('Overview');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    expect(await page.getByRole('heading', { level: 2 }).allTextContents()).toEqual([
      'Tickets by state',
      'Tickets by priority',
      'Time spent by category',
      'Articles by published',
    ]);
    await poll(() => tableOf(page, 'Tickets by state')).toEqual(['New: 3']);
    await poll(() => tableOf(page, 'Tickets by priority')).toEqual(['Normal: 2', 'High: 1']);
    await poll(() => tableOf(page, 'Time spent by category')).toEqual(['Hardware: 1.5', 'Software: 0']);
    await poll(() => tableOf(page, 'Articles by published')).toEqual(['Yes: 1']);
    // Each chart says in words what it draws.
    const chart = page.getByRole('region', { name: 'Tickets by priority' }).getByRole('img');
    expect(await chart.getAttribute('aria-label')).toBe('Tickets by priority: Normal: 2, High: 1');
    expect(await page.locator('.recharts-surface').count()).toBeGreaterThan(0);
    await expectAccessible(page, 'the Overview dashboard');
    await capture(page, 'helpdesk-overview-dashboard');

    await app.api(requester, 'POST', '/api/tickets', {
      title: 'No VPN from home',
      description: 'The VPN client says the certificate expired.',
      category: 'network',
    });
    await poll(() => tableOf(page, 'Tickets by state')).toEqual(['New: 4']);

    // On a phone the figures stack, and nothing is wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await capture(page, 'helpdesk-overview-dashboard-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    app.expectQuiet();
  });

  it('is not offered to a requester, who may not open it', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, requester);
    expect(await navigationLinks(page)).not.toContain('Overview');
    await page.goto(`${app.url}/overview`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    expect(await page.getByRole('heading', { name: 'Tickets by state' }).count()).toBe(0);
  });
});
