import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_DATABASES } from '../../test/databases.ts';
import { insertRowBefore, LENDING_DESK_DERIVED, modelOf } from '../../test/helpers.ts';
import { type CaughtMail, resetLink, type SmtpCatcher, startSmtpCatcher } from '../../test/smtp-catcher.ts';
import { TEST_PASSWORD, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import { webAppDirectory } from '../http/web-app.ts';
import { mailSettingsFromEnv } from '../mail/mail-settings.ts';
import { smtpMailer } from '../mail/mailer.ts';
import { USERS_TABLE } from '../store/users-table.ts';
import { changeAccount } from './accounts.ts';
import { demoEmail } from './dev-mode.ts';
import { PASSWORD_RESET_LIMITS } from './password-reset.ts';
import { PASSWORD_RESET_ACCEPTED } from './people-schemas.ts';
import { PASSWORD_RESETS_TABLE } from './resets-store.ts';
import { SESSIONS_TABLE } from './sessions-store.ts';

const MINUTE = 60_000;
const RESET_MINUTES = 30;
const HOST = 'app.example:3000';
const ORIGIN = `http://${HOST}`;
/** Where links in mails point: never the Host a request names. */
const APP_URL = 'https://desk.example.org';
const NEW_PASSWORD = 'a brand new password, long enough';

const SPEC = insertRowBefore(
  LENDING_DESK_DERIVED,
  ['MAX_LOANS'],
  `| PASSWORD_RESET_MINUTES | ${RESET_MINUTES} | a reset link works this long |`,
);

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: Json;
  text: string;
  ms: number;
}

let addressCounter = 0;
/** An address no other call has used: its counters start at zero. */
const freshIp = () => `10.9.${(++addressCounter >> 8) & 255}.${addressCounter & 255}`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let smtp: SmtpCatcher;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
});
afterAll(async () => {
  await smtp?.close();
});

