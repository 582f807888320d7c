import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_ONLY } from '../packages/server/test/databases.ts';
import {
  type App,
  accountMenu,
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
 * Two-factor sign-in, end to end, on a club whose secretary must use it
 * (packages/server/test/fixtures/two-factor-club.md): a member sets it up from the account menu
 * (QR code, confirming code, recovery codes), then signs in with a code (a wrong one refused
 * first) and with a recovery code; the secretary is held to the set-up page until it is on, then
 * resets the member's second factor on the Users screen. Codes are computed here from the secret
 * the page shows, with the same library an app would use (otpauth). The server's clock is moved
 * on by 30 s between codes instead of waiting: a code is accepted only once. Passkeys: the member
 * adds one with Chromium's virtual authenticator (CDP `WebAuthn.*`) and signs in with it alone;
 * the secretary removes it from the member's history on the Users screen.
 */

const CLUB = 'packages/server/test/fixtures/two-factor-club.md';

/** What an authenticator app shows for this secret at this time. */
function appCode(secret: string, at: number): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: at,
  });
}

// SQLite only: the browser drives the same calls on either database (two-factor.test.ts holds the server's side).
describe.each(SQLITE_ONLY)('two-factor sign-in on $name, in Chromium', (db) => {
  let app: App;
  let shift = 0;
  /** The secretary's two-factor secret, once they set it up (the second test). */
  let secretarySecret = '';
  const now = () => Date.now() + shift;
  /** The next 30-second step: the code of the one before was used. */
  const nextStep = () => {
    shift += 30_000;
  };

  beforeAll(async () => {
    app = await startApp(CLUB, { database: db, now });
  }, INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    if (app?.chromium) printAxeSummary(`two-factor on ${db.name}`);
    await app?.close();
  });

  /** Sets up two-factor sign-in on the open set-up page; answers the secret and the recovery codes. */
  const setUp = async (page: Page): Promise<{ secret: string; codes: string[] }> => {
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const qr = page.getByRole('img', { name: 'QR code to scan with your authenticator app' });
    await qr.waitFor();
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
    const secret = (await page.getByTestId('two-factor-secret').textContent()) ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await page.getByRole('textbox', { name: '2. Type the 6-digit code the app shows' }).fill(appCode(secret, now()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    const list = page.getByRole('list', { name: 'Recovery codes' });
    await list.waitFor();
    const codes = await list.getByRole('listitem').allTextContents();
    expect(codes).toHaveLength(10);
    return { secret, codes };
  };

  /** The password step of the sign-in page, up to where it asks for the code. */
  const password = async (page: Page, person: Person) => {
    await page.goto(`${app.url}/sign-in?next=%2Fnotices`);
    await page.getByRole('textbox', { name: 'Email' }).fill(person.email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(person.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Two-factor sign-in', level: 1 }).waitFor();
  };

  it('a member sets it up, then signs in with a code (a wrong one refused) and with a recovery code', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const member = app.users.member;
    if (!member) throw new Error('the club has a member');
    const page = await app.page();
    await signIn(page, app, member, '/notices');
    await accountMenu(page, member).click();
    await page.getByRole('menuitem', { name: 'Two-factor sign-in' }).click();
    await page.getByRole('heading', { name: 'Two-factor sign-in', level: 1 }).waitFor();
    expect(await page.title()).toBe('Two-factor sign-in · Club');
    const { secret, codes } = await setUp(page);
    await expectAccessible(page, 'the recovery codes');
    await page.getByRole('button', { name: 'I have saved these codes' }).click();
    await page.waitForURL((u) => u.pathname === '/');
    await signOut(page, member);

    // The password alone signs nobody in now: the page asks for the code.
    nextStep();
    await password(page, member);
    await expectAccessible(page, 'the code step');
    await page.getByRole('textbox', { name: 'Code' }).fill(appCode(secret, now() - 10 * 60_000));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('alert').getByText('The code is not right, or it was used already.').waitFor();
    expect(await accountMenu(page, member).count()).toBe(0);
    await page.getByRole('textbox', { name: 'Code' }).fill(appCode(secret, now()));
    await page.getByRole('button', { name: 'Verify' }).click();
    await accountMenu(page, member).waitFor();
    await page.waitForURL((u) => u.pathname === '/notices');
    await signOut(page, member);

    // A lost phone: one of the recovery codes, once.
    await password(page, member);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByRole('textbox', { name: 'Recovery code' }).fill(codes[0] ?? '');
    await page.getByRole('button', { name: 'Verify' }).click();
    await accountMenu(page, member).waitFor();
    await accountMenu(page, member).click();
    await page.getByRole('menuitem', { name: 'Two-factor sign-in' }).click();
    await page.getByText('Two-factor sign-in is on. You have 9 recovery codes left.').waitFor();
    app.expectQuiet();
  });

  it('holds the secretary to the set-up page until it is on, then they reset the member’s on the Users screen', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const { secretary, member } = app.users;
    if (!secretary || !member) throw new Error('the club has a secretary and a member');
    nextStep();
    const page = await app.page();
    await page.goto(`${app.url}/sign-in?next=%2Fusers`);
    await page.getByRole('textbox', { name: 'Email' }).fill(secretary.email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(secretary.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    // Sent to the set-up page, whatever page was asked for; nothing else in the navigation.
    await page.getByText('Your role requires two-factor sign-in.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/two-factor');
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').count()).toBe(0);
    await page.goto(`${app.url}/notices`);
    await page.getByText('Your role requires two-factor sign-in.').waitFor();
    secretarySecret = (await setUp(page)).secret;
    await page.getByRole('button', { name: 'I have saved these codes' }).click();
    await page.waitForURL((u) => u.pathname === '/notices');
    expect(await navigationLinks(page)).toContain('Users');

    await page.goto(`${app.url}/users`);
    const row = page.getByRole('row').filter({ hasText: member.email });
    await row.getByText('Two-factor', { exact: true }).waitFor();
    await row.getByRole('button', { name: `Reset two-factor sign-in of ${member.name} (${member.email})` }).click();
    const dialog = page.getByRole('dialog', { name: `Reset two-factor sign-in of ${member.name}?` });
    await expectAccessible(page, 'the reset dialog');
    await dialog.getByRole('button', { name: 'Reset two-factor' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row.getByText('Two-factor', { exact: true }).waitFor({ state: 'detached' });
    await row.getByRole('button', { name: `History of ${member.name} (${member.email})` }).click();
    await page.getByText('Two-factor sign-in reset').waitFor();

    // The member signs in with the password alone again.
    const theirs = await app.page();
    await signIn(theirs, app, member, '/notices');
    app.expectQuiet();
  });

  it('a member adds a passkey on the account page and signs in with it alone; the secretary removes it on the Users screen', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const member = app.users.member;
    if (!member) throw new Error('the club has a member');
    const page = await app.page();
    // Chromium's virtual authenticator, as a laptop's fingerprint reader: it holds discoverable
    // credentials and verifies its user (127.0.0.1 is a secure context, so WebAuthn runs).
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
      },
    });
    // WebAuthn takes a domain as the RP ID, never an IP address: the app is opened as localhost.
    const url = app.url.replace('127.0.0.1', 'localhost');
    await page.goto(`${url}/sign-in?next=%2Fnotices`);
    await page.getByRole('textbox', { name: 'Email' }).fill(member.email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(member.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await accountMenu(page, member).click();
    await page.getByRole('menuitem', { name: 'Two-factor sign-in' }).click();
    await page.getByRole('heading', { name: 'Passkeys', level: 2 }).waitFor();
    await page.getByRole('textbox', { name: 'Name' }).fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByRole('list', { name: 'Your passkeys' }).getByText('Test laptop').waitFor();
    await expectAccessible(page, 'the passkeys');
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    await signOut(page, member);

    await page.goto(`${url}/sign-in?next=%2Fnotices`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await accountMenu(page, member).waitFor();
    await page.waitForURL((u) => u.pathname === '/notices');
    const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(after.credentials[0]?.signCount).toBeGreaterThan(0);
    await signOut(page, member);

    // A lost laptop: the secretary removes the member's passkey from the member's history.
    const secretary = app.users.secretary;
    if (!secretary || secretarySecret === '') throw new Error('the secretary set up two-factor sign-in before');
    nextStep();
    await password(page, secretary);
    await page.getByRole('textbox', { name: 'Code' }).fill(appCode(secretarySecret, now()));
    await page.getByRole('button', { name: 'Verify' }).click();
    await accountMenu(page, secretary).waitFor();
    await page.goto(`${app.url}/users`);
    const row = page.getByRole('row').filter({ hasText: member.email });
    await row.getByRole('button', { name: `History of ${member.name} (${member.email})` }).click();
    await page.getByText('Passkey added').waitFor();
    await page.getByRole('button', { name: `Remove passkey Test laptop of ${member.name}` }).click();
    await page.getByText('Passkey removed').waitFor();

    // The passkey signs nobody in now (at localhost: the secretary's session is 127.0.0.1's cookie).
    await page.goto(`${url}/sign-in?next=%2Fnotices`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('alert').getByText('The passkey was not accepted.').waitFor();
    expect(await accountMenu(page, member).count()).toBe(0);
    await cdp.detach();
    app.expectQuiet();
  });
});
