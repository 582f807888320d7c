import { createHash } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { verify } from '@node-rs/argon2';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SQLITE_ONLY, type TestDatabase } from '../../test/databases.ts';
import { insertRowBefore, LENDING_DESK_DERIVED, modelOf } from '../../test/helpers.ts';
import { TEST_PASSWORD, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import { createAjv } from '../compile/ajv.ts';
import { USERS_TABLE } from '../store/users-table.ts';
import { createApiToken } from './accounts.ts';
import { useTestHashCost } from './passwords.ts';
import { SECURE_SESSION_COOKIE, SESSION_COOKIE, SIGN_IN_SCHEMA, USER_SCHEMA } from './people-schemas.ts';
import { SESSIONS_TABLE } from './sessions-store.ts';
import { TOKENS_TABLE } from './tokens-store.ts';

// argon2's verify, watched: the tests see whether a sign-in really checked a password hash.
vi.mock('@node-rs/argon2', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@node-rs/argon2')>();
  return { ...actual, verify: vi.fn(actual.verify) };
});

const MINUTE = 60_000;
const SIGN_IN_WINDOW = 15 * MINUTE;
const ATTEMPTS = 4;
const IDLE_MINUTES = 30;
const MAX_HOURS = 2;
const RATE_LIMIT = 5;

/** The app as the browser sees it: every call is to this host, and its pages have this origin. */
const HOST = 'app.example:3000';
const ORIGIN = `http://${HOST}`;
const TLS_HOST = 'app.example';
const TLS_ORIGIN = `https://${TLS_HOST}`;
const EVIL = 'https://evil.example';

/** The lending desk with every call derived, a low sign-in limit and short sessions. */
const SPEC = insertRowBefore(
  LENDING_DESK_DERIVED,
  ['MAX_LOANS'],
  [
    `| SIGN_IN_ATTEMPTS_PER_15_MINUTES | ${ATTEMPTS} | failed sign-ins before a lockout |`,
    `| SESSION_IDLE_MINUTES | ${IDLE_MINUTES} | a session ends after this long unused |`,
    `| SESSION_MAX_HOURS | ${MAX_HOURS} | a session ends this long after sign-in |`,
  ].join('\n'),
);
/** The same with a low general rate limit. */
const RATE_SPEC = insertRowBefore(
  LENDING_DESK_DERIVED,
  ['MAX_LOANS'],
  `| RATE_LIMIT_PER_MINUTE | ${RATE_LIMIT} | calls per user or address per minute |`,
);

/** A well-formed id no record has. */
const UNUSED_ID = '0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f';
const INJECTIONS = ["' OR 1=1 --", '"; DROP TABLE books; --', `x'); DELETE FROM "${USERS_TABLE}"; --`];

type Json = Record<string, unknown>;

interface Ask {
  body?: unknown;
  /** The session cookie's value, sent under the name the protocol uses unless `cookieName` says otherwise. */
  cookie?: string;
  cookieName?: string;
  authorization?: string;
  origin?: string;
  /** `Sec-Fetch-Site`. */
  fetchSite?: string;
  /** The client's address. */
  ip?: string;
  /** Over TLS: the socket says it is encrypted, as Node's TLS sockets do. */
  https?: boolean;
}

interface Answer {
  status: number;
  headers: OutgoingHttpHeaders;
  body: Json;
  setCookies: string[];
}

let addressCounter = 0;
/** An address no other call has used: its sign-in and rate counters start at zero. */
const freshIp = () => {
  const n = ++addressCounter;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

let isbnCounter = 0;
const book = (extra: Json = {}) => ({ title: 'Dune', isbn: `978${String(++isbnCounter).padStart(10, '0')}`, ...extra });

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A Set-Cookie line, its attributes by lower-case name (`true` for a flag). */
function parseSetCookie(line: string): { name: string; value: string; attributes: Record<string, string | true> } {
  const [pair = '', ...parts] = line.split(';').map((p) => p.trim());
  const eq = pair.indexOf('=');
  const attributes: Record<string, string | true> = {};
  for (const part of parts) {
    const i = part.indexOf('=');
    if (i < 0) attributes[part.toLowerCase()] = true;
    else attributes[part.slice(0, i).toLowerCase()] = part.slice(i + 1);
  }
  return { name: pair.slice(0, eq), value: pair.slice(eq + 1), attributes };
}

/** The session secret a sign-in set. */
function sessionFrom(answer: Answer, name = SESSION_COOKIE): string {
  expect(answer.status).toBe(200);
  const line = answer.setCookies.find((c) => c.startsWith(`${name}=`));
  expect(line, `a ${name} cookie`).toBeDefined();
  return parseSetCookie(line ?? '').value;
}

/** The field errors of a VALIDATION_FAILED answer, as `field code` pairs. */
function fieldCodes(answer: Answer): string[] {
  expect(answer.status).toBe(422);
  expect(answer.body.code).toBe('VALIDATION_FAILED');
  return (answer.body.errors as { field: string; code: string }[]).map((e) => `${e.field} ${e.code}`);
}

/** A pino logger at its most talkative whose output is kept, as written. */
function capturedLog() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: 'trace' }, stream), text: () => chunks.join('') };
}

