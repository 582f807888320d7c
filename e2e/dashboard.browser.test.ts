import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  capture,
  expectAccessible,
  INSTALL_TIMEOUT_MS,
  navigationLinks,
  type Person,
  printAxeSummary,
  signIn,
  startApp,
} from './app.ts';

/**
 * The helpdesk's Overview dashboard in Chromium: the lead sees the desk's figures as headline tiles
 * and charts (their numbers in folded tables), counted by the server; a tile or a bar opens the
 * list filtered to the records behind it; they follow changes others make.
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
  it('shows the lead headline tiles and charts that open the records behind them, and follows others’ changes', async (ctx) => {
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
    // Counts per state are tiles, every state of the machine in its order, zeros included.
    const states = page.getByRole('list', { name: 'Tickets by state' });
    await states.getByRole('link', { name: /^New\s*3$/ }).waitFor();
    expect(await states.getByRole('listitem').count()).toBe(7);
    expect(await states.getByRole('link', { name: /^Escalated\s*0$/ }).count()).toBe(1);
    // Headline figures, a sum with the unit its meaning names.
    const headline = (title: string) =>
      page.getByRole('region', { name: title }).locator('[data-headline]').textContent();
    await expect.poll(() => headline('Tickets by state')).toBe('3 tickets');
    await expect.poll(() => headline('Time spent by category')).toBe('1.5 hours');
    // The numbers' tables are folded away; unfolded, they read in the spec's order of the values.
    expect(await page.getByRole('table').count()).toBe(0);
    const priority = page.getByRole('region', { name: 'Tickets by priority' });
    await priority.getByText('The numbers').click();
    await expect.poll(() => tableOf(page, 'Tickets by priority')).toEqual(['Normal: 2', 'High: 1']);
    await page.getByRole('region', { name: 'Time spent by category' }).getByText('The numbers').click();
    await expect.poll(() => tableOf(page, 'Time spent by category')).toEqual(['Hardware: 1.5', 'Software: 0']);
    // Each chart says in words what it draws, and colours the scale calm to urgent: High is orange, not green.
    const chart = priority.getByRole('img');
    expect(await chart.getAttribute('aria-label')).toBe('Tickets by priority: Normal: 2, High: 1');
    const bars = priority.locator('.recharts-bar-rectangle path');
    await expect.poll(() => bars.count()).toBe(2);
    expect(await bars.evaluateAll((paths) => paths.map((p) => p.getAttribute('fill')))).toEqual([
      'var(--mantine-color-blue-6)',
      'var(--mantine-color-orange-6)',
    ]);
    await expectAccessible(page, 'the Overview dashboard');
    await capture(page, 'helpdesk-overview-dashboard');

    await app.api(requester, 'POST', '/api/tickets', {
      title: 'No VPN from home',
      description: 'The VPN client says the certificate expired.',
      category: 'network',
    });
    await states.getByRole('link', { name: /^New\s*4$/ }).waitFor();

    // A bar opens the list filtered to the records it counts.
    await bars.nth(1).click();
    await page.waitForURL(/\/tickets\?filter%5Bpriority%5D=high$/);
    await page.getByRole('link', { name: 'Printer on floor 3 jams' }).first().waitFor();
    expect(await page.getByRole('link', { name: 'Outlook asks for a password' }).count()).toBe(0);
    await page.goBack();
    // A slice too: the published articles.
    await page.getByRole('heading', { name: 'Articles by published' }).waitFor();
    await page
      .getByRole('region', { name: 'Articles by published' })
      .locator('path.recharts-sector')
      .first()
      // On the ring, not its hole (a click's default point is the middle); forced, as Playwright never
      // finds the sector's box stable.
      .click({ position: { x: 80, y: 12 }, force: true });
    await page.waitForURL(/\?filter%5Bpublished%5D=true$/);
    await page.getByRole('link', { name: 'How do I reset my password?' }).first().waitFor();
    await page.goBack();

    // On a phone the figures stack, nothing is wider than the screen, and a tile opens its records.
    await page.setViewportSize({ width: 390, height: 844 });
    await states.getByRole('link', { name: /^New\s*4$/ }).waitFor();
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await capture(page, 'helpdesk-overview-dashboard-phone');
    await states.getByRole('link', { name: /^New\s*4$/ }).click();
    await page.waitForURL(/\/tickets\?filter%5Bstate%5D=new$/);
    await page.getByRole('link', { name: 'No VPN from home' }).first().waitFor();
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
