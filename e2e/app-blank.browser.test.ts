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
  signOut,
  startApp,
} from './app.ts';

/**
 * The blank spec (`ninepoint new`: nine points, all "Not shown.") in Chromium: a valid product with
 * no visible behaviour yet. Its home page says so, lists the nine points and shows how to grow
 * it; it has no roles, so a person without one signs in and out; any other address is not found.
 */

let app: App;
let someone: Person;

beforeAll(async () => {
  app = await startApp('blank');
  expect(Object.keys(app.users)).toEqual([]);
  someone = await app.addPerson(null, 'Alex Kim');
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (app?.chromium) printAxeSummary('the blank spec');
  await app?.close();
});

describe('the blank spec in Chromium', () => {
  it('shows a visitor a home page that explains the nine points and how to grow the product', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await page.goto(app.url);
    await page.getByRole('heading', { name: 'New product', level: 1 }).waitFor();
    expect(await page.title()).toBe('New product');
    expect(await navigationLinks(page)).toEqual(['Home']);
    const main = page.getByRole('main');
    await main.getByText('New product has no visible behaviour yet.').waitFor();

    const points = main.getByRole('region', { name: 'The nine points' }).getByRole('listitem');
    expect(await points.count()).toBe(9);
    const texts = await points.allTextContents();
    expect(texts.every((t) => t.endsWith('Not shown'))).toBe(true);
    expect(texts[0]).toContain('Point 1: What the product does and for whom');

    const grow = main.getByRole('region', { name: 'How to grow it' });
    for (const step of ['Write a spec', 'Fill in the points', 'Or start from an example', 'Check it and run it']) {
      await grow.getByRole('heading', { name: step }).waitFor();
    }
    await grow.getByRole('button', { name: 'Copy: npx ninepoint new spec.md' }).waitFor();
    await expectAccessible(page, 'the blank home page');
    await capture(page, 'blank-home');
    // At a phone's width the commands and the installed path wrap inside their boxes: none scrolls.
    await page.setViewportSize({ width: 390, height: 844 });
    await expectAccessible(page, 'the blank home page at a phone’s size');
    const scrolls = await grow
      .locator('code')
      .evaluateAll((codes) => codes.filter((c) => c.scrollWidth > c.clientWidth).map((c) => c.textContent));
    expect(scrolls).toEqual([]);
    app.expectQuiet();
    // The production app asks nothing of dev-only calls (it once probed /api/dev/studio on every page).
    app.expectNothingNotFound();
  });

  it('signs in a person without a role, who sees the same one screen, then signs out', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, someone);
    // With no roles in point 6, every signed-in user manages people (there are no roles to give):
    // the Users screen and inviting are theirs.
    expect(await navigationLinks(page)).toEqual(['Home', 'Users', 'Invite people']);
    await page.getByRole('main').getByText('New product has no visible behaviour yet.').waitFor();
    await expectAccessible(page, 'the blank home page, signed in');

    // A deep link to a screen the spec does not have: the app's own "not found", not an error.
    await page.goto(`${app.url}/books/42`);
    await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
    expect(await page.title()).toBe('Page not found · New product');
    await expectAccessible(page, 'a page the blank spec does not have');
    await page.getByRole('link', { name: 'Go to the home page' }).click();
    await page.getByRole('heading', { name: 'New product', level: 1 }).waitFor();

    await signOut(page, someone);
    expect(await navigationLinks(page)).toEqual(['Home']);
    app.expectQuiet();
  });
});