/** A server on a fresh database, with a clock the test moves: 7 minutes into a 15-minute sign-in window. */
async function start(db: TestDatabase, source: string) {
  const fresh = await db.fresh();
  const log = capturedLog();
  const clock = { now: Math.floor(Date.now() / SIGN_IN_WINDOW) * SIGN_IN_WINDOW + 7 * MINUTE };
  const server = await createServer({
    model: modelOf(source),
    ...fresh.options,
    logger: log.logger,
    now: () => clock.now,
  });
  /** The body schema of each route as Fastify validates it, by `METHOD url`. */
  const bodySchemas = new Map<string, unknown>();
  server.app.addHook('onRequest', async (request) => {
    // What a TLS socket says: Fastify's `request.protocol` is https exactly when the socket is encrypted.
    if (request.headers['x-test-tls'] === 'on') (request.raw.socket as { encrypted?: boolean }).encrypted = true;
    bodySchemas.set(`${request.method} ${request.routeOptions.url}`, request.routeOptions.schema?.body);
  });

  const call = async (method: string, url: string, ask: Ask = {}): Promise<Answer> => {
    const headers: Record<string, string> = { host: ask.https ? TLS_HOST : HOST };
    if (ask.https) headers['x-test-tls'] = 'on';
    if (ask.origin !== undefined) headers.origin = ask.origin;
    if (ask.fetchSite !== undefined) headers['sec-fetch-site'] = ask.fetchSite;
    if (ask.authorization !== undefined) headers.authorization = ask.authorization;
    if (ask.cookie !== undefined) {
      headers.cookie = `${ask.cookieName ?? (ask.https ? SECURE_SESSION_COOKIE : SESSION_COOKIE)}=${ask.cookie}`;
    }
    if (ask.body !== undefined) headers['content-type'] = 'application/json';
    const response = await server.app.inject({
      method: method as 'GET',
      url,
      headers,
      remoteAddress: ask.ip ?? '127.0.0.1',
      ...(ask.body !== undefined
        ? { payload: typeof ask.body === 'string' ? ask.body : JSON.stringify(ask.body) }
        : {}),
    });
    if (response.statusCode >= 400) {
      // Every refusal is a catalogued problem, with the status its code has.
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      const problem = response.json() as { code: string; status: number };
      expect(server.compiled.catalogue.status(problem.code)).toBe(response.statusCode);
      expect(problem.status).toBe(response.statusCode);
    }
    const raw = response.headers['set-cookie'];
    return {
      status: response.statusCode,
      headers: response.headers,
      body: response.body === '' ? {} : (response.json() as Json),
      setCookies: raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)],
    };
  };

  /** A browser's sign-in: from the app's own page, from an address of its own unless told. */
  const signIn = (email: string, password = TEST_PASSWORD, ask: Ask = {}) =>
    call('POST', '/api/auth/sign-in', {
      origin: ask.https ? TLS_ORIGIN : ORIGIN,
      ip: freshIp(),
      ...ask,
      body: { email, password },
    });
  /** Who `GET /api/auth/me` says the session is. */
  const whoIs = async (secret: string, ask: Ask = {}) =>
    (await call('GET', '/api/auth/me', { cookie: secret, ...ask })).body.user as Json | null;
  const rows = <T extends object>(sql: string, params: unknown[] = []) => server.store.sql.all<T>(sql, params);
  const sessionsOf = async (userId: string) =>
    (await rows<{ id_hash: string }>(`SELECT "id_hash" FROM "${SESSIONS_TABLE}" WHERE "user_id" = ?`, [userId])).length;

  return {
    server,
    clock,
    log,
    call,
    signIn,
    whoIs,
    rows,
    sessionsOf,
    bodySchemas,
    async stop() {
      await server.close();
      await fresh.remove();
    },
  };
}

type Started = Awaited<ReturnType<typeof start>>;

// This file checks the hashes as production makes them (their argon2id parameters), so it undoes
// the lower cost the test setup gives the server's suites (test/test-hash-cost.ts).
beforeAll(() => useTestHashCost(false));

