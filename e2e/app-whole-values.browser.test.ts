import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  capture,
  disabledReason,
  expectAccessible,
  INSTALL_TIMEOUT_MS,
  type Json,
  type Person,
  printAxeSummary,
  settle,
  shownText,
  signIn,
  startApp,
} from './app.ts';
import { screenshot } from './browser.ts';

/**
 * The helpdesk in Chromium for the details a person who works in it all day relies on: the
 * priority in the colours its spec declares (low teal, not the grey a calm value takes by default)
 * on the list, the board and the dashboard; an agent's home counting their tickets per state
 * exactly, past the hundred records it lists from; a list cell cut short shown whole on keyboard
 * focus and to screen readers; refusals whole to screen readers and on request; and the bulk set
 * and the "set it first" refusal on a phone.
 */

const PHONE = { width: 390, height: 844 };
const LONG_NAME = 'Maximiliane Featherstonehaugh-Cholmondeley of the Finance Department';

let app: App;
let lead: Person;
let agent: Person;
/** The reporter of the three tickets the tests look at: their list is `MINE`. */
let reporter: Person;
const tickets = new Map<string, Json>();

const LOW = 'Desk lamp flickers now and then';
const HIGH = 'Shared drive is read-only for the finance team';
const URGENT = 'Card terminal at reception is down';
/** New tickets assigned to the agent, past the hundred their home lists from; two more are closed. */
const ASSIGNED = 103;

beforeAll(async () => {
  app = await startApp('helpdesk.md');
  lead = app.users.lead as Person;
  agent = app.users.agent as Person;
  reporter = await app.addPerson('requester', LONG_NAME);
  const longName = reporter;
  const made = async (title: string, fields: Json) => {
    const body = { title, description: `${title}. Reported from the office.`, ...fields };
    tickets.set(title, await app.api(agent, 'POST', '/api/tickets', body));
  };
  await made(LOW, { priority: 'low', category: 'hardware', reporter: longName.id });
  await made(HIGH, { priority: 'high', category: 'access', reporter: longName.id });
  await made(URGENT, { priority: 'urgent', category: 'hardware', reporter: longName.id });
  // At most MAX_OPEN_TICKETS (3) new tickets per reporter: a reporter for every three.
  let other: Person | null = null;
  for (let i = 0; i < ASSIGNED + 2; i++) {
    if (i % 3 === 0) other = await app.addPerson('requester', `Reporter ${i / 3 + 1}`);
    const body = {
      title: `Routine request number ${i + 1}`,
      description: 'A routine request from the office.',
      reporter: other?.id,
      assignee: agent.id,
    };
    const ticket = await app.api(agent, 'POST', '/api/tickets', body);
    // The last two changed last: a count of the hundred changed last would miss three new ones.
    if (i >= ASSIGNED) await app.api(agent, 'POST', `/api/tickets/${ticket.id}/withdraw`);
  }
  // The three looked at changed last of all: first in the board's New column.
  for (const title of [LOW, HIGH, URGENT]) {
    await app.api(agent, 'PATCH', `/api/tickets/${tickets.get(title).id}`, { notify: 'desk@example.com' });
  }
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (app?.chromium) printAxeSummary('whole values');
  await app?.close();
});

/** The tickets list of the three tickets the tests look at. */
const mine = () => `/tickets?sort=-created_at&filter%5Breporter%5D=${reporter.id}`;

/** The Mantine colour a badge or bar is drawn in, read from its style (`--badge-bg: var(--mantine-color-teal-light)`). */
const hue = (style: string | null) => /--mantine-color-([a-z]+)-/.exec(style ?? '')?.[1] ?? '';

