import { readFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { addUser, assignableRoles, createServer, type NinepointServer, oidcSettingsFromEnv } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../packages/server/test/helpers.ts';
import { startTestProvider, type TestProvider } from '../packages/server/test/oidc-provider.ts';
import { expectAccessible, INSTALL_TIMEOUT_MS, PASSWORD, printAxeSummary } from './app.ts';
import { type Chromium, ensureChromium, launchChromium, screenshot } from './browser.ts';

/**
 * Single sign-on, end to end: the lending desk served with a real OpenID Connect provider (panva's
 * oidc-provider, its development sign-in pages) on another port of 127.0.0.1. A member clicks
 * "Sign in with Library SSO", signs in at the provider, agrees, and is back in the app, signed in;
 * someone without an account is sent back with a reason.
 */

let provider: TestProvider;
let server: NinepointServer;
let url = '';
let chromium: Chromium | null = null;
let unavailable = '';
const temp = tempDir();

/** A port nobody listens on now, for the app: the provider must know its callback before it starts. */
async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  provider = await startTestProvider(`${url}/api/auth/oidc/callback`);
  const source = readFileSync(new URL('../examples/lending-desk.md', import.meta.url), 'utf8');
  const { model } = checkSpec(source);
  const oidc = oidcSettingsFromEnv(
    {
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_NAME: 'Library SSO',
    },
    url,
  );
  server = await createServer({ model, dbPath: temp.dbPath, logger: false, oidc });
  await server.listen({ port, host: '127.0.0.1' });
  await addUser(
    server.auth,
    { email: 'mina@library.example', name: 'Mina Member', roles: ['member'], password: PASSWORD },
    assignableRoles(model),
  );
  provider.accounts.set('mina', { email: 'mina@library.example', email_verified: true, name: 'Mina' });
  provider.accounts.set('stranger', { email: 'stranger@elsewhere.example', email_verified: true, name: 'S' });
  const status = await ensureChromium();
  if (status.ok) chromium = await launchChromium();
  else unavailable = status.reason;
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (chromium) printAxeSummary('single sign-on');
  await chromium?.close();
  await server?.close();
  await provider?.close();
  temp.remove();
});

/** At the provider's development pages: any password signs in as the login; then agree. */
async function atProvider(page: import('playwright-core').Page, login: string): Promise<void> {
  await page.waitForURL((at) => at.origin === provider.issuer);
  await page.getByPlaceholder('Enter any login').fill(login);
  await page.getByPlaceholder('and password').fill('anything');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

describe('single sign-on in Chromium', () => {
  it('signs a member in through the provider and brings them back where they were going', async (ctx) => {
    if (!chromium) return ctx.skip(unavailable);
    const page = await chromium.newPage();
    // The provider's development pages import a web font: nothing may leave this machine.
    await page.route(
      (at) => !at.href.startsWith('http://127.0.0.1'),
      (route) => route.abort(),
    );
    await page.goto(`${url}/sign-in?next=/books`);
    const button = page.getByRole('link', { name: 'Sign in with Library SSO' });
    await button.waitFor();
    await expectAccessible(page, 'the sign-in page with single sign-on');
    await button.click();
    await atProvider(page, 'mina');
    await page.waitForURL(`${url}/books`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.getByRole('banner').getByRole('button', { name: 'Account of Mina Member' }).waitFor();
    await screenshot(page, 'single-sign-on-signed-in');

    // Someone the app has no account for is sent back to sign in, told why.
    await page.getByRole('banner').getByRole('button', { name: 'Account of Mina Member' }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.getByRole('banner').getByRole('link', { name: 'Sign in' }).click();
    // The provider remembers Mina: forget its session, as another person's browser would not have it.
    await chromium.context.clearCookies();
    await page.getByRole('link', { name: 'Sign in with Library SSO' }).click();
    await atProvider(page, 'stranger');
    await page.waitForURL(`${url}/sign-in?sso=no-account`);
    const alert = page.getByRole('alert');
    expect(await alert.textContent()).toContain('There is no account for your email address here');
    await expectAccessible(page, 'the sign-in page after a refused single sign-on');
  });
});
