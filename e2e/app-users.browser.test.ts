import type { Cookie, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_ONLY } from '../packages/server/test/databases.ts';
import {
  type App,
  accountMenu,
  capture,
  expectAccessible,
  INSTALL_TIMEOUT_MS,
  navigationLinks,
  type Person,
  printAxeSummary,
  settle,
  signIn,
  startApp,
} from './app.ts';

/**
 * The Users screen, end to end: the club (packages/server/test/fixtures/club.md) whose secretary
 * manages people. The secretary changes a member's roles and deactivates an account on the Users
 * screen; the member's own session, kept in between, shows the change on its next page. On both
 * databases.
 */

const CLUB = 'packages/server/test/fixtures/club.md';
/** Wide enough that no page overflows sideways on a phone. */
const PHONE = { width: 390, height: 844 };

describe.each(SQLITE_ONLY)('the Users screen on $name, in Chromium', (db) => {
  let app: App;

  beforeAll(async () => {
    app = await startApp(CLUB, { database: db });
  }, INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    if (app?.chromium) printAxeSummary(`users on ${db.name}`);
    await app?.close();
  });

  /** The browser's cookies now: one person's session, to come back to after another's. */
  const session = async (): Promise<Cookie[]> => (await app.chromium?.context.cookies()) ?? [];
  /** A new tab holding exactly these cookies: that person's session as they left it. */
  const resume = async (cookies: Cookie[]): Promise<Page> => {
    const page = await app.page();
    await page.context().addCookies(cookies);
    return page;
  };
  const usersRow = (page: Page, person: Person) => page.getByRole('row').filter({ hasText: person.email });

  it('an admin changes a user’s roles, and the user’s next page has the new access', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const { secretary } = app.users;
    const member = await app.addPerson('member', 'Mia Member');
    if (!secretary) throw new Error('the club has a secretary');

    // The member, signed in: no drafts, no Users screen.
    let page = await app.page();
    await signIn(page, app, member, '/notices');
    expect(await navigationLinks(page)).not.toContain('Drafts');
    expect(await navigationLinks(page)).not.toContain('Users');
    await page.goto(`${app.url}/users`);
    await page.getByRole('heading', { name: 'Not available to you', level: 1 }).waitFor();
    const memberSession = await session();

    // The secretary makes them an editor on the Users screen.
    page = await app.page();
    await signIn(page, app, secretary, '/notices');
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: /^Users/ })
      .click();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    expect(await page.title()).toBe('Users · Club');
    const row = usersRow(page, member);
    await row.getByText('member', { exact: true }).waitFor();
    await row.getByText('Active', { exact: true }).waitFor();
    await expectAccessible(page, 'the Users screen');
    await capture(page, `users-${db.name}`);
    await row.getByRole('button', { name: `Edit roles of Mia Member (${member.email})` }).click();
    const dialog = page.getByRole('dialog', { name: 'Roles of Mia Member' });
    // The field is focused as the dialog opens; the arrow key opens its list of roles.
    await dialog.getByRole('combobox', { name: 'Roles' }).focus();
    await page.keyboard.press('ArrowDown');
    await page.getByRole('listbox', { name: 'Roles' }).getByRole('option', { name: 'editor' }).click();
    // Away from the list of roles, which closes it: the dialog stays.
    await page.keyboard.press('Tab');
    await page.getByRole('listbox', { name: 'Roles' }).waitFor({ state: 'hidden' });
    await expectAccessible(page, 'the roles dialog');
    await capture(page, `users-roles-${db.name}`);
    await dialog.getByRole('button', { name: 'Save roles' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row.getByText('editor', { exact: true }).waitFor();

    // The account's history says who did it.
    await row.getByRole('button', { name: `History of Mia Member (${member.email})` }).click();
    const drawer = page.getByRole('dialog', { name: 'History of Mia Member' });
    await drawer.getByText('Roles changed from member to member, editor').waitFor();
    await drawer.getByText(/^Account added, with member$/).waitFor();
    expect(await drawer.getByText(secretary.name).count()).toBe(1);
    await expectAccessible(page, 'the history drawer');
    await capture(page, `users-history-${db.name}`);
    await page.keyboard.press('Escape');

    // The member's own session, on its next page, has the drafts.
    page = await resume(memberSession);
    await page.goto(`${app.url}/notices`);
    await accountMenu(page, member).waitFor();
    await expect.poll(() => navigationLinks(page)).toContain('Drafts');
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: /^Drafts/ })
      .click();
    await page.getByRole('heading', { name: 'Drafts', level: 1 }).waitFor();
    app.expectQuiet();
  });

  it('an admin deactivates a user, whose session ends; they cannot sign in until reactivated', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const { secretary } = app.users;
    const leaving = await app.addPerson('member', 'Leo Leaving');
    if (!secretary) throw new Error('the club has a secretary');

    let page = await app.page();
    await signIn(page, app, leaving, '/notices');
    const leavingSession = await session();

    page = await app.page();
    await page.setViewportSize(PHONE);
    await signIn(page, app, secretary, '/users');
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    // On a phone the accounts are a list of cards, and nothing runs off the side.
    const card = page.getByRole('listitem').filter({ hasText: leaving.email });
    await card.getByRole('button', { name: `Deactivate Leo Leaving (${leaving.email})` }).click();
    const confirm = page.getByRole('dialog', { name: 'Deactivate Leo Leaving?' });
    await confirm.getByText(/signed out everywhere at once/).waitFor();
    await expectAccessible(page, 'the deactivation dialog on a phone');
    await confirm.getByRole('button', { name: 'Deactivate' }).click();
    await confirm.waitFor({ state: 'detached' });
    await card.getByText('Deactivated', { exact: true }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    // A manager is not offered to deactivate themselves.
    const own = page.getByRole('listitem').filter({ hasText: secretary.email });
    await own.getByText('(you)').waitFor();
    expect(await own.getByRole('button', { name: /^Deactivate/ }).count()).toBe(0);
    await expectAccessible(page, 'the Users screen on a phone');
    // The history fills a phone's screen, and nothing runs off its side.
    await card.getByRole('button', { name: `History of Leo Leaving (${leaving.email})` }).click();
    const drawer = page.getByRole('dialog', { name: 'History of Leo Leaving' });
    await drawer.getByText('Deactivated', { exact: true }).waitFor();
    await settle(page);
    const box = await drawer.boundingBox();
    expect(box).toMatchObject({ x: 0, width: PHONE.width });
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
    await capture(page, `users-phone-${db.name}`);

    // Their session has ended: the next page is a visitor's, and signing in is refused.
    page = await resume(leavingSession);
    await page.goto(`${app.url}/notices`);
    await page.getByRole('banner').getByRole('link', { name: 'Sign in' }).waitFor();
    expect(await accountMenu(page, leaving).count()).toBe(0);
    await page.goto(`${app.url}/sign-in`);
    await page.getByRole('textbox', { name: 'Email' }).fill(leaving.email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(leaving.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page
      .getByRole('alert')
      .getByText('This account is deactivated. Ask an administrator to reactivate it.')
      .waitFor();

    // Reactivated, they sign in again.
    page = await app.page();
    await signIn(page, app, secretary, '/users');
    const row = usersRow(page, leaving);
    await row.getByRole('button', { name: `Reactivate Leo Leaving (${leaving.email})` }).click();
    await page
      .getByRole('dialog', { name: 'Reactivate Leo Leaving?' })
      .getByRole('button', { name: 'Reactivate' })
      .click();
    await row.getByText('Active', { exact: true }).waitFor();
    page = await app.page();
    await signIn(page, app, leaving, '/notices');
    app.expectQuiet();
  });
});