describe('whole values in Chromium', () => {
  it('colours the priority as the spec declares it on the list, the board and the dashboard', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, lead, mine());
    await page.getByRole('heading', { name: 'Tickets', level: 1 }).waitFor();
    const row = (title: string) => page.getByRole('row').filter({ hasText: title });
    const listBadge = (title: string) => row(title).locator('[data-choice-colour]');
    await expect.poll(() => listBadge(LOW).getAttribute('data-choice-colour')).toBe('teal');
    expect(hue(await listBadge(LOW).getAttribute('style'))).toBe('teal');
    expect(await listBadge(HIGH).getAttribute('data-choice-colour')).toBe('orange');
    expect(await listBadge(URGENT).getAttribute('data-choice-colour')).toBe('red');
    await expectAccessible(page, 'the tickets list with declared colours');

    await page.goto(`${app.url}/queue`);
    const card = page.locator('[data-board-card]').filter({ hasText: LOW });
    const cardBadge = card.locator('[data-choice="priority"]');
    await expect.poll(() => cardBadge.getAttribute('data-choice-colour')).toBe('teal');
    expect(hue(await cardBadge.getAttribute('style'))).toBe('teal');
    await expectAccessible(page, 'the queue board with declared colours');

    await page.goto(`${app.url}/overview`);
    const priority = page.getByRole('region', { name: 'Tickets by priority' });
    const bars = priority.locator('.recharts-bar-rectangle path');
    await expect.poll(() => bars.count()).toBe(4);
    // In the spec's order: low (teal, declared), normal (blue), high (orange), urgent (red).
    expect(await bars.evaluateAll((paths) => paths.map((p) => p.getAttribute('fill')))).toEqual([
      'var(--mantine-color-teal-6)',
      'var(--mantine-color-blue-6)',
      'var(--mantine-color-orange-6)',
      'var(--mantine-color-red-6)',
    ]);
    await expectAccessible(page, 'the dashboard with declared colours');
    await capture(page, 'dashboard-declared-colours');
    app.expectQuiet();
  });

  it("counts an agent's tickets per state exactly, past the hundred their home lists", async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, agent);
    const card = page.getByRole('article', { name: 'Tickets: you are the assignee' });
    const counts = card.getByRole('group', { name: 'How many in each state' });
    await expect.poll(() => counts.getByRole('link').allTextContents()).toEqual([`New: ${ASSIGNED}`, 'Closed: 2']);
    // Each count opens the list filtered as the card is, and by its state: as many rows as it says.
    await counts.getByRole('link', { name: 'Closed: 2' }).click();
    await page.getByRole('heading', { name: 'Tickets', level: 1 }).waitFor();
    const address = new URL(page.url());
    expect(address.searchParams.getAll('filter[assignee]')).toEqual([agent.id]);
    expect(address.searchParams.getAll('filter[state]')).toEqual(['closed']);
    await expect.poll(() => page.getByRole('table').locator('tbody tr').count()).toBe(2);
    app.expectQuiet();
  });

  it('shows a list cell cut short whole on keyboard focus, and says it whole to screen readers', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, lead, mine());
    await page.getByRole('heading', { name: 'Tickets', level: 1 }).waitFor();
    const cell = page
      .getByRole('row')
      .filter({ hasText: URGENT })
      .locator('td[data-cut]')
      .filter({
        has: page.getByText(LONG_NAME),
      });
    await cell.waitFor();
    // Cut short by its column: an ellipsis, the whole name in its title and its description.
    expect(await cell.evaluate((td) => td.scrollWidth > td.clientWidth)).toBe(true);
    expect(await cell.getAttribute('title')).toBe(LONG_NAME);
    expect(await cell.getAttribute('aria-description')).toBe(LONG_NAME);
    // A keyboard reaches it (Tab, no mouse), and it shows the whole name while focused.
    let reached = false;
    for (let i = 0; i < 80 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await cell.evaluate((td) => td === document.activeElement);
    }
    expect(reached).toBe(true);
    await expect.poll(() => cell.evaluate((td) => td.scrollWidth <= td.clientWidth + 1)).toBe(true);
    expect(await cell.evaluate((td) => getComputedStyle(td).whiteSpace)).toBe('normal');
    // Cells shown whole take no tab stop: the state badge beside it has none.
    const state = page.getByRole('row').filter({ hasText: URGENT }).locator('td[data-cell]').nth(1);
    expect(await state.getAttribute('tabindex')).toBeNull();
    await expectAccessible(page, 'a list cell shown whole on focus');
    // The table alone, with the focus where the keyboard left it (`capture` would move the mouse).
    await settle(page);
    await screenshot(page.getByRole('table'), 'list-cell-whole-on-focus');
    app.expectQuiet();
  });

  it('says a refusal whole to screen readers, on screen with More, and while its menu item has focus', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, agent, `/tickets/${tickets.get(LOW).id}`);
    await page.getByRole('heading', { name: LOW, level: 1 }).waitFor();
    const actions = page.getByRole('group', { name: 'What you can do with this ticket' });
    const whole = 'Assign: Set an assignee first. Assign is allowed only when the assignee has the role agent.';
    await expect.poll(() => disabledReason(actions.getByRole('button', { name: 'Assign' }))).toBe(whole);
    const reason = page.locator('#cannot-assign');
    expect(await shownText(reason)).toBe('Assign: Set an assignee first.');
    const more = page.getByRole('button', { name: 'More of the reason' });
    await more.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => shownText(reason)).toBe(whole);
    expect(await page.getByRole('button', { name: 'Less of the reason' }).getAttribute('aria-expanded')).toBe('true');
    await expectAccessible(page, 'a refusal shown whole');

    // On the board, the refused move stays in the menu's keyboard path, and says all while focused.
    await page.goto(`${app.url}/queue`);
    await page.getByRole('button', { name: `Move to… (${LOW})` }).click();
    const menu = page.getByRole('menu', { name: `Move to… (${LOW})` });
    const item = menu.getByRole('menuitem', { name: /^Assigned — Assign/ });
    await expect.poll(() => item.getAttribute('aria-disabled')).toBe('true');
    expect(await shownText(item)).toMatch(/Not possible now: Set an assignee first\.$/);
    let reached = false;
    for (let i = 0; i < 6 && !reached; i++) {
      await page.keyboard.press('ArrowDown');
      reached = await item.evaluate((el) => el === document.activeElement);
    }
    expect(reached).toBe(true);
    await expect
      .poll(() => shownText(item))
      .toMatch(/Set an assignee first\. Assign is allowed only when the assignee/);
    // Picked, it does nothing: the menu stays, the ticket stays New.
    await page.keyboard.press('Enter');
    await menu.waitFor();
    await expectAccessible(page, 'a refused move focused in its menu');
    expect((await app.api(agent, 'GET', `/api/tickets/${tickets.get(LOW).id}`)).state).toBe('new');
    app.expectQuiet();
  });

  it('offers the field a refused step needs, and sets a field on many rows, on a phone', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await page.setViewportSize(PHONE);
    await signIn(page, app, agent, `/tickets/${tickets.get(HIGH).id}`);
    await page.getByRole('heading', { name: HIGH, level: 1 }).waitFor();
    await page.locator('#cannot-assign').waitFor();
    expect(await shownText(page.locator('#cannot-assign'))).toBe('Assign: Set an assignee first.');
    await page.getByRole('button', { name: 'Set assignee' }).waitFor();
    await expectAccessible(page, 'a refusal with its field offered, on a phone');
    await capture(page, 'refusal-set-first-phone');
    await noOverflow(page);

    // A chip naming a long name is cut to the phone's width, whole in its title.
    await page.goto(`${app.url}/tickets?filter[reporter]=${reporter.id}`);
    const chip = page.getByRole('group', { name: 'Filters in effect' }).locator('.mantine-Badge-root').first();
    await page.getByRole('button', { name: /^Remove the filter Reporter/ }).waitFor();
    await expect.poll(() => chip.textContent()).toContain(LONG_NAME);
    await noOverflow(page);
    expect(await chip.getAttribute('title')).toBe(`Reporter: ${LONG_NAME}`);

    await page.goto(`${app.url}/tickets?sort=-updated_at`);
    await page.getByRole('heading', { name: 'Tickets', level: 1 }).waitFor();
    for (const title of [LOW, URGENT]) await page.getByRole('checkbox', { name: `Select ${title}` }).check();
    const bar = page.getByRole('region', { name: 'Selected rows' });
    await bar.getByRole('button', { name: 'Set a field…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Set a field on 2 rows' });
    await dialog.getByRole('combobox', { name: 'Field' }).selectOption({ label: 'Category' });
    await dialog.getByRole('combobox', { name: 'Category', exact: true }).click();
    await page.getByRole('listbox', { name: 'Category' }).getByRole('option', { name: 'Network', exact: true }).click();
    await expectAccessible(page, 'setting a field on two tickets, on a phone');
    // The dialog over the cards (the whole page is a hundred cards long).
    await settle(page);
    await screenshot(page, 'bulk-set-phone', { viewport: true });
    await noOverflow(page);
    await dialog.getByRole('button', { name: 'Set on 2 rows' }).click();
    await page.getByRole('region', { name: /^Set category: 2 done/ }).waitFor();
    for (const title of [LOW, URGENT]) {
      expect((await app.api(agent, 'GET', `/api/tickets/${tickets.get(title).id}`)).category).toBe('network');
    }
    app.expectQuiet();
  });
});

/** Nothing on the page is wider than the phone: no sideways scrolling of the whole page. */
async function noOverflow(page: Page): Promise<void> {
  const wide = await page.evaluate(() => {
    const over = [...document.querySelectorAll<HTMLElement>('body *')]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
      .slice(0, 5)
      .map((el) => `${el.tagName}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`);
    return { by: document.documentElement.scrollWidth - window.innerWidth, over };
  });
  expect(wide).toEqual({ by: 0, over: [] });
}
