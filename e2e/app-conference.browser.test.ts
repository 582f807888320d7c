import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  capture,
  confirmFinalStep,
  expectAccessible,
  INSTALL_TIMEOUT_MS,
  type Json,
  type Person,
  pick,
  printAxeSummary,
  signIn,
  startApp,
} from './app.ts';

/**
 * The conference in Chromium (packages/server/test/fixtures/conference.md): a talk is accepted
 * once `count(Review where talk = this) >= MIN_REVIEWS`, else TOO_FEW_REVIEWS, the guard's own
 * error; a reviewer keeps at most MAX_DRAFTS drafts (a rule counting their reviews). The browser
 * cannot count records, so these refusals are the server's, shown where the user pressed.
 */

let app: App;
let organiser: Person;
let reviewer: Person;
let second: Person;
let speaker: Person;
const talks = new Map<string, Json>();

const ENGINES = 'Engines of thought';
const LOOMS = 'Looms and logic';
const CARDS = 'Punched cards at scale';

beforeAll(async () => {
  app = await startApp('packages/server/test/fixtures/conference.md');
  organiser = await app.addPerson('organiser', 'Maria Santos');
  reviewer = await app.addPerson('reviewer', 'Grace Hopper');
  second = await app.addPerson('reviewer', 'Alan Turing');
  speaker = await app.addPerson('speaker', 'Ada Lovelace');
  for (const title of [ENGINES, LOOMS, CARDS]) {
    talks.set(title, await app.api(speaker, 'POST', '/api/talks', { title, abstract: `On ${title.toLowerCase()}.` }));
  }
  await app.api(reviewer, 'POST', '/api/reviews', { talk: talks.get(ENGINES).id, score: 4, verdict: 'yes' });
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (app?.chromium) printAxeSummary('conference');
  await app?.close();
});

describe('the conference in Chromium', () => {
  it('tells an organiser a talk needs more reviews before it is accepted, and accepts it once they are in', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    const id = talks.get(ENGINES).id;
    await signIn(page, app, organiser, `/talks/${id}`);
    await page.getByRole('heading', { name: ENGINES, level: 1 }).waitFor();
    const actions = page.getByRole('group', { name: 'What you can do with this talk' });
    await actions.getByRole('button', { name: 'Accept' }).click();
    await confirmFinalStep(page, 'Accept');
    const refused = page.getByRole('alert').filter({ hasText: 'Not done' });
    await expect.poll(() => refused.textContent()).toContain('A talk needs 2 reviews before it is accepted.');
    await expectAccessible(page, 'a talk with too few reviews to accept');
    await capture(page, 'conference-too-few-reviews');

    await app.api(second, 'POST', '/api/reviews', { talk: id, score: 5, verdict: 'yes' });
    await actions.getByRole('button', { name: 'Accept' }).click();
    await confirmFinalStep(page, 'Accept');
    await page.getByRole('status').filter({ hasText: 'Accept done: it is now Accepted.' }).waitFor();
    expect(await refused.count()).toBe(0);
    app.expectQuiet();
  });

  it('lets a reviewer write reviews through the form, and says so at the form when they have too many drafts', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, reviewer, '/reviews/new');
    const write = async (talk: string) => {
      await page.goto(`${app.url}/reviews/new`);
      const form = page.getByRole('form');
      await pick(page, 'Talk', talk.split(' ')[0] ?? talk, talk);
      await form.getByRole('textbox', { name: 'Score' }).fill('3');
      await form.getByRole('combobox', { name: 'Verdict' }).click();
      await page.getByRole('option', { name: 'yes' }).click();
      await form.getByRole('button', { name: /^Create/ }).click();
      return form;
    };
    // Grace has one draft (seeded); a second is allowed, a third is not.
    await write(LOOMS);
    await page.waitForURL(/\/reviews\/[0-9a-f-]{36}$/);
    const form = await write(CARDS);
    const refused = form.getByRole('alert');
    await expect.poll(() => refused.textContent()).toContain('Send your drafts first: at most 2 at a time.');
    await expectAccessible(page, 'a review refused for too many drafts');
    await capture(page, 'conference-too-many-drafts');
    app.expectQuiet();
  });
});
