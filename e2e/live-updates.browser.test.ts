import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  boardCards,
  columnValues,
  INSTALL_TIMEOUT_MS,
  type Json,
  type Person,
  STEP_MS,
  signIn,
  startApp,
} from './app.ts';
import { type Chromium, launchChromium } from './browser.ts';

/**
 * Live updates in Chromium, with two browsers (two cookie jars, two people): what one changes
 * shows on the other's open list and detail page without a reload.
 */

let app: App;
/** The second person's browser. */
let other: Chromium | null = null;
let lead: Person;
let agent: Person;
let ticket: Json;

beforeAll(async () => {
  app = await startApp('helpdesk.md');
  lead = app.users.lead as Person;
  agent = app.users.agent as Person;
  ticket = await app.api(agent, 'POST', '/api/tickets', {
    title: 'Scanner on floor 2 is offline',
    description: 'The scanner shows no network since this morning.',
    category: 'hardware',
  });
  if (app.chromium) other = await launchChromium();
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  await other?.close();
  await app?.close();
});

/** Marks the page's window: the mark is gone if the page was loaded again. */
async function mark(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { liveMark: boolean }).liveMark = true;
  });
}

async function stillMarked(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as unknown as { liveMark?: boolean }).liveMark === true);
}

describe('live updates in Chromium', () => {
  it('shows on one person’s open list and detail page what another changes, without a reload', async (ctx) => {
    if (!app.chromium || !other) return ctx.skip(app.unavailable);
    const watching = await app.page();
    await signIn(watching, app, lead, '/tickets');
    await watching.getByRole('heading', { name: 'Tickets', level: 1 }).waitFor();
    await expect.poll(() => columnValues(watching, 'Title')).toContain('Scanner on floor 2 is offline');
    await mark(watching);

    const editing = await other.newPage();
    editing.setDefaultTimeout(STEP_MS);
    await signIn(editing, app, agent, `/tickets/${ticket.id}/edit`);
    await editing.getByRole('textbox', { name: 'Title' }).fill('Scanner on floor 2 is offline again');
    await editing.getByRole('button', { name: 'Save changes' }).click();
    await editing.getByRole('heading', { name: 'Scanner on floor 2 is offline again', level: 1 }).waitFor();

    await expect.poll(() => columnValues(watching, 'Title')).toContain('Scanner on floor 2 is offline again');
    expect(await stillMarked(watching)).toBe(true);

    await watching.getByRole('link', { name: 'Scanner on floor 2 is offline again' }).click();
    await watching.getByRole('heading', { name: 'Scanner on floor 2 is offline again', level: 1 }).waitFor();
    await mark(watching);
    const actions = editing.getByRole('group', { name: 'What you can do with this ticket' });
    await actions.getByRole('link', { name: 'Edit' }).click();
    await editing.getByRole('textbox', { name: 'Title' }).fill('Scanner on floor 2 is back');
    await editing.getByRole('button', { name: 'Save changes' }).click();
    await editing.getByRole('heading', { name: 'Scanner on floor 2 is back', level: 1 }).waitFor();

    await watching.getByRole('heading', { name: 'Scanner on floor 2 is back', level: 1 }).waitFor();
    expect(await stillMarked(watching)).toBe(true);
    app.expectQuiet();
  });

  it('moves a card another person moved to its new column on an open board, never showing it in two', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const title = 'Projector in room 4 flickers';
    const moved = await app.api(agent, 'POST', '/api/tickets', {
      title,
      description: 'The projector flickers every few seconds.',
      category: 'hardware',
    });
    const watching = await app.page();
    await signIn(watching, app, lead, '/queue');
    await watching.getByRole('heading', { name: 'Queue', level: 1 }).waitFor();
    await expect.poll(() => boardCards(watching, 'New')).toContain(title);
    await mark(watching);
    // From now on, counts every moment the board shows the card more than once.
    await watching.evaluate((shown) => {
      const seen = window as unknown as { twice: number };
      seen.twice = 0;
      const cards = () => [...document.querySelectorAll('main li a')].filter((a) => a.textContent === shown).length;
      new MutationObserver(() => {
        if (cards() > 1) seen.twice++;
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    }, title);
    // The column the card leaves answers last, as it may on a busy server: the card must not
    // show in both columns meanwhile.
    await watching.route(
      (url) => url.pathname === '/api/tickets' && url.searchParams.get('filter[state]') === 'new',
      async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 800));
        await route.continue();
      },
    );

    await app.api(agent, 'PATCH', `/api/tickets/${moved.id}`, { assignee: agent.id });
    await app.api(agent, 'POST', `/api/tickets/${moved.id}/assign`);

    await expect.poll(() => boardCards(watching, 'Assigned')).toContain(title);
    expect(await boardCards(watching, 'New')).not.toContain(title);
    expect(await watching.evaluate(() => (window as unknown as { twice: number }).twice)).toBe(0);
    expect(await stillMarked(watching)).toBe(true);
    app.expectQuiet();
  });
});
