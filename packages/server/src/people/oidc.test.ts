import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { startTestProvider, type TestProvider } from '../../test/oidc-provider.ts';
import { userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import { changeAccount } from './accounts.ts';
import { oidcSettingsFromEnv } from './oidc-settings.ts';
import { SecretSealer } from './secret-key.ts';
import { newTotpSecret, totpCode } from './totp.ts';

const CLUB = `# Specification: Club

## 1. What the product does and for whom
A club's members and its secretary.

## 3. Entities and their fields
### Notice
| field | type | rules |
|---|---|---|
| text | text | required |

## 6. Roles and permissions
| role      | Notice | joins                  |
|-----------|--------|------------------------|
| secretary | all    | -                      |
| member    | read   | sign up (club.example) |
`;

const APP_URL = 'http://club.test';
const CALLBACK = `${APP_URL}/api/auth/oidc/callback`;

// On PostgreSQL too: the only suite of the OIDC store (identities, ON CONFLICT) on each database.
describe.each(TEST_DATABASES)('sign-in with an OpenID Connect provider, on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let provider: TestProvider;

  beforeAll(async () => {
    provider = await startTestProvider(CALLBACK);
    fresh = await db.fresh();
    const oidc = oidcSettingsFromEnv(
      {
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_CLIENT_SECRET: provider.clientSecret,
        OIDC_NAME: 'Club SSO',
      },
      APP_URL,
    );
    server = await createServer({ model: modelOf(CLUB), ...fresh.options, logger: false, oidc });
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
    await provider.close();
  });

  /** Starts at the app, signs in at the provider as `login`, and comes back: the app's last answer. */
  async function signInWithProvider(login: string, next = '/notices') {
    const started = await server.app.inject({
      method: 'GET',
      url: `/api/auth/oidc/start?next=${encodeURIComponent(next)}`,
    });
    expect(started.statusCode).toBe(303);
    const cookie = started.cookies.find((c) => c.name === 'np_oidc');
    expect(cookie?.httpOnly).toBe(true);
    const back = await provider.signInAt(String(started.headers.location), login);
    const finished = await server.app.inject({
      method: 'GET',
      url: `${back.pathname}${back.search}`,
      cookies: { np_oidc: cookie?.value ?? '' },
    });
    return { finished, back, pending: cookie?.value ?? '' };
  }

  async function me(finished: { cookies: { name: string; value: string }[] }) {
    const session = finished.cookies.find((c) => c.name === 'np_session' && c.value !== '');
    if (!session) return null;
    const answer = await server.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      cookies: { np_session: session.value },
    });
    return (answer.json() as { user: { email: string; roles: string[]; name: string } | null }).user;
  }

  it('says on /api/auth/me that single sign-on is there, and what its button says', async () => {
    const answer = await server.app.inject({ method: 'GET', url: '/api/auth/me' });
    expect(answer.json()).toMatchObject({ singleSignOn: { name: 'Club SSO', start: '/api/auth/oidc/start' } });
  });

  it('signs in the user with the verified email, and keeps them linked when the email changes', async () => {
    const { user } = await userWithToken(server, ['secretary'], 'sec@elsewhere.example');
    provider.accounts.set('sec-1', { email: 'SEC@elsewhere.example', email_verified: true, name: 'Sec' });
    const first = await signInWithProvider('sec-1');
    expect(first.finished.statusCode).toBe(303);
    expect(first.finished.headers.location).toBe('/notices');
    expect(await me(first.finished)).toMatchObject({ email: user.email, roles: ['secretary'] });

    provider.accounts.set('sec-1', { email: 'secretary@new.example', email_verified: true, name: 'Sec' });
    const again = await signInWithProvider('sec-1');
    expect(await me(again.finished)).toMatchObject({ email: user.email });
  });

  it('asks a user whose two-factor sign-in is on for a code after the provider, as after a password', async () => {
    const { user } = await userWithToken(server, ['member'], 'two.factor@elsewhere.example');
    const secret = newTotpSecret();
    await server.auth.twoFactor.begin(user.id, new SecretSealer(null).seal(secret), Date.now());
    await server.auth.twoFactor.confirm(user.id, 0, [], Date.now());
    provider.accounts.set('tf-1', { email: 'two.factor@elsewhere.example', email_verified: true, name: 'Tf' });
    const { finished } = await signInWithProvider('tf-1');
    expect(finished.statusCode).toBe(303);
    expect(finished.headers.location).toBe('/sign-in?step=two-factor&next=%2Fnotices');
    expect(await me(finished)).toBeNull();
    const pending = finished.cookies.find((c) => c.name === 'np_sign_in')?.value ?? '';
    expect(pending).toMatch(/^npp_/);
    const second = await server.app.inject({
      method: 'POST',
      url: '/api/auth/sign-in/two-factor',
      cookies: { np_sign_in: pending },
      payload: { code: totpCode(secret, Date.now()) },
    });
    expect(second.statusCode).toBe(200);
    expect(await me(second)).toMatchObject({ email: 'two.factor@elsewhere.example' });
  });

  it('makes an account with the role point 6 lets people at that domain sign up to', async () => {
    provider.accounts.set('ada', { email: 'ada@club.example', email_verified: true, name: 'Ada Lovelace' });
    const { finished } = await signInWithProvider('ada');
    expect(await me(finished)).toMatchObject({ email: 'ada@club.example', name: 'Ada Lovelace', roles: ['member'] });
  });

  it('sends anyone else back to the sign-in page with the reason, signed out', async () => {
    provider.accounts.set('eve', { email: 'eve@elsewhere.example', email_verified: true, name: 'Eve' });
    const stranger = await signInWithProvider('eve');
    expect(stranger.finished.headers.location).toBe('/sign-in?sso=no-account');
    expect(await me(stranger.finished)).toBeNull();

    provider.accounts.set('mallory', { email: 'sec@elsewhere.example', email_verified: false, name: 'Mallory' });
    const unverified = await signInWithProvider('mallory');
    expect(unverified.finished.headers.location).toBe('/sign-in?sso=unverified');
    expect(await me(unverified.finished)).toBeNull();
  });

  it('refuses a deactivated account, linked or found by its email, and keeps an account it made in the history', async () => {
    const { user } = await userWithToken(server, ['member'], 'dee@club.example');
    await changeAccount(server.auth, user.id, { active: false }, { by: null, knownRoles: [], manages: () => true });
    provider.accounts.set('dee', { email: 'dee@club.example', email_verified: true, name: 'Dee' });
    const byEmail = await signInWithProvider('dee');
    expect(byEmail.finished.headers.location).toBe('/sign-in?sso=deactivated');
    expect(await me(byEmail.finished)).toBeNull();
    // Now linked: refused the same way.
    const linked = await signInWithProvider('dee');
    expect(linked.finished.headers.location).toBe('/sign-in?sso=deactivated');
    await changeAccount(server.auth, user.id, { active: true }, { by: null, knownRoles: [], manages: () => true });
    expect(await me((await signInWithProvider('dee')).finished)).toMatchObject({ email: 'dee@club.example' });

    provider.accounts.set('sid', { email: 'sid@club.example', email_verified: true, name: 'Sid' });
    await signInWithProvider('sid');
    const made = await server.auth.users.byEmail('sid@club.example');
    const history = await server.auth.users.history(made?.id ?? '');
    expect(history).toMatchObject([{ kind: 'created', how: 'single-sign-on', roles: ['member'], by: made?.id }]);
  });

  it('finishes a sign-in once: the same callback again is refused', async () => {
    provider.accounts.set('bob', { email: 'bob@club.example', email_verified: true, name: 'Bob' });
    const { back, pending } = await signInWithProvider('bob');
    const replay = await server.app.inject({
      method: 'GET',
      url: `${back.pathname}${back.search}`,
      cookies: { np_oidc: pending },
    });
    expect(replay.headers.location).toBe('/sign-in?sso=expired');
    const forged = await server.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(forged.headers.location).toBe('/sign-in?sso=expired');
  });

  it('never sends a person to another site after signing in', async () => {
    provider.accounts.set('cy', { email: 'cy@club.example', email_verified: true, name: 'Cy' });
    const { finished } = await signInWithProvider('cy', '//evil.example/steal');
    expect(finished.headers.location).toBe('/');
  });
});