describe.each(SQLITE_ONLY)('on $name', (db) => {
  describe('sign-in, sessions and tokens', () => {
    let app: Started;
    let server: NinepointServer;
    let call: Started['call'];
    let signIn: Started['signIn'];
    let whoIs: Started['whoIs'];
    let clock: Started['clock'];
    /** A staff user's token, for setting up records. */
    let staff: string;

    beforeAll(async () => {
      app = await start(db, SPEC);
      ({ server, call, signIn, whoIs, clock } = app);
      staff = (await userWithToken(server)).authorization;
    });
    afterAll(async () => {
      await app.stop();
    });

    const bookCount = async () => {
      const answer = await call('GET', '/api/books?count=true&limit=1', { authorization: staff });
      expect(answer.status).toBe(200);
      return answer.body.total as number;
    };

    describe('the session cookie', () => {
      it('is set at sign-in, which answers the user: HttpOnly, SameSite=Lax, Path=/, host-only, not Secure over HTTP', async () => {
        const { user } = await userWithToken(server);
        const answer = await signIn(user.email);
        expect(answer.status).toBe(200);
        expect(answer.body).toEqual({ user });
        // As the OpenAPI document says: no password hash, nothing but the account.
        expect(createAjv().compile(USER_SCHEMA)(answer.body.user)).toBe(true);
        expect(answer.setCookies).toHaveLength(1);
        const cookie = parseSetCookie(answer.setCookies[0] ?? '');
        expect(cookie.name).toBe(SESSION_COOKIE);
        // 256 bits from the CSPRNG, base64url.
        expect(cookie.value).toMatch(/^nps_[A-Za-z0-9_-]{43}$/);
        expect(cookie.attributes).toEqual({
          path: '/',
          httponly: true,
          samesite: 'Lax',
          expires: new Date(clock.now + MAX_HOURS * 3_600_000).toUTCString(),
        });
        expect(await whoIs(cookie.value)).toEqual(user);
      });

      it('over HTTPS is __Host-np_session and Secure, and a plain np_session cookie is not read there', async () => {
        const { user } = await userWithToken(server);
        const answer = await signIn(user.email, TEST_PASSWORD, { https: true });
        expect(answer.status).toBe(200);
        const cookie = parseSetCookie(answer.setCookies[0] ?? '');
        expect(cookie.name).toBe(SECURE_SESSION_COOKIE);
        expect(cookie.attributes).toEqual({
          path: '/',
          httponly: true,
          samesite: 'Lax',
          secure: true,
          expires: new Date(clock.now + MAX_HOURS * 3_600_000).toUTCString(),
        });
        expect(await whoIs(cookie.value, { https: true })).toEqual(user);
        // A cookie set over plain HTTP (or planted there by a network attacker) does not count over HTTPS.
        const plain = sessionFrom(await signIn(user.email));
        expect(await whoIs(plain, { https: true, cookieName: SESSION_COOKIE })).toBeNull();
        expect(await whoIs(cookie.value, { https: true, cookieName: SESSION_COOKIE })).toBeNull();
      });

      it('is validated against the same sign-in schema object the OpenAPI document shows', async () => {
        await signIn('someone@example.test', 'not their password');
        expect(app.bodySchemas.get('POST /api/auth/sign-in')).toBe(SIGN_IN_SCHEMA);
        expect(server.compiled.openapi.components.schemas['ninepoint.SignIn']).toBe(SIGN_IN_SCHEMA);
        const smuggled = await call('POST', '/api/auth/sign-in', {
          origin: ORIGIN,
          ip: freshIp(),
          body: { email: 'someone@example.test', password: TEST_PASSWORD, roles: ['staff'] },
        });
        expect(smuggled.body.code).toBe('INVALID_PAYLOAD');
      });
    });

    describe('failed sign-in', () => {
      it('answers the same SIGN_IN_FAILED for a wrong password and for an unknown email', async () => {
        const { user } = await userWithToken(server);
        const wrong = await signIn(user.email, 'not the password at all');
        const unknown = await signIn(`nobody-${isbnCounter}@example.test`, 'not the password at all');
        for (const answer of [wrong, unknown]) {
          expect(answer.status).toBe(401);
          expect(answer.setCookies).toEqual([]);
        }
        const { requestId: _a, ...wrongBody } = wrong.body;
        const { requestId: _b, ...unknownBody } = unknown.body;
        expect(unknownBody).toEqual(wrongBody);
        expect(wrongBody).toEqual({
          type: 'urn:ninepoint:problem:SIGN_IN_FAILED',
          title: expect.any(String),
          status: 401,
          code: 'SIGN_IN_FAILED',
          detail: 'The email or password is not right.',
          instance: '/api/auth/sign-in',
        });
      });

      // How alike the two take is timed by `npm run bench -- sign-in` (bench/sign-in.bench.ts): a
      // timing asserted here failed whenever the shared machine was busy.
      it('checks a password hash with argon2 for an unknown email too, as for a wrong password', async () => {
        const verifyCalls = vi.mocked(verify);
        const { user } = await userWithToken(server);
        for (let i = 0; i < ATTEMPTS - 1; i++) {
          verifyCalls.mockClear();
          const unknown = await signIn(`nobody-${i}-${isbnCounter}@example.test`, 'not the password at all');
          expect(unknown.body.code).toBe('SIGN_IN_FAILED');
          expect(verifyCalls).toHaveBeenCalledTimes(1);
          expect(verifyCalls.mock.calls[0]?.[0]).toMatch(/^\$argon2id\$/);

          verifyCalls.mockClear();
          const wrong = await signIn(user.email, `not the password ${i}`);
          expect(wrong.body.code).toBe('SIGN_IN_FAILED');
          expect(verifyCalls).toHaveBeenCalledTimes(1);
          expect(verifyCalls.mock.calls[0]?.[0]).toMatch(/^\$argon2id\$/);
        }
      });
    });

    describe('session fixation', () => {
      it('gives a new session id at sign-in and ends the one the browser had', async () => {
        const { user } = await userWithToken(server);
        const before = sessionFrom(await signIn(user.email));
        const after = sessionFrom(await signIn(user.email, TEST_PASSWORD, { cookie: before }));
        expect(after).not.toBe(before);
        expect(await whoIs(before)).toBeNull();
        expect(await whoIs(after)).toEqual(user);
        expect(await app.sessionsOf(user.id)).toBe(1);
      });

      it('never adopts a session id chosen before sign-in', async () => {
        const { user } = await userWithToken(server);
        const planted = `nps_${'A'.repeat(43)}`;
        const issued = sessionFrom(await signIn(user.email, TEST_PASSWORD, { cookie: planted }));
        expect(issued).not.toBe(planted);
        expect(await whoIs(planted)).toBeNull();
        expect(await whoIs(issued)).toEqual(user);
      });
    });

    describe('sign-out', () => {
      it('ends the session on the server: the old cookie no longer authenticates when replayed', async () => {
        const { user } = await userWithToken(server);
        const secret = sessionFrom(await signIn(user.email));
        expect((await call('GET', '/api/books', { cookie: secret })).status).toBe(200);

        const out = await call('POST', '/api/auth/sign-out', { cookie: secret, origin: ORIGIN });
        expect(out.status).toBe(204);
        const cleared = parseSetCookie(out.setCookies[0] ?? '');
        expect(cleared).toMatchObject({ name: SESSION_COOKIE, value: '' });
        expect(new Date(String(cleared.attributes.expires)).getTime()).toBeLessThan(clock.now);
        expect(await app.sessionsOf(user.id)).toBe(0);

        // The browser forgets the cookie; a copy of it replayed is a visitor.
        expect(await whoIs(secret)).toBeNull();
        const read = await call('GET', '/api/books', { cookie: secret });
        expect(read.body.code).toBe('NOT_SIGNED_IN');
        const write = await call('POST', '/api/books', { cookie: secret, origin: ORIGIN, body: book() });
        expect(write.body.code).toBe('NOT_SIGNED_IN');
      });
    });

    describe('session expiry', () => {
      it(`ends a session unused for SESSION_IDLE_MINUTES (${IDLE_MINUTES}), and use keeps it alive`, async () => {
        const { user } = await userWithToken(server);
        const secret = sessionFrom(await signIn(user.email));
        clock.now += (IDLE_MINUTES - 1) * MINUTE;
        expect(await whoIs(secret)).toEqual(user);
        // Twice the idle time after sign-in, but used in between.
        clock.now += (IDLE_MINUTES - 1) * MINUTE;
        expect(await whoIs(secret)).toEqual(user);
        clock.now += IDLE_MINUTES * MINUTE;
        const idle = await call('GET', '/api/auth/me', { cookie: secret });
        expect(idle.body.user).toBeNull();
        expect(parseSetCookie(idle.setCookies[0] ?? '')).toMatchObject({ name: SESSION_COOKIE, value: '' });
        expect(await app.sessionsOf(user.id)).toBe(0);
        expect((await call('GET', '/api/books', { cookie: secret })).body.code).toBe('NOT_SIGNED_IN');
      });

      it(`ends a session SESSION_MAX_HOURS (${MAX_HOURS}) after sign-in however often it is used`, async () => {
        const { user } = await userWithToken(server);
        const secret = sessionFrom(await signIn(user.email));
        for (const minutes of [25, 25, 25, 25, 19]) {
          clock.now += minutes * MINUTE;
          expect(await whoIs(secret)).toEqual(user);
        }
        clock.now += MINUTE;
        expect(await whoIs(secret)).toBeNull();
        expect(await app.sessionsOf(user.id)).toBe(0);
      });

      it('ends every session and token of a user who is removed', async () => {
        const { user, authorization } = await userWithToken(server);
        const secret = sessionFrom(await signIn(user.email));
        expect(await server.auth.removeUser(user.email)).toBe(true);
        expect(await whoIs(secret)).toBeNull();
        expect((await call('GET', '/api/auth/me', { authorization })).body.code).toBe('NOT_SIGNED_IN');
      });
    });

    describe('cross-site request forgery', () => {
      it('refuses a cookie-authenticated write from another origin with FORBIDDEN and writes nothing', async () => {
        const { user } = await userWithToken(server);
        const secret = sessionFrom(await signIn(user.email));
        const existing = (await call('POST', '/api/books', { authorization: staff, body: book() })).body;
        const count = await bookCount();
        const writes: [string, string, unknown][] = [
          ['POST', '/api/books', book()],
          ['PATCH', `/api/books/${existing.id}`, { title: 'Defaced' }],
          ['DELETE', `/api/books/${existing.id}`, undefined],
          ['POST', '/api/auth/sign-out', undefined],
        ];
        const foreign: Ask[] = [
          { origin: EVIL },
          { origin: 'null' },
          { origin: `https://${HOST}` },
          { origin: 'http://app.example:3000.evil.example' },
          { origin: EVIL, fetchSite: 'same-origin' },
          { fetchSite: 'cross-site' },
          { fetchSite: 'same-site' },
          { fetchSite: 'none' },
        ];
        for (const [method, url, body] of writes) {
          for (const headers of foreign) {
            const answer = await call(method, url, { cookie: secret, body, ...headers });
            expect(answer.status, `${method} ${url} ${JSON.stringify(headers)}`).toBe(403);
            expect(answer.body.code).toBe('FORBIDDEN');
          }
        }
        expect(await bookCount()).toBe(count);
        expect((await call('GET', `/api/books/${existing.id}`, { authorization: staff })).body).toEqual(existing);
        // Sign-out was refused too: the session lives on.
        expect(await whoIs(secret)).toEqual(user);
      });

      it('lets a cookie-authenticated write through with its own Origin or Sec-Fetch-Site: same-origin', async () => {
        const { user } = await userWithToken(server);
        const secret = sessionFrom(await signIn(user.email));
        const created = await call('POST', '/api/books', { cookie: secret, origin: ORIGIN, body: book() });
        expect(created.status).toBe(201);
        expect(created.body.created_by).toBe(user.id);
        const url = `/api/books/${created.body.id}`;
        const patched = await call('PATCH', url, {
          cookie: secret,
          fetchSite: 'same-origin',
          body: { title: 'Renamed' },
        });
        expect(patched.status).toBe(200);
        expect(patched.body.title).toBe('Renamed');
        expect((await call('DELETE', url, { cookie: secret, origin: ORIGIN })).status).toBe(204);
      });

      it('refuses a cookie-authenticated write with neither Origin nor Sec-Fetch-Site', async () => {
        const { user } = await userWithToken(server);
        const secret = sessionFrom(await signIn(user.email));
        const count = await bookCount();
        const answer = await call('POST', '/api/books', { cookie: secret, body: book() });
        expect(answer.status).toBe(403);
        expect(answer.body.code).toBe('FORBIDDEN');
        expect(await bookCount()).toBe(count);
        // Reads are not state changes: they need neither.
        expect((await call('GET', '/api/books', { cookie: secret })).status).toBe(200);
      });

      it('lets bearer-token writes through without Origin: browsers never send a token on their own', async () => {
        const { authorization, user } = await userWithToken(server);
        const created = await call('POST', '/api/books', { authorization, body: book() });
        expect(created.status).toBe(201);
        expect(created.body.created_by).toBe(user.id);
        const url = `/api/books/${created.body.id}`;
        expect((await call('PATCH', url, { authorization, body: { title: 'Renamed' } })).status).toBe(200);
        expect((await call('DELETE', url, { authorization })).status).toBe(204);
      });

      it('refuses a sign-in posted from another origin, and makes no session', async () => {
        const { user } = await userWithToken(server);
        const answer = await signIn(user.email, TEST_PASSWORD, { origin: EVIL });
        expect(answer.status).toBe(403);
        expect(answer.body.code).toBe('FORBIDDEN');
        expect(answer.setCookies).toEqual([]);
        expect(await app.sessionsOf(user.id)).toBe(0);
      });
    });

    describe('API tokens', () => {
      it('authenticate a call as their user', async () => {
        const { authorization, user } = await userWithToken(server);
        expect((await call('GET', '/api/auth/me', { authorization })).body.user).toEqual(user);
        expect((await call('GET', '/api/books', { authorization })).status).toBe(200);
      });

      it('answer NOT_SIGNED_IN, never a silent visitor, when malformed, unknown or not Bearer', async () => {
        const { token, user } = await userWithToken(server);
        const session = sessionFrom(await signIn(user.email));
        const refused = [
          'Bearer',
          'Bearer ',
          'Bearer abc',
          `Bearer npt_${'x'.repeat(43)}`,
          `Bearer ${token}x`,
          `Bearer ${token.slice(0, -1)}`,
          `Bearer ${token.toUpperCase()}`,
          `Bearer ${session}`,
          `Bearer ${token} ${token}`,
          `Basic ${Buffer.from(`${user.email}:${TEST_PASSWORD}`).toString('base64')}`,
          token,
          ...INJECTIONS.map((s) => `Bearer npt_${s}`),
        ];
        for (const authorization of refused) {
          for (const url of ['/api/auth/me', '/api/books', '/api/health']) {
            const answer = await call('GET', url, { authorization });
            expect(answer.status, `${url} with ${authorization}`).toBe(401);
            expect(answer.body.code).toBe('NOT_SIGNED_IN');
          }
        }
      });

      it('stop working for good once revoked', async () => {
        const { user } = await userWithToken(server);
        const { id, secret } = await createApiToken(server.auth, user.email, 'ci');
        const authorization = `Bearer ${secret}`;
        expect((await call('GET', '/api/books', { authorization })).status).toBe(200);
        expect(await server.auth.tokens.revoke(id, clock.now)).toBe(true);
        for (const [method, url, body] of [
          ['GET', '/api/books', undefined],
          ['GET', '/api/auth/me', undefined],
          ['POST', '/api/books', book()],
        ] as const) {
          const answer = await call(method, url, { authorization, body });
          expect(answer.status).toBe(401);
          expect(answer.body.code).toBe('NOT_SIGNED_IN');
        }
        expect(await server.auth.tokens.revoke(id, clock.now)).toBe(false);
        expect((await call('GET', '/api/books', { authorization })).status).toBe(401);
      });
    });

    describe('brute force', () => {
      it(`locks an account after SIGN_IN_ATTEMPTS_PER_15_MINUTES (${ATTEMPTS}) failures, even for the right password from another address`, async () => {
        const { user } = await userWithToken(server);
        for (let i = 0; i < ATTEMPTS; i++)
          expect((await signIn(user.email, `guess ${i}`)).body.code).toBe('SIGN_IN_FAILED');
        const locked = await signIn(user.email);
        expect(locked.status).toBe(429);
        expect(locked.body.code).toBe('SIGN_IN_LOCKED');
        expect(locked.setCookies).toEqual([]);
        // The same account however its email is written.
        expect((await signIn(` ${user.email.toUpperCase()} `)).body.code).toBe('SIGN_IN_LOCKED');
      });

      it(`locks an address after SIGN_IN_ATTEMPTS_PER_15_MINUTES (${ATTEMPTS}) failures, for other accounts too`, async () => {
        const { user } = await userWithToken(server);
        const ip = freshIp();
        for (let i = 0; i < ATTEMPTS; i++) {
          expect((await signIn(`someone-${i}@example.test`, 'a guess', { ip })).body.code).toBe('SIGN_IN_FAILED');
        }
        expect((await signIn(user.email, TEST_PASSWORD, { ip })).body.code).toBe('SIGN_IN_LOCKED');
        // The account itself is not locked: from elsewhere its owner signs in.
        expect((await signIn(user.email)).status).toBe(200);
      });

      it('does not lock an account that signs in before reaching the limit', async () => {
        const { user } = await userWithToken(server);
        for (let i = 0; i < ATTEMPTS - 1; i++) expect((await signIn(user.email, `guess ${i}`)).status).toBe(401);
        expect((await signIn(user.email)).status).toBe(200);
      });

      it('lifts a lockout once two 15-minute windows pass without failures, as its Retry-After says', async () => {
        const { user } = await userWithToken(server);
        for (let i = 0; i < ATTEMPTS; i++) await signIn(user.email, `guess ${i}`);
        const lifts = (Math.floor(clock.now / SIGN_IN_WINDOW) + 2) * SIGN_IN_WINDOW;
        const locked = await signIn(user.email);
        expect(locked.body.code).toBe('SIGN_IN_LOCKED');
        expect(locked.headers['retry-after']).toBe(String(Math.ceil((lifts - clock.now) / 1000)));
        clock.now += SIGN_IN_WINDOW;
        const still = await signIn(user.email);
        expect(still.body.code).toBe('SIGN_IN_LOCKED');
        expect(still.headers['retry-after']).toBe(String(Math.ceil((lifts - clock.now) / 1000)));
        clock.now = lifts - 1000;
        expect((await signIn(user.email)).body.code).toBe('SIGN_IN_LOCKED');
        clock.now = lifts;
        expect((await signIn(user.email)).status).toBe(200);
      });

      it('says in Retry-After when a lockout made by the last window’s failures ends: at the end of this one', async () => {
        const { user } = await userWithToken(server);
        for (let i = 0; i < ATTEMPTS; i++) await signIn(user.email, `guess ${i}`);
        // Into the next window: its own count is empty, the last one's failures still lock.
        clock.now = (Math.floor(clock.now / SIGN_IN_WINDOW) + 1) * SIGN_IN_WINDOW + 5 * MINUTE;
        const locked = await signIn(user.email);
        expect(locked.body.code).toBe('SIGN_IN_LOCKED');
        expect(locked.headers['retry-after']).toBe(String(10 * 60));
        clock.now += 10 * MINUTE;
        expect((await signIn(user.email)).status).toBe(200);
      });

      it('keeps a lockout when the rate limiter cleans up its own counters', async () => {
        // Several minutes into a sign-in window, so that the window began before the limiter's last minute.
        clock.now = Math.floor(clock.now / SIGN_IN_WINDOW) * SIGN_IN_WINDOW + SIGN_IN_WINDOW + 7 * MINUTE;
        const { user } = await userWithToken(server);
        for (let i = 0; i < ATTEMPTS; i++) await signIn(user.email, `guess ${i}`);
        expect((await signIn(user.email)).body.code).toBe('SIGN_IN_LOCKED');
        // The limiter sends its counts to the database about once a second and then prunes old counters.
        await sleep(2200);
        expect((await signIn(user.email)).body.code).toBe('SIGN_IN_LOCKED');
      });

      it(`checks no more than SIGN_IN_ATTEMPTS_PER_15_MINUTES (${ATTEMPTS}) passwords when guesses arrive all at once`, async () => {
        const { user } = await userWithToken(server);
        const answers = await Promise.all(
          Array.from({ length: 3 * ATTEMPTS }, (_, i) => signIn(user.email, `parallel guess ${i}`)),
        );
        const codes = answers.map((a) => a.body.code);
        expect(codes.filter((c) => c === 'SIGN_IN_FAILED')).toHaveLength(ATTEMPTS);
        expect(codes.filter((c) => c === 'SIGN_IN_LOCKED')).toHaveLength(2 * ATTEMPTS);
        expect((await signIn(user.email)).body.code).toBe('SIGN_IN_LOCKED');
      });
    });

    describe('secrets at rest and in logs', () => {
      it('stores an argon2id hash of each password and only SHA-256 hashes of session and token secrets', async () => {
        const { user, token } = await userWithToken(server);
        const secret = sessionFrom(await signIn(user.email));
        const [row] = await app.rows<{ password_hash: string }>(
          `SELECT "password_hash" FROM "${USERS_TABLE}" WHERE "id" = ?`,
          [user.id],
        );
        expect(row?.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
        const sessions = await app.rows<Json>(`SELECT * FROM "${SESSIONS_TABLE}" WHERE "user_id" = ?`, [user.id]);
        const tokens = await app.rows<Json>(`SELECT * FROM "${TOKENS_TABLE}" WHERE "user_id" = ?`, [user.id]);
        expect(sessions.map((s) => s.id_hash)).toEqual([sha256(secret)]);
        expect(tokens.map((t) => t.token_hash)).toEqual([sha256(token)]);
        const users = await app.rows<Json>(`SELECT * FROM "${USERS_TABLE}"`);
        const everything = JSON.stringify([users, sessions, tokens]);
        for (const clear of [TEST_PASSWORD, secret, token, secret.slice(4), token.slice(4)]) {
          expect(everything).not.toContain(clear);
        }
      });

      it('logs sign-ins, failures and token calls without the password, the session secret or the token', async () => {
        const { user, token } = await userWithToken(server);
        const from = app.log.text().length;
        const wrongPassword = 'a wrong password, logged nowhere';
        const secret = sessionFrom(await signIn(user.email));
        await signIn(user.email, wrongPassword);
        await call('GET', '/api/auth/me', { cookie: secret });
        await call('POST', '/api/books', { cookie: secret, origin: EVIL, body: book() });
        await call('GET', '/api/books', { authorization: `Bearer ${token}` });
        await call('GET', '/api/books', { authorization: `Bearer ${token}x` });
        await call('POST', '/api/auth/sign-out', { cookie: secret, origin: ORIGIN });
        const written = app.log.text().slice(from);
        expect(written).toContain('signed in');
        expect(written).toContain('sign-in failed');
        expect(written).toContain('NOT_SIGNED_IN');
        for (const clear of [
          TEST_PASSWORD,
          wrongPassword,
          secret,
          token,
          secret.slice(4),
          token.slice(4),
          '$argon2id$',
        ]) {
          expect(written).not.toContain(clear);
        }
      });
    });

    describe('mass assignment', () => {
      const FORGED_ID = '0190f3c4-7a2b-7c3d-8e4f-00000000f0f0';
      const forged = {
        id: FORGED_ID,
        created_by: '0190f3c4-7a2b-7c3d-8e4f-00000000beef',
        created_at: '2000-01-01T00:00:00.000Z',
        updated_at: '2000-01-01T00:00:00.000Z',
      };

      it('refuses id, created_by, state, created_at and updated_at in a create or update with READ_ONLY_FIELD, storing none', async () => {
        const { authorization, user } = await userWithToken(server);
        const count = await bookCount();
        const all = await call('POST', '/api/books', { authorization, body: book(forged) });
        expect(fieldCodes(all)).toEqual(Object.keys(forged).map((f) => `${f} READ_ONLY_FIELD`));
        for (const [field, value] of Object.entries(forged)) {
          const one = await call('POST', '/api/books', { authorization, body: book({ [field]: value }) });
          expect(fieldCodes(one)).toEqual([`${field} READ_ONLY_FIELD`]);
        }
        expect(await bookCount()).toBe(count);
        expect((await call('GET', `/api/books/${FORGED_ID}`, { authorization })).status).toBe(404);

        const created = (await call('POST', '/api/books', { authorization, body: book() })).body;
        const url = `/api/books/${created.id}`;
        const update = await call('PATCH', url, { authorization, body: { title: 'Changed', ...forged } });
        expect(fieldCodes(update)).toEqual(Object.keys(forged).map((f) => `${f} READ_ONLY_FIELD`));
        expect((await call('GET', url, { authorization })).body).toEqual(created);

        const loan = { book: created.id, borrower: user.id, due: '2099-01-31' };
        const forgedLoan = await call('POST', '/api/loans', { authorization, body: { ...loan, state: 'returned' } });
        expect(fieldCodes(forgedLoan)).toEqual(['state READ_ONLY_FIELD']);
        const lent = await call('POST', '/api/loans', { authorization, body: loan });
        expect(lent.status).toBe(201);
        expect(lent.body.state).toBe('out');
        const loanUrl = `/api/loans/${lent.body.id}`;
        expect(fieldCodes(await call('PATCH', loanUrl, { authorization, body: { state: 'returned' } }))).toEqual([
          'state READ_ONLY_FIELD',
        ]);
        expect((await call('GET', loanUrl, { authorization })).body).toEqual(lent.body);
      });
    });

    describe('SQL-looking input', () => {
      it('answers catalogued 4xx (or finds it as plain text) in sign-in, ids, filters, sort, q and cursor, and the tables stay intact', async () => {
        const { authorization, user } = await userWithToken(server);
        const users = await server.auth.users.count();
        // A book titled like an injection: a filter for that text finds exactly it, as text.
        const decoy = (await call('POST', '/api/books', { authorization, body: book({ title: INJECTIONS[0] }) })).body;
        const count = await bookCount();
        const expectCode = (answer: Answer, status: number, code: string, what: string) => {
          expect(answer.status, what).toBe(status);
          expect(answer.body.code, what).toBe(code);
        };
        for (const evil of INJECTIONS) {
          const e = encodeURIComponent(evil);
          expectCode(await signIn(evil, evil), 401, 'SIGN_IN_FAILED', `email ${evil}`);
          expectCode(await signIn(`${evil}@example.test`, evil), 401, 'SIGN_IN_FAILED', `email ${evil}`);
          expectCode(await signIn(user.email, evil), 401, 'SIGN_IN_FAILED', `password ${evil}`);
          for (const [method, url] of [
            ['GET', `/api/books/${e}`],
            ['GET', `/api/books/${e}/history`],
            ['PATCH', `/api/books/${e}`],
            ['DELETE', `/api/books/${e}`],
            ['POST', `/api/loans/${e}/return`],
          ] as const) {
            const body = method === 'PATCH' ? { title: 'x' } : undefined;
            expectCode(await call(method, url, { authorization, body }), 404, 'NOT_FOUND', `${method} ${url}`);
          }
          for (const query of [
            `filter[copies]=${e}`,
            `filter[due]=${e}`,
            `filter[${e}]=1`,
            `sort=${e}`,
            `sort=-${e}`,
            `cursor=${e}`,
            `cursor=${Buffer.from(JSON.stringify(['created_at', evil, evil])).toString('base64url')}`,
            `limit=${e}`,
            `${e}=1`,
          ]) {
            const url = `/api/${query.startsWith('filter[due]') ? 'loans' : 'books'}?${query}`;
            expectCode(await call('GET', url, { authorization }), 400, 'INVALID_PAYLOAD', url);
          }
          // Text is bound as a value: it matches itself, never every row.
          const filtered = await call('GET', `/api/books?filter[title]=${e}`, { authorization });
          expect(filtered.status).toBe(200);
          expect((filtered.body.items as Json[]).map((b) => b.id)).toEqual(evil === INJECTIONS[0] ? [decoy.id] : []);
          const searched = await call('GET', `/api/books?q=${e}`, { authorization });
          expect(searched.status).toBe(200);
          expect((searched.body.items as Json[]).map((b) => b.id)).toEqual(evil === INJECTIONS[0] ? [decoy.id] : []);
          const cursor = Buffer.from(JSON.stringify(['title', evil, UNUSED_ID])).toString('base64url');
          expect((await call('GET', `/api/books?sort=title&cursor=${cursor}`, { authorization })).status).toBe(200);
        }
        expect(await bookCount()).toBe(count);
        expect(await server.auth.users.count()).toBe(users);
        expect((await signIn(user.email)).status).toBe(200);
      });
    });
  });

  describe('the general rate limit', () => {
    let app: Started;

    beforeAll(async () => {
      app = await start(db, RATE_SPEC);
    });
    afterAll(async () => {
      await app.stop();
    });

    it(`answers RATE_LIMITED 429 with Retry-After past RATE_LIMIT_PER_MINUTE (${RATE_LIMIT}) calls, until the minute ends`, async () => {
      const { call, clock } = app;
      const ip = freshIp();
      clock.now += 20_000;
      for (let i = 0; i < RATE_LIMIT; i++) expect((await call('GET', '/api/auth/me', { ip })).status).toBe(200);
      const refused = await call('GET', '/api/auth/me', { ip });
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('RATE_LIMITED');
      expect(refused.headers['retry-after']).toBe('40');
      // Every call counts, sign-in included: past the limit no password is checked.
      const signIn = await call('POST', '/api/auth/sign-in', {
        ip,
        origin: ORIGIN,
        body: { email: 'someone@example.test', password: TEST_PASSWORD },
      });
      expect(signIn.body.code).toBe('RATE_LIMITED');
      // Other addresses are not held up.
      expect((await call('GET', '/api/auth/me', { ip: freshIp() })).status).toBe(200);
      clock.now += 40_000;
      expect((await call('GET', '/api/auth/me', { ip })).status).toBe(200);
    });

    it("does not count the web app's files: a page's dozen scripts leave the calls their budget", async () => {
      const { call, clock, server } = app;
      clock.now += MINUTE;
      const ip = freshIp();
      const { authorization } = await userWithToken(server);
      for (let i = 0; i < RATE_LIMIT + 5; i++) {
        expect((await call('GET', `/assets/chunk-${i}.js`, { ip, authorization })).status).not.toBe(429);
        expect((await call('GET', `/assets/chunk-${i}.js`, { ip })).status).not.toBe(429);
      }
      expect((await call('GET', '/api/auth/me', { ip, authorization })).status).toBe(200);
      expect((await call('GET', '/api/auth/me', { ip })).status).toBe(200);
    });

    it('counts a signed-in user apart from their address', async () => {
      const { call, clock, server } = app;
      clock.now += MINUTE;
      const ip = freshIp();
      const { authorization } = await userWithToken(server);
      for (let i = 0; i < RATE_LIMIT; i++) await call('GET', '/api/auth/me', { ip });
      expect((await call('GET', '/api/auth/me', { ip })).status).toBe(429);
      expect((await call('GET', '/api/auth/me', { ip, authorization })).status).toBe(200);
      // The user's own budget follows them from address to address.
      for (let i = 1; i < RATE_LIMIT; i++) await call('GET', '/api/auth/me', { ip: freshIp(), authorization });
      const refused = await call('GET', '/api/auth/me', { ip: freshIp(), authorization });
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('RATE_LIMITED');
    });
  });
});
