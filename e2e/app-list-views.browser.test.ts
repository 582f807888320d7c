import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  addFilter,
  capture,
  columnValues,
  expectAccessible,
  INSTALL_TIMEOUT_MS,
  type Json,
  type Person,
  printAxeSummary,
  signIn,
  startApp,
} from './app.ts';

/**
 * The helpdesk's ticket list in Chromium as its team lead works it: filters by what a title
 * contains, a range of hours and several categories, keeps that view through a reload and saves
 * it by name; then picks rows and acts on them at once (a transition one row may not take, a
 * delete after asking, an export of the selection). The tests run in order on the same tickets.
 */

let app: App;
let lead: Person;
const tickets = new Map<string, Json>();

const JAMS = 'Printer jams on floor 2';
const TONER = 'Printer out of toner';
const OFFLINE = 'Network printer offline';
const WIFI = 'Wi-Fi drops in the meeting room';
const MACRO = 'Spreadsheet macro fails';
const FLICKER = 'Laptop screen flickers';

beforeAll(async () => {
  app = await startApp('helpdesk.md');
  lead = app.users.lead as Person;
  const agent = app.users.agent as Person;
  let reporters = 0;
  const ticket = async (title: string, fields: Json) => {
    // At most MAX_OPEN_TICKETS open tickets per reporter: each ticket has its own.
    const reporter = await app.addPerson('requester', `Reporter ${String.fromCharCode(65 + reporters++)}`);
    const body = { title, description: `${title}. Reported from the office.`, reporter: reporter.id, ...fields };
    tickets.set(title, await app.api(agent, 'POST', '/api/tickets', body));
  };
  await ticket(JAMS, { category: 'hardware', time_spent: 1.5 });
  await ticket(TONER, { category: 'hardware', time_spent: 0.25 });
  await ticket(OFFLINE, { category: 'network', time_spent: 2 });
  await ticket(WIFI, { category: 'network', time_spent: 3.5 });
  await ticket(MACRO, { category: 'software', time_spent: 2 });
  await ticket(FLICKER, { category: 'hardware', time_spent: 1 });
  const flicker = tickets.get(FLICKER).id;
  await app.api(agent, 'PATCH', `/api/tickets/${flicker}`, {
    assignee: agent.id,
    resolution: 'Replaced the display cable under warranty.',
  });
  for (const step of ['assign', 'start', 'resolve']) await app.api(agent, 'POST', `/api/tickets/${flicker}/${step}`);
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (app?.chromium) printAxeSummary('list views and bulk actions');
  await app?.close();
});

const titles = (page: Page) => columnValues(page, 'Title');
const ALL = [JAMS, TONER, OFFLINE, WIFI, MACRO, FLICKER];