describe('single sign-on settings', () => {
  it('refuses a provider over plain http elsewhere than this machine, and needs APP_URL', () => {
    expect(() =>
      oidcSettingsFromEnv({ OIDC_ISSUER: 'http://sso.example.org', OIDC_CLIENT_ID: 'x' }, 'https://app.example'),
    ).toThrow(/https/);
    expect(() => oidcSettingsFromEnv({ OIDC_ISSUER: 'https://sso.example.org', OIDC_CLIENT_ID: 'x' }, null)).toThrow(
      /APP_URL is required/,
    );
    expect(() => oidcSettingsFromEnv({ OIDC_CLIENT_ID: 'x' }, null)).toThrow(/without OIDC_ISSUER/);
    expect(oidcSettingsFromEnv({}, null)).toBeNull();
    expect(
      oidcSettingsFromEnv({ OIDC_ISSUER: 'https://sso.example.org', OIDC_CLIENT_ID: 'x' }, 'https://app.example'),
    ).toMatchObject({
      redirectUri: 'https://app.example/api/auth/oidc/callback',
      name: 'single sign-on',
      clientSecret: null,
    });
  });

  it('answers a clear reason when the provider cannot be reached', async () => {
    const oidc = oidcSettingsFromEnv({ OIDC_ISSUER: 'http://127.0.0.1:9', OIDC_CLIENT_ID: 'x' }, APP_URL);
    const db = TEST_DATABASES[0];
    if (!db) throw new Error('no database');
    const fresh = await db.fresh();
    const server = await createServer({ model: modelOf(CLUB), ...fresh.options, logger: false, oidc });
    try {
      const answer = await server.app.inject({ method: 'GET', url: '/api/auth/oidc/start' });
      expect(answer.headers.location).toBe('/sign-in?sso=unavailable');
    } finally {
      await server.close();
      await fresh.remove();
    }
  });
});
