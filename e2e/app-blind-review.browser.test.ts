import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, columnValues, INSTALL_TIMEOUT_MS, type Person, signIn, startApp } from './app.ts';

/**
 * Blind review in Chromium (packages/server/test/fixtures/blind-review.md): reviewers `read
 * except (speaker, bio)`. Their list and detail pages have no trace of the fields: no column, no
 * row, no "undefined"; the organiser's have both.
 */

let app: App;
let organiser: Person;
let reviewer: Person;
let speaker: Person;
let talkId = '';

const TITLE = 'Engines of thought';
const BIO = 'Ada Lovelace writes about the Analytical Engine.';

beforeAll(async () => {
  app = await startApp('packages/server/test/fixtures/blind-review.md');
  organiser = app.users.organiser as Person;
  reviewer = app.users.reviewer as Person;
  speaker = await app.addPerson('speaker', 'Ada Lovelace');
  const talk = await app.api(organiser, 'POST', '/api/talks', {
    title: TITLE,
    abstract: 'On machines that weave algebra.',
    speaker: speaker.id,
    bio: BIO,
  });
  talkId = talk.id;
}, INSTALL_TIMEOUT_MS);
afterAll(() => app?.close());

describe('blind review in Chromium', () => {
  it('shows a reviewer the talks and a talk without speaker or bio, and nothing broken in their place', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, reviewer, '/talks');
    expect(await columnValues(page, 'Title')).toEqual([TITLE]);
    const headers = await page.getByRole('columnheader').allTextContents();
    expect(headers.join(' | ')).not.toMatch(/Speaker|Bio/);
    const list = await page.getByRole('main').textContent();
    expect(list).not.toMatch(/undefined|Lovelace/);

    await page.getByRole('link', { name: TITLE }).click();
    await page.getByRole('heading', { name: TITLE, level: 1 }).waitFor();
    await page.locator('dl').getByText('On machines that weave algebra.').waitFor();
    const detail = await page.getByRole('main').textContent();
    expect(detail).not.toMatch(/undefined|Lovelace|Speaker|Bio\b/);

    await page.goto(`${app.url}/talks/${talkId}/edit`);
    const form = page.getByRole('form');
    // The reviewer's form is the mark alone: the fields they see but may not change are shown read-only.
    await form.getByRole('textbox', { name: 'Score' }).waitFor();
    expect(await form.getByRole('textbox').count()).toBe(1);
    expect(await form.textContent()).not.toMatch(/undefined|Lovelace|Speaker|Bio\b/);
    app.expectQuiet();
  });

  it('shows the organiser the speaker and the bio', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, organiser, `/talks/${talkId}`);
    await page.getByRole('heading', { name: TITLE, level: 1 }).waitFor();
    await page.locator('dl').getByText(BIO).waitFor();
    expect(await page.getByRole('main').textContent()).toContain('Ada Lovelace');
    app.expectQuiet();
  });
});