// On PostgreSQL too: reset links are used once by an UPDATE … RETURNING that each database runs.
describe.each(TEST_DATABASES)('password reset by email on $name', (db) => {
  let server: NinepointServer;
  let remove: () => Promise<void>;
  /** Moved by the tests: ten minutes into an hour, so the hourly limits have room. */
  const clock = { now: Math.floor(Date.now() / 3_600_000) * 3_600_000 + 10 * MINUTE };

  beforeAll(async () => {
    const fresh = await db.fresh();
    remove = fresh.remove;
    // Configured as `ninepoint serve` is, from its environment: the catcher is a real SMTP server with a login.
    const settings = mailSettingsFromEnv({ SMTP_URL: smtp.url, MAIL_FROM: 'Desk <desk@example.org>', APP_URL });
    const { smtp: smtpSettings, from } = settings;
    if (!smtpSettings || !from) throw new Error('the SMTP settings did not parse');
    server = await createServer({
      model: modelOf(SPEC),
      ...fresh.options,
      logger: false,
      now: () => clock.now,
      mail: { mailer: smtpMailer(smtpSettings, from), appUrl: () => APP_URL },
    });
  });
  afterAll(async () => {
    await server?.close();
    await remove?.();
  });

  const call = async (
    method: string,
    url: string,
    ask: { body?: unknown; ip?: string; origin?: string; cookie?: string; authorization?: string } = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = { host: HOST };
    if (ask.origin !== undefined) headers.origin = ask.origin;
    if (ask.cookie !== undefined) headers.cookie = `np_session=${ask.cookie}`;
    if (ask.authorization !== undefined) headers.authorization = ask.authorization;
    if (ask.body !== undefined) headers['content-type'] = 'application/json';
    const started = performance.now();
    const response = await server.app.inject({
      method: method as 'GET',
      url,
      headers,
      remoteAddress: ask.ip ?? freshIp(),
      ...(ask.body !== undefined ? { payload: JSON.stringify(ask.body) } : {}),
    });
    const ms = performance.now() - started;
    if (response.statusCode >= 400) {
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(server.compiled.catalogue.status((response.json() as { code: string }).code)).toBe(response.statusCode);
    }
    const isJson = String(response.headers['content-type'] ?? '').includes('json');
    return {
      status: response.statusCode,
      headers: response.headers,
      body: isJson && response.body !== '' ? (response.json() as Json) : {},
      text: response.body,
      ms,
    };
  };
  const ask = (email: string, ip?: string) =>
    call('POST', '/api/auth/password-reset', { origin: ORIGIN, body: { email }, ...(ip ? { ip } : {}) });
  const confirm = (token: string, password = NEW_PASSWORD) =>
    call('POST', '/api/auth/password-reset/confirm', { origin: ORIGIN, body: { token, password } });
  const signIn = (email: string, password: string) =>
    call('POST', '/api/auth/sign-in', { origin: ORIGIN, body: { email, password } });
  const session = async (email: string, password = TEST_PASSWORD) => {
    const answer = await signIn(email, password);
    expect(answer.status).toBe(200);
    const cookie = String(answer.headers['set-cookie']);
    return /np_session=([^;]+)/.exec(cookie)?.[1] ?? '';
  };
  const whoIs = async (cookie: string) => (await call('GET', '/api/auth/me', { cookie })).body.user;
  const sessionsOf = async (userId: string) =>
    (await server.store.sql.all(`SELECT "id_hash" FROM "${SESSIONS_TABLE}" WHERE "user_id" = ?`, [userId])).length;
  /** Asks for a link for `email` and answers the token of the mail that brings it. */
  const linkFor = async (email: string): Promise<{ mail: CaughtMail; link: URL; token: string }> => {
    const answer = await ask(email);
    expect(answer.status).toBe(202);
    const mail = await smtp.next(email);
    const link = resetLink(mail);
    return { mail, link, token: link.searchParams.get('token') ?? '' };
  };

  it('mails a link to the APP_URL page that sets a new password once, ending every session of the user', async () => {
    const { user, authorization } = await userWithToken(server);
    const first = await session(user.email);
    const second = await session(user.email);
    expect(await sessionsOf(user.id)).toBe(2);

    const answer = await ask(` ${user.email.toUpperCase()} `);
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual(PASSWORD_RESET_ACCEPTED);
    const mail = await smtp.next(user.email);
    expect(mail.to).toEqual([user.email]);
    expect(mail.from).toBe('Desk <desk@example.org>');
    expect(mail.subject).toBe('Reset your password for Lending desk');
    expect(mail.text).toContain(`Hello ${user.name},`);
    expect(mail.text).toContain('within 30 minutes');
    const link = resetLink(mail);
    expect(link.origin).toBe(APP_URL);
    expect(link.pathname).toBe('/reset-password');
    const token = link.searchParams.get('token') ?? '';
    expect(token).toMatch(/^npr_[A-Za-z0-9_-]{43}$/);

    // Only the SHA-256 of the link's secret is stored, with whose it is and until when.
    const stored = await server.store.sql.all<Json>(`SELECT * FROM "${PASSWORD_RESETS_TABLE}" WHERE "user_id" = ?`, [
      user.id,
    ]);
    expect(stored).toEqual([
      {
        token_hash: sha256(token),
        user_id: user.id,
        created_at: clock.now,
        expires_at: clock.now + RESET_MINUTES * MINUTE,
        used_at: null,
      },
    ]);

    // Following the link opens the web app's page (when it is built), which posts the token.
    const page = await call('GET', `${link.pathname}${link.search}`);
    expect(page.status).toBe(webAppDirectory() ? 200 : 404);
    const done = await confirm(token);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ email: user.email });

    expect(await sessionsOf(user.id)).toBe(0);
    expect(await whoIs(first)).toBeNull();
    expect(await whoIs(second)).toBeNull();
    expect((await signIn(user.email, TEST_PASSWORD)).body.code).toBe('SIGN_IN_FAILED');
    expect((await signIn(user.email, NEW_PASSWORD)).status).toBe(200);
    // API tokens are kept: they are made on the server's terminal, not with the password.
    expect((await call('GET', '/api/auth/me', { authorization })).body.user).toMatchObject({ id: user.id });

    const [row] = await server.store.sql.all<{ password_hash: string }>(
      `SELECT "password_hash" FROM "${USERS_TABLE}" WHERE "id" = ?`,
      [user.id],
    );
    expect(row?.password_hash).toMatch(/^\$argon2id\$/);
  });

  it('refuses a second use of the same link with RESET_LINK_INVALID, and the password stays', async () => {
    const { user } = await userWithToken(server);
    const { token } = await linkFor(user.email);
    expect((await confirm(token)).status).toBe(200);
    const again = await confirm(token, 'another password, used second');
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('RESET_LINK_INVALID');
    expect(again.body.detail).toBe('This reset link was used already or has expired. Ask for a new one.');
    expect((await signIn(user.email, 'another password, used second')).body.code).toBe('SIGN_IN_FAILED');
    expect((await signIn(user.email, NEW_PASSWORD)).status).toBe(200);
  });

  it('refuses a link PASSWORD_RESET_MINUTES after it was sent, and takes one a minute before', async () => {
    const { user } = await userWithToken(server);
    const started = clock.now;
    try {
      const late = await linkFor(user.email);
      const inTime = await linkFor(user.email);
      clock.now = started + (RESET_MINUTES - 1) * MINUTE;
      expect((await confirm(inTime.token)).status).toBe(200);
      // A used link ends the others of the user too; a fresh one shows expiry on its own.
      clock.now = started;
      const expiring = await linkFor(user.email);
      clock.now = started + RESET_MINUTES * MINUTE;
      const refused = await confirm(expiring.token, 'too late for this password');
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('RESET_LINK_INVALID');
      expect((await confirm(late.token, 'too late for this password')).body.code).toBe('RESET_LINK_INVALID');
      expect((await signIn(user.email, NEW_PASSWORD)).status).toBe(200);
    } finally {
      clock.now = started;
    }
  });

  it('ends the other links of the user when one is used', async () => {
    const { user } = await userWithToken(server);
    const one = await linkFor(user.email);
    const two = await linkFor(user.email);
    expect((await confirm(two.token)).status).toBe(200);
    expect((await confirm(one.token, 'the older link is dead')).body.code).toBe('RESET_LINK_INVALID');
  });

  it('answers an unknown email exactly as a known one, before looking either up, and mails nobody', async () => {
    const { user } = await userWithToken(server);
    const unknown = 'nobody.here@example.test';
    const known = await ask(user.email);
    const missing = await ask(unknown);
    expect(missing.status).toBe(known.status);
    expect(missing.text).toBe(known.text);
    const { date: _d1, 'x-request-id': _r1, ...knownHeaders } = known.headers;
    const { date: _d2, 'x-request-id': _r2, ...missingHeaders } = missing.headers;
    expect(missingHeaders).toEqual(knownHeaders);
    await smtp.next(user.email);
    expect(await smtp.arrives(unknown, 300)).toBe(false);

    // The answer goes before the account is looked up, so its timing cannot depend on it.
    const other = await userWithToken(server);
    const lookups = vi.spyOn(server.auth.users, 'activeByEmail');
    try {
      expect((await ask(other.user.email)).status).toBe(202);
      expect(lookups).not.toHaveBeenCalled();
      await smtp.next(other.user.email);
      expect(lookups).toHaveBeenCalledTimes(1);
    } finally {
      lookups.mockRestore();
    }

    // Measured (logged, not asserted: the machine's load decides the noise).
    const times = { known: [] as number[], unknown: [] as number[] };
    for (let i = 0; i < 5; i++) {
      const next = await userWithToken(server);
      times.unknown.push((await ask(`nobody${i}@example.test`)).ms);
      times.known.push((await ask(next.user.email)).ms);
      await smtp.next(next.user.email);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[2] ?? 0;
    console.log(
      `password reset answer on ${db.name}: known ${median(times.known).toFixed(1)} ms, unknown ${median(times.unknown).toFixed(1)} ms (median of 5)`,
    );
  });

  it('treats a malformed token, and a session id, as an unknown link', async () => {
    const { user } = await userWithToken(server);
    const cookie = await session(user.email);
    for (const token of ['nope', `npr_${'A'.repeat(43)}`, cookie, "npr_' OR 1=1 --"]) {
      const answer = await confirm(token);
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe('RESET_LINK_INVALID');
    }
  });

  it('refuses a new password shorter than the policy at the password field, leaving the link usable', async () => {
    const { user } = await userWithToken(server);
    const { token } = await linkFor(user.email);
    const weak = await confirm(token, 'short');
    expect(weak.status).toBe(422);
    expect(weak.body.code).toBe('VALIDATION_FAILED');
    expect(weak.body.errors).toEqual([
      { field: 'password', code: 'TOO_SHORT', message: 'password must be at least 10 characters long.' },
    ]);
    expect((await confirm(token)).status).toBe(200);
  });

  it('sets a password once when the same link is sent twice at the same moment', async () => {
    const { user } = await userWithToken(server);
    const { token } = await linkFor(user.email);
    const answers = await Promise.all([
      confirm(token, 'first of two passwords'),
      confirm(token, 'second of two passwords'),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    const won = answers[0]?.status === 200 ? 'first of two passwords' : 'second of two passwords';
    const lost = won.startsWith('first') ? 'second of two passwords' : 'first of two passwords';
    expect((await signIn(user.email, won)).status).toBe(200);
    expect((await signIn(user.email, lost)).body.code).toBe('SIGN_IN_FAILED');
  });

  it(`limits asking to ${PASSWORD_RESET_LIMITS.perEmail} an hour per email, known or not, and ${PASSWORD_RESET_LIMITS.perAddress} per address`, async () => {
    const { user } = await userWithToken(server);
    const { perEmail, perAddress } = PASSWORD_RESET_LIMITS;
    for (const email of [user.email, 'nobody.limited@example.test']) {
      for (let i = 0; i < perEmail; i++) expect((await ask(email)).status).toBe(202);
      const limited = await ask(email);
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe('RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBe(50 * 60);
      expect(limited.body.detail).toBe(
        'Too many password reset requests for this email address or from your address. Try again in 50 minutes.',
      );
    }
    for (let i = 0; i < perEmail; i++) await smtp.next(user.email);
    expect(await smtp.arrives(user.email, 300)).toBe(false);

    const ip = freshIp();
    for (let i = 0; i < perAddress; i++) expect((await ask(`someone${i}@example.test`, ip)).status).toBe(202);
    expect((await ask('someone.else@example.test', ip)).body.code).toBe('RATE_LIMITED');
    expect((await ask('someone.else@example.test')).status).toBe(202);

    // The next hour starts afresh.
    const started = clock.now;
    try {
      clock.now = started + 60 * MINUTE;
      expect((await ask(user.email)).status).toBe(202);
      await smtp.next(user.email);
    } finally {
      clock.now = started;
    }
  });

  it('refuses a reset asked from another site’s page, and a body that is not an email', async () => {
    const { user } = await userWithToken(server);
    const evil = await call('POST', '/api/auth/password-reset', {
      origin: 'https://evil.example',
      body: { email: user.email },
    });
    expect(evil.status).toBe(403);
    expect(evil.body.code).toBe('FORBIDDEN');
    const notEmail = await ask('not an email');
    expect(notEmail.status).toBe(400);
    expect(notEmail.body.code).toBe('INVALID_PAYLOAD');
    const extra = await call('POST', '/api/auth/password-reset', { origin: ORIGIN, body: { email: user.email, x: 1 } });
    expect(extra.body.code).toBe('INVALID_PAYLOAD');
    expect(await smtp.arrives(user.email, 200)).toBe(false);
  });

  it('sends no link to a dev-mode demo user', async () => {
    const email = demoEmail('staff');
    await server.auth.users.add({
      id: '0190f3c4-7a2b-7c3d-8e4f-000000000001',
      email,
      name: 'Demo staff',
      roles: ['staff'],
      passwordHash: 'unusable',
      createdAt: new Date().toISOString(),
    });
    expect((await ask(email)).status).toBe(202);
    expect(await smtp.arrives(email, 300)).toBe(false);
  });

  it('sends no link to a deactivated account, and a link asked for before no longer works', async () => {
    const { user } = await userWithToken(server);
    const before = await linkFor(user.email);
    await changeAccount(server.auth, user.id, { active: false }, { by: null, knownRoles: [], manages: () => true });
    const known = await ask(user.email);
    expect(known.status).toBe(202);
    expect(await smtp.arrives(user.email, 300)).toBe(false);
    expect((await confirm(before.token)).body.code).toBe('RESET_LINK_INVALID');
  });

  it('keeps a reset in the account’s history, as the user’s own doing', async () => {
    const { user } = await userWithToken(server);
    const { token } = await linkFor(user.email);
    expect((await confirm(token)).status).toBe(200);
    const history = await server.auth.users.history(user.id);
    expect(history.map(({ kind, by }) => ({ kind, by }))).toEqual([
      { kind: 'created', by: null },
      { kind: 'password-reset', by: user.id },
    ]);
    expect(history[1]).toMatchObject({ how: 'email' });
  });
});

describe('password reset without email configured', () => {
  it('answers the same and stores no link', async () => {
    const fresh = await TEST_DATABASES[0]?.fresh();
    if (!fresh) throw new Error('no database');
    const server = await createServer({ model: modelOf(SPEC), ...fresh.options, logger: false });
    try {
      const { user } = await userWithToken(server);
      const answer = await server.app.inject({
        method: 'POST',
        url: '/api/auth/password-reset',
        payload: { email: user.email },
      });
      expect(answer.statusCode).toBe(202);
      expect(answer.json()).toEqual(PASSWORD_RESET_ACCEPTED);
      await server.close();
      const rows = await (async () => {
        const reopened = await createServer({ model: modelOf(SPEC), ...fresh.options, logger: false });
        try {
          return await reopened.store.sql.all(`SELECT * FROM "${PASSWORD_RESETS_TABLE}"`);
        } finally {
          await reopened.close();
        }
      })();
      expect(rows).toEqual([]);
    } finally {
      await server.close();
      await fresh.remove();
    }
  });
});
