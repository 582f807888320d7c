import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { DESK, modelOf } from '../../test/helpers.ts';
import { TEST_PASSWORD, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import { SecretSealer } from './secret-key.ts';
import { SECOND_STEP_MINUTES } from './two-factor.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are JSON, read by tests that know their shape.
type Json = any;

const ORIGIN = 'http://localhost:80';
const SECRET_KEY = 'a test key that is long enough to be used here';

/** The desk (admins must use a second factor and manage people; members may choose), with few tries, to reach the lockout. */
const DESK_LOCKING = `${DESK}
## 9. Business constants and limits
| name | value | meaning |
|---|---|---|
| SIGN_IN_ATTEMPTS_PER_15_MINUTES | 4 | wrong passwords or codes before a lockout |
`;

/** The code an authenticator app shows for a secret at a time: otpauth itself, as an app computes it. */
function appCode(secret: string, at: number): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: at,
  });
}

// Both databases: the two-factor tables are plain SQL through the one SqlRunner, but their
// statements (a code used once, a waiting sign-in ended once) are each database's to keep.
describe.each(TEST_DATABASES)('two-factor sign-in on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let clock = Date.UTC(2026, 10, 27, 12, 0, 0);
  const tick = (ms = 30_000) => {
    clock += ms;
  };

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({
      model: modelOf(DESK_LOCKING),
      ...fresh.options,
      logger: false,
      now: () => clock,
      secretKey: SECRET_KEY,
    });
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  /** A call with the cookies given (session, waiting sign-in), from the app's own origin. */
  const call = async (method: string, url: string, body?: unknown, cookies: Record<string, string> = {}) => {
    const cookie = Object.entries(cookies)
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
    const answer = await server.app.inject({
      method: method as 'GET',
      url,
      headers: {
        host: 'localhost:80',
        origin: ORIGIN,
        ...(cookie ? { cookie } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    const set = (name: string) => answer.cookies.find((c) => c.name === name && c.value !== '')?.value;
    return {
      status: answer.statusCode,
      body: (answer.body === '' ? {} : answer.json()) as Json,
      session: set('np_session'),
      pending: set('np_sign_in'),
    };
  };
  const signIn = (email: string, password = TEST_PASSWORD) => call('POST', '/api/auth/sign-in', { email, password });
  const asSession = (session: string) => (method: string, url: string, body?: unknown) =>
    call(method, url, body, { np_session: session });

  /** Signs in by password and turns two-factor on: the secret, the recovery codes and the session. */
  const enrolled = async (roles: string[], email: string) => {
    const { user } = await userWithToken(server, roles, email);
    const first = await signIn(email);
    expect(first.status).toBe(200);
    const as = asSession(first.session ?? '');
    const enrol = await as('POST', '/api/auth/two-factor/enrol');
    expect(enrol.status).toBe(200);
    const confirmed = await as('POST', '/api/auth/two-factor/confirm', { code: appCode(enrol.body.secret, clock) });
    expect(confirmed.status).toBe(200);
    tick();
    return { user, secret: enrol.body.secret as string, codes: confirmed.body.recoveryCodes as string[], as };
  };

  it('enrols with a QR code and a confirming code, and shows ten recovery codes once', async () => {
    await userWithToken(server, ['member'], 'mia@desk.example');
    const { session } = await signIn('mia@desk.example');
    const as = asSession(session ?? '');
    expect((await as('GET', '/api/auth/me')).body.twoFactor).toEqual({
      enabled: false,
      required: false,
      recoveryCodesLeft: 0,
    });
    const enrol = await as('POST', '/api/auth/two-factor/enrol');
    expect(enrol.status).toBe(200);
    expect(enrol.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(enrol.body.uri).toBe(
      `otpauth://totp/Desk:mia%40desk.example?issuer=Desk&secret=${enrol.body.secret}&algorithm=SHA1&digits=6&period=30`,
    );
    expect(Buffer.from(enrol.body.qr.replace('data:image/svg+xml;base64,', ''), 'base64').toString()).toMatch(
      /^<svg[^>]*>.*<\/svg>$/s,
    );
    // Not on before it is confirmed: the password alone still signs in.
    expect((await signIn('mia@desk.example')).status).toBe(200);
    const wrong = await as('POST', '/api/auth/two-factor/confirm', { code: '000000' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('TWO_FACTOR_FAILED');
    const confirmed = await as('POST', '/api/auth/two-factor/confirm', { code: appCode(enrol.body.secret, clock) });
    expect(confirmed.status).toBe(200);
    const codes: string[] = confirmed.body.recoveryCodes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[0-9a-z]{4}(-[0-9a-z]{4}){3}$/);
    expect((await as('GET', '/api/auth/me')).body.twoFactor).toEqual({
      enabled: true,
      required: false,
      recoveryCodesLeft: 10,
    });
    // Enrolling again would replace the factor behind the user's back: refused while it is on.
    expect((await as('POST', '/api/auth/two-factor/enrol')).body.code).toBe('TWO_FACTOR_ENABLED');
  });

  it('keeps the secret sealed with SECRET_KEY and the recovery codes as hashes only', async () => {
    const { user, secret, codes } = await enrolled(['member'], 'sealed@desk.example');
    const row = await server.store.sql.get<{ secret: string }>(
      'SELECT "secret" FROM "_ninepoint_two_factor" WHERE "user_id" = ?',
      [user.id],
    );
    expect(row?.secret.startsWith('v1.')).toBe(true);
    expect(row?.secret).not.toContain(secret);
    expect(new SecretSealer(SECRET_KEY).open(row?.secret ?? '')).toBe(secret);
    // A copy of the database without the key reads nothing.
    expect(new SecretSealer('another key, also long enough to be used').open(row?.secret ?? '')).toBeNull();
    expect(new SecretSealer(null).open(row?.secret ?? '')).toBeNull();
    const stored = await server.store.sql.all<{ code_hash: string }>(
      'SELECT "code_hash" FROM "_ninepoint_recovery_codes" WHERE "user_id" = ?',
      [user.id],
    );
    expect(stored).toHaveLength(10);
    const plain = codes.map((c) => c.replace(/-/g, ''));
    for (const { code_hash } of stored) expect(plain.some((c) => code_hash.includes(c))).toBe(false);
  });

  it('signs in in two steps: the password makes no session, a code from the app does, once', async () => {
    const { secret } = await enrolled(['member'], 'two.steps@desk.example');
    const first = await signIn('two.steps@desk.example');
    expect(first.status).toBe(202);
    expect(first.body).toEqual({
      secondStep: 'two-factor',
      expiresAt: new Date(clock + SECOND_STEP_MINUTES * 60_000).toISOString(),
    });
    expect(first.session).toBeUndefined();
    expect(first.pending).toMatch(/^npp_/);
    // Without the browser's cookie there is nothing to finish.
    const elsewhere = await call('POST', '/api/auth/sign-in/two-factor', { code: appCode(secret, clock) });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.body.code).toBe('TWO_FACTOR_EXPIRED');
    const pending = { np_sign_in: first.pending ?? '' };
    const wrong = await call('POST', '/api/auth/sign-in/two-factor', { code: '123456' }, pending);
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('TWO_FACTOR_FAILED');
    const code = appCode(secret, clock);
    const second = await call('POST', '/api/auth/sign-in/two-factor', { code: code.replace(/(...)/, '$1 ') }, pending);
    expect(second.status).toBe(200);
    expect(second.body.user.email).toBe('two.steps@desk.example');
    expect(second.session).toMatch(/^nps_/);
    expect((await asSession(second.session ?? '')('GET', '/api/auth/me')).body.user.email).toBe(
      'two.steps@desk.example',
    );
    // The waiting sign-in is used up, and the same code is refused at the next sign-in (replay).
    expect((await call('POST', '/api/auth/sign-in/two-factor', { code }, pending)).body.code).toBe(
      'TWO_FACTOR_EXPIRED',
    );
    const again = await signIn('two.steps@desk.example');
    const replay = await call('POST', '/api/auth/sign-in/two-factor', { code }, { np_sign_in: again.pending ?? '' });
    expect(replay.body.code).toBe('TWO_FACTOR_FAILED');
    // A code of the step before now is still taken (clocks drift); one older than that is not.
    tick(60_000);
    const late = await call(
      'POST',
      '/api/auth/sign-in/two-factor',
      { code: appCode(secret, clock - 60_000) },
      { np_sign_in: again.pending ?? '' },
    );
    expect(late.body.code).toBe('TWO_FACTOR_FAILED');
    const previous = await call(
      'POST',
      '/api/auth/sign-in/two-factor',
      { code: appCode(secret, clock - 30_000) },
      { np_sign_in: again.pending ?? '' },
    );
    expect(previous.status).toBe(200);
  });

  it('signs in with a recovery code once, and the account history says so', async () => {
    const { user, codes } = await enrolled(['member'], 'recovery@desk.example');
    const first = await signIn('recovery@desk.example');
    const code = codes[3] ?? '';
    const used = await call(
      'POST',
      '/api/auth/sign-in/two-factor',
      { recoveryCode: code.toUpperCase().replace(/-/g, ' ') },
      { np_sign_in: first.pending ?? '' },
    );
    expect(used.status).toBe(200);
    expect(used.session).toMatch(/^nps_/);
    const me = await asSession(used.session ?? '')('GET', '/api/auth/me');
    expect(me.body.twoFactor.recoveryCodesLeft).toBe(9);
    const again = await signIn('recovery@desk.example');
    const reused = await call(
      'POST',
      '/api/auth/sign-in/two-factor',
      { recoveryCode: code },
      { np_sign_in: again.pending ?? '' },
    );
    expect(reused.body.code).toBe('TWO_FACTOR_FAILED');
    const kinds = (await server.auth.users.history(user.id)).map((e) => e.kind);
    expect(kinds).toEqual(['created', 'two-factor-enabled', 'recovery-code-used']);
  });

  it('ends a waiting sign-in after its minutes, and locks the account after too many wrong codes', async () => {
    const { secret } = await enrolled(['member'], 'slow@desk.example');
    const first = await signIn('slow@desk.example');
    tick(SECOND_STEP_MINUTES * 60_000);
    const late = await call(
      'POST',
      '/api/auth/sign-in/two-factor',
      { code: appCode(secret, clock) },
      { np_sign_in: first.pending ?? '' },
    );
    expect(late.body.code).toBe('TWO_FACTOR_EXPIRED');
    const pending = { np_sign_in: (await signIn('slow@desk.example')).pending ?? '' };
    for (let i = 0; i < 4; i++) {
      expect((await call('POST', '/api/auth/sign-in/two-factor', { code: '000000' }, pending)).status).toBe(401);
    }
    // Past SIGN_IN_ATTEMPTS_PER_15_MINUTES even the right code is not looked at.
    const locked = await call('POST', '/api/auth/sign-in/two-factor', { code: appCode(secret, clock) }, pending);
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('SIGN_IN_LOCKED');
  });

  it('holds a user whose role requires two-factor to enrolment until they have set it up', async () => {
    const { user } = await userWithToken(server, ['admin'], 'ada@desk.example');
    const first = await signIn('ada@desk.example');
    expect(first.status).toBe(200);
    const as = asSession(first.session ?? '');
    const notes = await as('GET', '/api/memos');
    expect(notes.status).toBe(403);
    expect(notes.body.code).toBe('TWO_FACTOR_REQUIRED');
    // The refusal names the row of point 6 that requires it, as every refusal names its spec line.
    const row = modelOf(DESK_LOCKING).roles.find((r) => r.name === 'admin')?.span.line ?? 0;
    const written = { line: row, text: DESK_LOCKING.split('\n')[row - 1]?.trim() };
    expect(written.text).toContain('requires two-factor');
    expect(notes.body.spec).toEqual(written);
    expect((await as('POST', '/api/memos', { text: 'hello' })).body.code).toBe('TWO_FACTOR_REQUIRED');
    expect((await as('GET', '/api/users')).body.code).toBe('TWO_FACTOR_REQUIRED');
    const me = await as('GET', '/api/auth/me');
    expect(me.status).toBe(200);
    expect(me.body.twoFactor).toEqual({ enabled: false, required: true, recoveryCodesLeft: 0 });
    const enrol = await as('POST', '/api/auth/two-factor/enrol');
    const confirmed = await as('POST', '/api/auth/two-factor/confirm', { code: appCode(enrol.body.secret, clock) });
    expect(confirmed.status).toBe(200);
    const after = await as('GET', '/api/memos');
    expect(after.body).toMatchObject({ items: [] });
    expect(after.status).toBe(200);
    // Required: they cannot turn it off themselves.
    const off = await as('POST', '/api/auth/two-factor/disable', { password: TEST_PASSWORD });
    expect(off.status).toBe(403);
    expect(off.body.code).toBe('TWO_FACTOR_REQUIRED');
    expect(off.body.spec).toEqual(written);
    expect((await server.auth.users.history(user.id)).map((e) => e.kind)).toContain('two-factor-enabled');
  });

  it('turns off with the password or a current code, never with a wrong one', async () => {
    const { secret, as } = await enrolled(['member'], 'off@desk.example');
    const wrong = await as('POST', '/api/auth/two-factor/disable', { password: 'not the password at all' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('SIGN_IN_FAILED');
    expect((await as('POST', '/api/auth/two-factor/disable', { code: '999999' })).body.code).toBe('TWO_FACTOR_FAILED');
    const off = await as('POST', '/api/auth/two-factor/disable', { code: appCode(secret, clock) });
    expect(off.status).toBe(204);
    expect((await signIn('off@desk.example')).status).toBe(200);
  });

  it('lets those who manage people reset a user’s second factor, recorded in the history', async () => {
    const { as: asAdmin, user: admin } = await enrolled(['admin'], 'boss@desk.example');
    const { user, as: asMember } = await enrolled(['member'], 'lost.phone@desk.example');
    expect((await signIn('lost.phone@desk.example')).status).toBe(202);
    const listed = async () =>
      (await asAdmin('GET', '/api/users?q=lost.phone')).body.items.map((a: Json) => a.twoFactor);
    expect(await listed()).toEqual([true]);
    const refused = await asMember('DELETE', `/api/users/${admin.id}/two-factor`);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('FORBIDDEN');
    expect((await asAdmin('DELETE', `/api/users/${user.id}/two-factor`)).status).toBe(204);
    expect((await signIn('lost.phone@desk.example')).status).toBe(200);
    expect(await listed()).toEqual([false]);
    const history = await asAdmin('GET', `/api/users/${user.id}/history`);
    const reset = history.body.items.find((e: Json) => e.kind === 'two-factor-reset');
    expect(reset.by).toEqual({ id: admin.id, name: 'boss' });
    // Resetting again changes nothing and records nothing.
    expect((await asAdmin('DELETE', `/api/users/${user.id}/two-factor`)).status).toBe(204);
    const after = await asAdmin('GET', `/api/users/${user.id}/history`);
    expect(after.body.items.filter((e: Json) => e.kind === 'two-factor-reset')).toHaveLength(1);
    expect((await asAdmin('DELETE', '/api/users/0190a000-0000-7000-8000-000000000000/two-factor')).status).toBe(404);
  });

  it('is set up from a browser session, not with an API token', async () => {
    const { authorization } = await userWithToken(server, ['member'], 'robot@desk.example');
    const answer = await server.app.inject({
      method: 'POST',
      url: '/api/auth/two-factor/enrol',
      headers: { authorization },
    });
    expect(answer.statusCode).toBe(403);
  });
});
