import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, INSTALL_TIMEOUT_MS, type Person, signIn, startApp } from './app.ts';

/**
 * Blind review where speakers submit their own talks
 * (packages/server/test/fixtures/blind-submissions.md): reviewers `read except (speaker,
 * created_by)`. A reviewer's talk page names nobody: no speaker, no "by" under the dates, and
 * "Someone" for each change in the history.
 */

let app: App;
let reviewer: Person;
let speaker: Person;
let talkId = '';

const TITLE = 'Engines of thought';

beforeAll(async () => {
  app = await startApp('packages/server/test/fixtures/blind-submissions.md');
  reviewer = app.users.reviewer as Person;
  speaker = await app.addPerson('speaker', 'Ada Lovelace');
  const talk = await app.api(speaker, 'POST', '/api/talks', { title: TITLE, abstract: 'On looms.' });
  talkId = talk.id;
}, INSTALL_TIMEOUT_MS);
afterAll(() => app?.close());

describe('blind submissions in Chromium', () => {
  it('shows a reviewer a talk its speaker submitted without naming them anywhere', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, reviewer, `/talks/${talkId}`);
    await page.getByRole('heading', { name: TITLE, level: 1 }).waitFor();
    await page.locator('dl').getByText('On looms.').waitFor();
    await page.getByText('Someone').first().waitFor();
    const detail = await page.getByRole('main').textContent();
    expect(detail).not.toMatch(/Lovelace|undefined|Speaker/);
    app.expectQuiet();
  });
});
