import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  boardCards,
  expectAccessible,
  INSTALL_TIMEOUT_MS,
  type Person,
  printAxeSummary,
  settle,
  signIn,
  startApp,
} from './app.ts';

/**
 * First visits to a screen on the helpdesk: a link's screen has its first data fetched when the
 * user shows they mean to open it (the pointer rests on the link, or presses it), so the list and
 * the board draw their rows and cards without placeholders first; the board's "Move to…" menus are
 * set up only when reached, and still open by pointer, keyboard and tap.
 */

const PHONE = { width: 390, height: 844 };

let app: App;
let agent: Person;
const TITLES = ['Printer jams on every job', 'VPN drops every hour', 'Badge does not open the door'];

beforeAll(async () => {
  app = await startApp('helpdesk.md');
  agent = app.users.agent as Person;
  for (const title of TITLES) {
    await app.api(agent, 'POST', '/api/tickets', {
      title,
      description: `${title}. Reported from the office.`,
      category: 'hardware',
    });
  }
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (app?.chromium) printAxeSummary('first visits on the helpdesk');
  await app?.close();
});

/**
 * The API calls the page has asked for so far whose path starts with `prefix`, answered or not: a
 * call counts from the moment it leaves, so a slow answer on a busy machine cannot hide it.
 */
function askedFor(page: Page): (prefix: string) => string[] {
  const asked: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    asked.push(url.pathname + url.search);
  });
  return (prefix) => asked.filter((path) => path.startsWith(prefix));
}

/**
 * Rests the pointer on a navigation link, and checks it is there: the browser counts the link as
 * hovered. Nothing else may be moving then, so the page is settled first (the home page drawn,
 * its calls answered): the first visit is measured from a page at rest.
 */
async function restOn(page: Page, link: Locator): Promise<void> {
  await settle(page);
  await link.hover();
  await expect.poll(() => link.evaluate((element) => element.matches(':hover'))).toBe(true);
}

/**
 * Notes, from now on, whether the page ever shows placeholders: a table marked busy (the list's
 * placeholder rows) or a skeleton in the main landmark (a board column's, or the screen's outline).
 */
async function watchForPlaceholders(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen = window as unknown as { placeholders: number };
    seen.placeholders = 0;
    const observer = new MutationObserver(() => {
      if (document.querySelector('main table[aria-busy="true"], main .mantine-Skeleton-root')) seen.placeholders++;
    });
    observer.observe(document.body, { childList: true, subtree: true, attributes: true });
  });
}

const placeholders = (page: Page) => page.evaluate(() => (window as unknown as { placeholders: number }).placeholders);

describe('first visits on the helpdesk in Chromium', () => {
  it('fetches a list’s and a board’s first data when their link is hovered, then draws them without placeholders', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    const callsTo = askedFor(page);
    await signIn(page, app, agent);
    const navigation = page.getByRole('navigation', { name: 'Main' });
    // The home page asks for the agent's own tickets; the Tickets screen's first page is not asked for yet.
    const listPage = '/api/tickets?limit=50&';
    await settle(page);
    expect(callsTo(listPage)).toEqual([]);

    // Resting on Tickets asks for the list's first page (with its total) before any click.
    await restOn(page, navigation.getByRole('link', { name: /^Tickets/ }));
    await expect.poll(() => callsTo(listPage)).toEqual([expect.stringContaining('count=true')]);
    await settle(page);
    await watchForPlaceholders(page);
    await navigation.getByRole('link', { name: /^Tickets/ }).click();
    await page.getByRole('heading', { name: 'Tickets', level: 1 }).waitFor();
    await page.getByRole('link', { name: TITLES[0] }).waitFor();
    // The page asked once, on the hover: the screen found the answer and drew its rows at once.
    expect(callsTo(listPage)).toHaveLength(1);
    expect(await placeholders(page)).toBe(0);
    await expectAccessible(page, 'the ticket list, opened after a hover');

    // Resting on Queue asks for every column's first cards.
    await restOn(page, navigation.getByRole('link', { name: /^Queue/ }));
    await expect.poll(() => callsTo('/api/tickets?filter%5Bstate%5D=')).toHaveLength(7);
    await settle(page);
    await watchForPlaceholders(page);
    await navigation.getByRole('link', { name: /^Queue/ }).click();
    await page.getByRole('heading', { name: 'Queue', level: 1 }).waitFor();
    await expect.poll(() => boardCards(page, 'New')).toEqual([...TITLES].reverse());
    expect(await placeholders(page)).toBe(0);
    expect(callsTo('/api/tickets?filter%5Bstate%5D=')).toHaveLength(7);

    // A card's menu is set up when reached, and opens by pointer, then by keyboard.
    const menuButton = page.getByRole('button', { name: `Move to… (${TITLES[1]})` });
    await menuButton.click();
    const menu = page.getByRole('menu', { name: `Move to… (${TITLES[1]})` });
    await menu.waitFor();
    await expectAccessible(page, 'the queue board with a card’s menu open');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden' });
    const other = page.getByRole('button', { name: `Move to… (${TITLES[2]})` });
    await other.focus();
    // Focus stays on the button while its menu is set up around it.
    await expect.poll(() => other.evaluate((button) => button === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('menu', { name: `Move to… (${TITLES[2]})` }).waitFor();
    await page.keyboard.press('Escape');
  });

  it('opens a card’s "Move to…" menu with a tap on a phone', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await page.setViewportSize(PHONE);
    await signIn(page, app, agent, '/queue');
    await page.getByRole('heading', { name: 'Queue', level: 1 }).waitFor();
    const button = page.getByRole('button', { name: `Move to… (${TITLES[0]})` });
    await button.scrollIntoViewIfNeeded();
    // A tap: no pointer rests on the button first, so the first press sets the menu up and opens it.
    await button.dispatchEvent('click');
    await page.getByRole('menu', { name: `Move to… (${TITLES[0]})` }).waitFor();
    await expectAccessible(page, 'the queue board on a phone with a card’s menu open');
  });
});