describe('list filters, saved views and bulk actions in Chromium', () => {
  it('filters by contains, a range and several choices, keeps the view through a reload, and saves it', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, lead, '/tickets?sort=title');
    await page.getByRole('heading', { name: 'Tickets', level: 1 }).waitFor();
    await expect.poll(() => titles(page)).toEqual([...ALL].sort());

    // Dense rows: one line each, the whole title on hover; a column empty on every row (Notify) collapses.
    const table = page.getByRole('table');
    const rowHeights = () =>
      table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => Math.round(r.getBoundingClientRect().height)));
    expect(Math.max(...(await rowHeights()))).toBeLessThanOrEqual(36);
    expect(await table.getByRole('link', { name: JAMS }).locator('xpath=ancestor::td').getAttribute('title')).toBe(
      JAMS,
    );
    expect(await page.getByRole('columnheader', { name: 'Notify' }).count()).toBe(0);
    // Comfortable rows, and a wider Category column: kept for this user through a reload.
    await page.getByRole('radiogroup', { name: 'Row density' }).getByText('Comfortable').click();
    await expect.poll(async () => Math.min(...(await rowHeights()))).toBeGreaterThan(40);
    const width = page.getByRole('separator', { name: 'Width of Category' });
    const before = Number(await width.getAttribute('aria-valuenow'));
    await width.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect
      .poll(async () => Number(await width.getAttribute('aria-valuenow')))
      .toBeGreaterThanOrEqual(before + 30);
    const wider = Number(await width.getAttribute('aria-valuenow'));
    await page.reload();
    await expect.poll(() => titles(page)).toEqual([...ALL].sort());
    expect(Number(await width.getAttribute('aria-valuenow'))).toBe(wider);
    expect(Math.min(...(await rowHeights()))).toBeGreaterThan(40);
    await page.getByRole('radiogroup', { name: 'Row density' }).getByText('Compact').click();
    await expectAccessible(page, 'the dense ticket list');

    await addFilter(page, 'Title', 'contains', 'PRINTER');
    await expect.poll(() => titles(page)).toEqual([OFFLINE, JAMS, TONER]);
    await addFilter(page, 'Category', 'is', { any: ['hardware', 'network'] });
    await page.waitForURL((u) => u.searchParams.getAll('filter[category]').length === 2);
    await addFilter(page, 'Time spent', 'between', ['1', '3']);
    // Toner (0.25 hours) is below the range; the Wi-Fi (no "printer") and the macro (software) never matched.
    await expect.poll(() => titles(page)).toEqual([OFFLINE, JAMS]);
    const url = new URL(page.url());
    expect(url.searchParams.get('filter[title][contains]')).toBe('PRINTER');
    expect(url.searchParams.getAll('filter[category]')).toEqual(['hardware', 'network']);
    expect([url.searchParams.get('filter[time_spent][from]'), url.searchParams.get('filter[time_spent][to]')]).toEqual([
      '1',
      '3',
    ]);
    const inEffect = page.getByRole('group', { name: 'Filters in effect' });
    await inEffect.getByText('Category: Hardware or Network').waitFor();
    await inEffect.getByText('Time spent: 1 to 3').waitFor();
    await expectAccessible(page, 'tickets filtered by contains, a range and several categories');

    // Fewer columns: the address keeps them too.
    await page.getByRole('button', { name: 'Columns' }).click();
    const shown = page.getByRole('group', { name: 'Columns shown' });
    await shown.getByRole('checkbox', { name: 'Reporter' }).uncheck();
    await page.waitForURL((u) => u.searchParams.has('columns'));
    await expectAccessible(page, 'the column chooser');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('columnheader', { name: 'Reporter' }).count()).toBe(0);

    await page.reload();
    await page.getByRole('heading', { name: 'Tickets', level: 1 }).waitFor();
    await expect.poll(() => titles(page)).toEqual([OFFLINE, JAMS]);
    expect(await page.getByRole('columnheader', { name: 'Reporter' }).count()).toBe(0);
    // The filters came back with the address, as chips.
    await page.getByRole('group', { name: 'Filters in effect' }).getByText('Category: Hardware or Network').waitFor();

    // Back goes to the view before the last change.
    await page.goBack();
    await expect.poll(() => page.getByRole('columnheader', { name: 'Reporter' }).count()).toBe(1);
    await page.goForward();
    await expect.poll(() => page.getByRole('columnheader', { name: 'Reporter' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Saved views' }).click();
    await page.getByRole('textbox', { name: 'Save this view as' }).fill('Printers to look at');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('link', { name: 'Printers to look at' }).waitFor();
    await expectAccessible(page, 'the saved views');
    await capture(page, 'list-saved-views');
    await page.keyboard.press('Escape');

    // Saved on the server for this user: another browser session opens it from the menu.
    await page.goto(`${app.url}/tickets`);
    await expect.poll(() => titles(page)).toHaveLength(ALL.length);
    await page.getByRole('button', { name: 'Saved views' }).click();
    await page.getByRole('link', { name: 'Printers to look at' }).click();
    await expect.poll(() => titles(page)).toEqual([OFFLINE, JAMS]);
    expect(new URL(page.url()).searchParams.getAll('filter[category]')).toEqual(['hardware', 'network']);
    expect(await page.getByRole('columnheader', { name: 'Reporter' }).count()).toBe(0);
    const views = await app.api(lead, 'GET', '/api/views?screen=/tickets');
    expect(views.items.map((v: Json) => v.name)).toEqual(['Printers to look at']);
    app.expectQuiet();
  });

  it('builds filters field by field as chips, with an either-group, on a desk and on a phone, and shares a view with a role', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, lead, '/tickets?sort=title');
    await expect.poll(() => titles(page)).toEqual([...ALL].sort());
    await addFilter(page, 'Time spent', 'after', '1');
    await expect.poll(() => titles(page)).toEqual([OFFLINE, JAMS, MACRO, WIFI].sort());
    await addFilter(page, 'Title', 'contains', 'printer', 'Start an “either” group (or)');
    await addFilter(page, 'Category', 'is empty', null, 'Into “either” group 1 (or)');
    // Either a printer or no category: of those above one hour, the two printers.
    await expect.poll(() => titles(page)).toEqual([OFFLINE, JAMS]);
    const url = new URL(await page.evaluate(() => window.location.href));
    expect(url.searchParams.get('filter[time_spent][after]')).toBe('1');
    expect(url.searchParams.get('or[1][title][contains]')).toBe('printer');
    expect(url.searchParams.get('or[1][category][empty]')).toBe('true');
    const inEffect = page.getByRole('group', { name: 'Filters in effect' });
    await inEffect.getByText('Time spent: after 1').waitFor();
    await inEffect.getByText('Either Title: contains “printer” or Category: empty').waitFor();
    await expectAccessible(page, 'tickets filtered by the builder, with an either-group');
    await capture(page, 'list-filter-builder');

    // Shared with every lead: the view is theirs too, marked as shared.
    await page.getByRole('button', { name: 'Saved views' }).click();
    await page.getByRole('textbox', { name: 'Save this view as' }).fill('Printer hours');
    await page.getByRole('combobox', { name: 'Who sees it' }).selectOption({ label: 'Everyone who is lead' });
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Shared with lead').waitFor();
    await expectAccessible(page, 'a view shared with a role');
    await page.getByRole('button', { name: 'Saved views' }).click();
    await page.getByRole('combobox', { name: 'Who sees it' }).waitFor({ state: 'hidden' });
    const other = await app.addPerson('lead', 'Lin Park');
    const views = await app.api(other, 'GET', '/api/views?screen=/tickets');
    expect(views.items.map((v: Json) => `${v.name} ${v.role}`)).toContain('Printer hours lead');

    // On a phone: the same chips and the builder, rows as cards, nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await inEffect.getByText('Time spent: after 1').waitFor();
    await page.getByRole('button', { name: 'Remove the filter Time spent' }).click();
    await expect.poll(() => page.evaluate(() => window.location.search.includes('after'))).toBe(false);
    await addFilter(page, 'Time spent', 'between', ['1', '2']);
    await inEffect.getByText('Time spent: 1 to 2').waitFor();
    // The address as the page has it (Playwright's url() may lag a history push).
    const search = new URLSearchParams(await page.evaluate(() => window.location.search));
    expect(search.get('filter[time_spent][to]')).toBe('2');
    const wide = await page.evaluate(() =>
      [...document.querySelectorAll('main *')]
        .filter((e) => e.getBoundingClientRect().right > 391)
        .map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)
        .slice(0, 5),
    );
    expect(wide, 'elements wider than the phone').toEqual([]);
    await expectAccessible(page, 'the filter builder on a phone');
    await capture(page, 'list-filter-builder-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    app.expectQuiet();
  });

  it('takes a transition on selected rows, showing the row the server refused; deletes after asking; exports the selection', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, lead, '/tickets?sort=title');
    await expect.poll(() => titles(page)).toEqual([...ALL].sort());
    const table = page.getByRole('table');

    // Keyboard: the row's checkbox is reached by Tab and ticked with Space.
    await table.getByRole('checkbox', { name: `Select ${JAMS}` }).focus();
    await page.keyboard.press('Space');
    await table.getByRole('checkbox', { name: `Select ${WIFI}` }).check();
    await table.getByRole('checkbox', { name: `Select ${FLICKER}` }).check();
    const bar = page.getByRole('region', { name: 'Selected rows' });
    await bar.getByText('3 rows selected').waitFor();
    await expectAccessible(page, 'tickets with rows selected');

    await bar.getByRole('combobox', { name: 'Transition to take' }).selectOption({ label: 'Withdraw' });
    await bar.getByRole('button', { name: 'Apply to 3 rows' }).click();
    const report = page.getByRole('region', { name: /^Withdraw: 2 done, 1 refused/ });
    await report.waitFor();
    const outcome = (name: string) => report.getByRole('listitem').filter({ hasText: name });
    await expect(outcome(JAMS).textContent()).resolves.toContain('Done');
    await expect(outcome(WIFI).textContent()).resolves.toContain('Done');
    // Resolved: the server refuses a withdrawal, with the catalogue's words.
    await expect(outcome(FLICKER).textContent()).resolves.toContain('You cannot withdraw a ticket that is resolved.');
    await expectAccessible(page, 'the outcome of a bulk transition');
    await capture(page, 'list-bulk-transition');
    const state = async (name: string) => (await app.api(lead, 'GET', `/api/tickets/${tickets.get(name).id}`)).state;
    expect([await state(JAMS), await state(WIFI), await state(FLICKER)]).toEqual(['closed', 'closed', 'resolved']);
    // The rows done are unselected; the refused one stays picked.
    await bar.getByText('1 row selected').waitFor();
    await bar.getByRole('button', { name: 'Clear selection' }).click();

    await table.getByRole('checkbox', { name: `Select ${TONER}` }).check();
    await bar.getByRole('button', { name: 'Delete 1 row' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete 1 row?' });
    await expectAccessible(page, 'the bulk delete confirmation');
    await dialog.getByRole('button', { name: 'Delete 1 row' }).click();
    await page.getByRole('region', { name: 'Delete: 1 done' }).waitFor();
    await expect.poll(() => titles(page)).toEqual([...ALL].filter((t) => t !== TONER).sort());

    // Every row of the page, then export them.
    await table.getByRole('checkbox', { name: 'Select every row on this page' }).check();
    await bar.getByText(`${ALL.length - 1} rows selected`).waitFor();
    await table.getByRole('checkbox', { name: `Select ${MACRO}` }).uncheck();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      bar.getByRole('button', { name: `Export ${ALL.length - 2} rows as CSV` }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^tickets-selected-\d{4}-\d{2}-\d{2}\.csv$/);
    const path = await download.path();
    const lines = readFileSync(path, 'utf8')
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]?.split(',').slice(0, 2)).toEqual(['id', 'title']);
    const exported = lines.slice(1).map((l) => l.split(',')[1]);
    expect(exported.sort()).toEqual([JAMS, OFFLINE, WIFI, FLICKER].sort());
    app.expectQuiet();
  });
});
