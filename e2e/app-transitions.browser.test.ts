import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  boardCards,
  capture,
  expectAccessible,
  INSTALL_TIMEOUT_MS,
  type Json,
  type Person,
  signIn,
  startApp,
} from './app.ts';

/**
 * Transitions in the IT helpdesk as a person meets them: one whose guard does not hold shows
 * disabled with the guard's words before anyone clicks it (on the detail page and in a board
 * card's menu), and one into a final state asks first, naming what it does. And the list's CSV
 * export, which names people rather than giving their ids.
 */

let app: App;
let agent: Person;
let lead: Person;
let fresh: Json;
let resolved: Json;

beforeAll(async () => {
  app = await startApp('helpdesk.md');
  agent = app.users.agent as Person;
  lead = app.users.lead as Person;
  const ticket = (title: string) =>
    app.api(agent, 'POST', '/api/tickets', { title, description: `${title}, since this morning.`, category: 'other' });
  // Escalating needs the ticket to be past its service level (4 hours): a new one is not.
  fresh = await ticket('Second monitor stays black');
  resolved = await ticket('Keyboard missing the letter E');
  await app.api(agent, 'PATCH', `/api/tickets/${resolved.id}`, {
    assignee: agent.id,
    resolution: 'Swapped the keyboard for a new one from the store room.',
  });
  for (const step of ['assign', 'start', 'resolve']) {
    await app.api(agent, 'POST', `/api/tickets/${resolved.id}/${step}`);
  }
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  await app?.close();
});

describe('transitions in Chromium', () => {
  it('shows a transition whose guard does not hold disabled, with its reason, before it is clicked', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, lead, `/tickets/${fresh.id}`);
    await page.getByRole('heading', { name: 'Second monitor stays black', level: 1 }).waitFor();
    const actions = page.getByRole('group', { name: 'What you can do with this ticket' });
    const escalate = actions.getByRole('button', { name: 'Escalate' });
    await expect.poll(() => escalate.isDisabled()).toBe(true);
    // The reason is the guard's, said next to the button and read with it by a screen reader.
    const reason = await escalate.evaluate(
      (button) => document.getElementById(button.getAttribute('aria-describedby') ?? '')?.textContent ?? '',
    );
    expect(reason).toMatch(/^Escalate is allowed only when .* since it was created\.$/);
    expect(await page.getByRole('list', { name: 'Not possible now' }).textContent()).toContain(reason);
    // Assigning needs an assignee who is an agent, and this ticket has none yet; withdrawing has no guard.
    expect(await actions.getByRole('button', { name: 'Assign' }).isDisabled()).toBe(true);
    expect(await actions.getByRole('button', { name: 'Withdraw' }).isEnabled()).toBe(true);
    await expectAccessible(page, 'a ticket whose escalation is not possible yet');
    await capture(page, 'transition-disabled-with-reason');

    await page.goto(`${app.url}/queue`);
    await expect.poll(() => boardCards(page, 'New')).toContain('Second monitor stays black');
    await page.getByRole('button', { name: 'Move to… (Second monitor stays black)' }).click();
    const menu = page.getByRole('menu', { name: 'Move to… (Second monitor stays black)' });
    const item = menu.getByRole('menuitem', { name: /^Escalated — Escalate/ });
    await expect.poll(() => item.getAttribute('aria-disabled')).toBe('true');
    expect(await item.textContent()).toMatch(/Not possible now: .*created/);
    expect(await menu.getByRole('menuitem', { name: /^Closed — Withdraw/ }).getAttribute('aria-disabled')).toBeNull();
    await capture(page, 'transition-disabled-on-the-board');
    app.expectQuiet();
  });

  it('asks before a transition into a final state, naming what it does, and takes it only when confirmed', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, lead, `/tickets/${resolved.id}`);
    await page.getByRole('heading', { name: 'Keyboard missing the letter E', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Close', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Close “Keyboard missing the letter E”?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(
      '“Keyboard missing the letter E” becomes Closed (done for good). Closed is final: no step leads out of it, so this cannot be undone.',
    );
    await expectAccessible(page, 'the confirmation of closing a ticket');
    await capture(page, 'transition-final-confirmation');
    // Cancelled: nothing is sent, the ticket stays resolved.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await app.api(lead, 'GET', `/api/tickets/${resolved.id}`)).state).toBe('resolved');

    await page.getByRole('button', { name: 'Close', exact: true }).click();
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Close done: it is now Closed.' }).waitFor();
    expect((await app.api(lead, 'GET', `/api/tickets/${resolved.id}`)).state).toBe('closed');
    app.expectQuiet();
  });

  it('exports the tickets as CSV with people by name, not by id', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, lead, '/tickets');
    await page.getByRole('heading', { name: 'Tickets', level: 1 }).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const csv = readFileSync(await download.path(), 'utf8').replace(/^\uFEFF/, '');
    const [columns = [], ...rows] = parseCsv(csv);
    const at = (name: string) => columns.indexOf(name);
    const keyboard = rows.find((cells) => cells[at('title')] === resolved.title);
    expect(keyboard?.[at('reporter')]).toBe(agent.name);
    expect(keyboard?.[at('assignee')]).toBe(agent.name);
    expect(keyboard?.[at('created_by')]).toBe(agent.name);
    expect(csv).not.toContain(agent.id);
    app.expectQuiet();
  });
});

/** The rows of a CSV file as RFC 4180 writes it (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}
