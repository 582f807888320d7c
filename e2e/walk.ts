import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  addUser,
  changeAccount,
  createApiToken,
  createServer,
  type NinepointServer,
  PROBLEM_TYPE_PREFIX,
} from '@ninepoint/server';
import { checkSpec, type ErrorCode, errorCatalogue, type Model } from '@ninepoint/spec';
import { expect, vi } from 'vitest';
import type { FreshDatabase, TestDatabase } from '../packages/server/test/databases.ts';

/**
 * The end-to-end walk of an example spec: a real server on a free port of 127.0.0.1, called over
 * HTTP with fetch. Every answer is checked as it arrives (no 500, no stack trace or SQL text in a
 * body, errors as application/problem+json with their catalogued status), and the walk records
 * which catalogue codes were answered and which calls succeeded, so a suite can assert at its end
 * that nothing went unwalked. Users are added in-process, as `ninepoint users add` does, and call
 * with an API token; `walkSession` covers password sign-in and the session cookie.
 */

// biome-ignore lint/suspicious/noExplicitAny: answers are JSON, read by tests that know their shape.
export type Json = any;

export interface Answer {
  status: number;
  headers: Headers;
  /** The parsed JSON body; null for an empty one. */
  body: Json;
  text: string;
}

/** A user of the app, made for the walk, with an API token to call as them. */
export interface User {
  id: string;
  email: string;
  password: string;
  roles: readonly string[];
  token: string;
}

export interface CallOptions {
  /** Who calls: a user (their API token is sent), or null for a signed-out visitor (the default). */
  as?: User | null;
  /** Sent as `If-Match`. */
  ifMatch?: string;
  /** More headers: a cookie, an Origin, an Authorization of one's own. */
  headers?: Record<string, string>;
  /** Sent as the body as it is, instead of `JSON.stringify(body)`. */
  raw?: string;
  /** Default: application/json whenever there is a body. */
  contentType?: string;
}

/** A field error as `[field, code]`, `field` null for a rule about the whole record. */
export type FieldErrorPair = readonly [string | null, string];

/**
 * Catalogue codes no walk can answer, whatever the spec: a suite excludes these (and its own, each
 * with a reason) from the coverage assertion. When an excluded code is answered the assertion
 * fails, so an exclusion is removed as soon as it no longer holds.
 */
export const NEVER_ANSWERED: Readonly<Record<string, string>> = {
  INTERNAL_ERROR: 'a fault of the server: every answer of the walk is asserted not to be a 500',
  UNSUPPORTED_MEDIA_TYPE: 'only an import takes a body that is not JSON: packages/server/src/import/ tests it',
  IMPORT_UNREADABLE: 'answered by an import only: packages/server/src/import/ tests it',
  IMPORT_REFUSED: 'answered by an import only: packages/server/src/import/ tests it',
  TWO_FACTOR_FAILED:
    'the walk signs in without a second factor: packages/server/src/people/two-factor.test.ts tests it',
  TWO_FACTOR_EXPIRED:
    'the walk signs in without a second factor: packages/server/src/people/two-factor.test.ts tests it',
  TWO_FACTOR_REQUIRED: 'no example requires a second factor: packages/server/src/people/two-factor.test.ts tests it',
  TWO_FACTOR_ENABLED:
    'the walk signs in without a second factor: packages/server/src/people/two-factor.test.ts tests it',
};

/** What a body must never show: stack frames, driver error names, SQL. */
const LEAKS: readonly RegExp[] = [
  /\bat [^\n"]*\.(?:ts|js|mjs|cjs):\d+:\d+/,
  /node:internal/,
  /\b[A-Z][a-z]+[A-Za-z]*Error\b/,
  /\bSQLITE_[A-Z]/,
  /constraint failed/i,
  /\b(?:SELECT|INSERT|UPDATE|DELETE)\b[\s\S]*\b(?:FROM|INTO|SET|WHERE)\b/,
  /duplicate key value/i,
  /violates [a-z -]*constraint/i,
  /syntax error at or near/i,
  /relation "[^"]*" does not exist/i,
];

/** The source of an example spec under examples/. */
export function exampleSource(name: string): string {
  return readFileSync(new URL(`../examples/${name}`, import.meta.url), 'utf8');
}

/** An ISO date `days` from today (UTC); negative for the past. */
export function inDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

/** A fresh id that names no record and no user. */
export function someone(): string {
  return randomUUID();
}

/** Runs `fn` with the clock (`Date`, in this process, where the server runs) moved on by `ms`. */
export async function later<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  const moved = Date.now() + ms;
  vi.setSystemTime(moved);
  let result: T;
  try {
    result = await fn();
  } finally {
    vi.useRealTimers();
  }
  expect(Date.now(), 'the clock is set back after later()').toBeLessThan(moved);
  return result;
}

interface RoutePattern {
  key: string;
  method: string;
  pattern: RegExp;
}

export class Walk {
  readonly model: Model;
  readonly url: string;
  /** Catalogue codes answered, top-level or as a field error, with how often. */
  readonly seen = new Map<string, number>();
  /** Calls (`POST /api/loans/:id/renew`) that answered 2xx at least once. */
  readonly succeeded = new Set<string>();
  readonly #server: NinepointServer;
  readonly #fresh: FreshDatabase;
  readonly #catalogue: ReadonlyMap<string, ErrorCode>;
  readonly #routes: readonly RoutePattern[];
  #users = 0;

  constructor(model: Model, url: string, server: NinepointServer, fresh: FreshDatabase) {
    this.model = model;
    this.url = url;
    this.#server = server;
    this.#fresh = fresh;
    this.#catalogue = new Map(errorCatalogue(model).map((e) => [e.code, e]));
    this.#routes = server.compiled.routeTable.routes.map((r) => ({
      key: `${r.method} ${r.path}`,
      method: r.method,
      pattern: new RegExp(`^${r.path.replace(/:[A-Za-z_][A-Za-z0-9_]*/g, '[^/]+')}$`),
    }));
  }

  /** Checks `source`, serves it from a fresh database of `db` and listens on a free port. */
  static async start(source: string, db: TestDatabase): Promise<Walk> {
    const { model, ok, diagnostics } = checkSpec(source);
    if (!ok) throw new Error(`The example has errors: ${JSON.stringify(diagnostics, null, 2)}`);
    const fresh = await db.fresh();
    let server: NinepointServer;
    try {
      server = await createServer({ model, ...fresh.options, logger: false });
    } catch (error) {
      await fresh.remove();
      throw error;
    }
    const url = await server.listen({ port: 0, host: '127.0.0.1' });
    return new Walk(model, url, server, fresh);
  }

  async close(): Promise<void> {
    try {
      await this.#server.close();
    } finally {
      await this.#fresh.remove();
    }
  }

  /**
   * Adds a user with these roles (as `ninepoint users add` does) and an API token for them.
   * `name` makes the email readable: `alice-3@walk.example.com`.
   */
  async user(roles: readonly string[], name = 'user'): Promise<User> {
    const email = `${name}-${++this.#users}@walk.example.com`;
    const password = `walk password ${this.#users}`;
    const known = this.model.roles.map((r) => r.name).filter((r) => r !== 'anyone');
    const account = await addUser(this.#server.auth, { email, name, roles, password }, known);
    const { secret } = await createApiToken(this.#server.auth, email, 'e2e walk');
    return { id: account.id, email, password, roles, token: secret };
  }

  /** Deactivates `user`'s account at the server's terminal (`ninepoint users deactivate`). */
  async deactivate(user: User): Promise<void> {
    const known = this.model.roles.map((r) => r.name).filter((r) => r !== 'anyone');
    await changeAccount(
      this.#server.auth,
      user.id,
      { active: false },
      { by: null, knownRoles: known, manages: () => false },
    );
  }

  /** A client calling as `user`, or as a signed-out visitor for null. */
  as(user: User | null): Client {
    return new Client(this, user);
  }

  /** The runtime settings of the spec (point 9 over the defaults). */
  get settings(): NinepointServer['compiled']['settings'] {
    return this.#server.compiled.settings;
  }

  /** The calls the server serves, as `METHOD /path/:id`. */
  get calls(): string[] {
    return this.#routes.map((r) => r.key);
  }

  /** The catalogue entry of a code (point 8 over the built-ins). */
  entry(code: string): ErrorCode {
    const entry = this.#catalogue.get(code);
    if (!entry) throw new Error(`${code} is not in the catalogue of ${this.model.product.name}`);
    return entry;
  }

  /** Makes a call and checks its answer (see the file's comment); records codes and successes. */
  async call(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.as) headers.authorization = `Bearer ${options.as.token}`;
    let payload: string | undefined;
    if (options.raw !== undefined) payload = options.raw;
    else if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
    if (options.ifMatch !== undefined) headers['if-match'] = options.ifMatch;
    const response = await fetch(`${this.url}${path}`, { method, headers, body: payload });
    const text = await response.text();
    const what = `${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`;
    expect(response.status, what).toBeLessThan(500);
    for (const leak of LEAKS) expect(leak.test(text), `${what}\nThe body matches ${leak}`).toBe(false);
    const type = response.headers.get('content-type') ?? '';
    const parsed: Json = text === '' ? null : JSON.parse(text);
    const answer: Answer = { status: response.status, headers: response.headers, body: parsed, text };
    if (response.status >= 400) this.#checkProblem(path, answer, what);
    else {
      if (response.status === 204) expect(text, what).toBe('');
      else expect(type, what).toMatch(/^application\/json/);
      const route = this.#routes.find((r) => r.method === method && r.pattern.test(path.split('?', 1)[0] ?? ''));
      if (route) this.succeeded.add(route.key);
    }
    return answer;
  }

  /**
   * Asserts the answer is `code` (its catalogued status was checked on arrival) and, when given,
   * that its field errors are exactly these `[field, code]` pairs, in any order.
   */
  expectProblem(answer: Answer, code: string, errors?: readonly FieldErrorPair[]): void {
    expect(answer.body?.code, answer.text).toBe(code);
    expect(answer.status).toBe(this.entry(code).status);
    if (errors === undefined) return;
    const pairs = ((answer.body.errors ?? []) as { field: string | null; code: string }[]).map(
      (e): FieldErrorPair => [e.field, e.code],
    );
    expect(sortPairs(pairs), answer.text).toEqual(sortPairs(errors));
  }

  /**
   * Every code of the catalogue (point 8 and the built-ins) was answered at least once, except
   * `excluded`; an excluded code must be in the catalogue and must not have been answered.
   */
  expectCatalogueCovered(excluded: Readonly<Record<string, string>>): void {
    const codes = [...this.#catalogue.keys()];
    const unknown = Object.keys(excluded).filter((c) => !this.#catalogue.has(c));
    expect(unknown, 'excluded codes that are not in the catalogue').toEqual([]);
    const missing = codes.filter((c) => !Object.hasOwn(excluded, c) && !this.seen.has(c));
    expect(missing, 'catalogued codes no answer of the walk carried').toEqual([]);
    const stale = Object.keys(excluded).filter((c) => this.seen.has(c));
    expect(stale, 'excluded codes that were answered: remove their exclusion').toEqual([]);
  }

  /** Every call the server serves answered 2xx at least once, except `unreachable` (with reasons). */
  expectEveryCallSucceeded(unreachable: Readonly<Record<string, string>>): void {
    const calls = this.calls;
    const unknown = Object.keys(unreachable).filter((c) => !calls.includes(c));
    expect(unknown, 'unreachable calls the server does not serve').toEqual([]);
    const missing = calls.filter((c) => !Object.hasOwn(unreachable, c) && !this.succeeded.has(c));
    expect(missing, 'calls that never succeeded in the walk').toEqual([]);
    const stale = Object.keys(unreachable).filter((c) => this.succeeded.has(c));
    expect(stale, 'calls listed as unreachable that succeeded: remove them from the list').toEqual([]);
  }

  #checkProblem(path: string, answer: Answer, what: string): void {
    expect(answer.headers.get('content-type'), what).toMatch(/^application\/problem\+json/);
    const body = answer.body;
    expect(body, what).toMatchObject({
      type: expect.any(String),
      code: expect.any(String),
      title: expect.any(String),
      status: answer.status,
      detail: expect.any(String),
      instance: path.split('?', 1)[0],
    });
    expect(body.title.length, what).toBeGreaterThan(0);
    expect(body.detail.length, what).toBeGreaterThan(0);
    const entry = this.#catalogue.get(body.code);
    expect(entry, `${what}\n${body.code} is not in the catalogue`).toBeDefined();
    expect(answer.status, `${what}\n${body.code} is catalogued with status ${entry?.status}`).toBe(entry?.status);
    expect(body.type, what).toBe(`${PROBLEM_TYPE_PREFIX}${body.code}`);
    this.#saw(body.code);
    if (body.spec !== undefined) expectSpecLine(body.spec, what);
    if (body.errors === undefined) return;
    expect(Array.isArray(body.errors), what).toBe(true);
    for (const error of body.errors as unknown[]) {
      const { field, code, message, spec, ...rest } = error as Record<string, unknown>;
      expect(rest, what).toEqual({});
      if (spec !== undefined) expectSpecLine(spec, what);
      expect(field === null || typeof field === 'string', `${what}\nfield must be a string or null`).toBe(true);
      expect(typeof message === 'string' && message.length > 0, `${what}\nmessage must be text`).toBe(true);
      expect(typeof code, what).toBe('string');
      expect(this.#catalogue.has(String(code)), `${what}\nfield error ${code} is not in the catalogue`).toBe(true);
      this.#saw(String(code));
    }
  }

  #saw(code: string): void {
    this.seen.set(code, (this.seen.get(code) ?? 0) + 1);
  }
}

/** A refusal's spec line: the line of the spec behind it (1-based) and that line's words. */
function expectSpecLine(spec: unknown, what: string): void {
  const { line, text, ...rest } = spec as Record<string, unknown>;
  expect(rest, `${what}\nspec has only line and text`).toEqual({});
  expect(Number.isInteger(line) && Number(line) >= 1, `${what}\nspec.line must be a line number`).toBe(true);
  expect(typeof text === 'string' && text.length > 0, `${what}\nspec.text must be the line's words`).toBe(true);
}

/** Calls made as one user (or a signed-out visitor) through a walk, which checks and records them. */
export class Client {
  readonly walk: Walk;
  readonly user: User | null;

  constructor(walk: Walk, user: User | null) {
    this.walk = walk;
    this.user = user;
  }

  call(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<Answer> {
    return this.walk.call(method, path, body, { as: this.user, ...options });
  }

  get(path: string): Promise<Answer> {
    return this.call('GET', path);
  }

  post(path: string, body?: unknown, options?: CallOptions): Promise<Answer> {
    return this.call('POST', path, body, options);
  }

  patch(path: string, body: unknown, options?: CallOptions): Promise<Answer> {
    return this.call('PATCH', path, body, options);
  }

  put(path: string, body: unknown, options?: CallOptions): Promise<Answer> {
    return this.call('PUT', path, body, options);
  }

  delete(path: string, options?: CallOptions): Promise<Answer> {
    return this.call('DELETE', path, undefined, options);
  }

  /** Creates a record: 201, its ETag "1" and a Location naming it. Returns the record. */
  async create(path: string, body: unknown): Promise<Json> {
    const answer = await this.post(path, body);
    expect(answer.status, answer.text).toBe(201);
    expect(answer.headers.get('etag')).toBe('"1"');
    expect(answer.headers.get('location')).toBe(`${path}/${answer.body.id}`);
    return answer.body;
  }
}

function sortPairs(pairs: readonly FieldErrorPair[]): FieldErrorPair[] {
  const key = (p: FieldErrorPair) => `${p[0] ?? ''}\u0000${p[1]}`;
  return [...pairs].sort((a, b) => key(a).localeCompare(key(b)));
}

/** Every record of a list, page by page along `next`; asserts each page holds at most `limit`. */
export async function readAll(walk: Client, path: string, limit: number): Promise<Json[]> {
  const items: Json[] = [];
  const join = path.includes('?') ? '&' : '?';
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page++) {
    const suffix: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const answer = await walk.get(`${path}${join}limit=${limit}${suffix}`);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.items.length).toBeLessThanOrEqual(limit);
    items.push(...answer.body.items);
    cursor = answer.body.next;
    if (cursor === null) return items;
    expect(answer.body.items.length).toBe(limit);
  }
  throw new Error(`${path} did not end after 1000 pages`);
}

/** `POST /api/auth/sign-in` as a browser would, without an API token. */
export function signIn(walk: Walk, email: string, password: string): Promise<Answer> {
  return walk.call('POST', '/api/auth/sign-in', { email, password });
}

/** The `name=value` of the session cookie an answer sets. */
export function sessionCookie(answer: Answer): string {
  const set = answer.headers.getSetCookie().find((c) => /^(__Host-)?np_session=/.test(c));
  expect(set, 'the answer sets no session cookie').toBeDefined();
  return (set ?? '').split(';', 1)[0] ?? '';
}

/**
 * Walks a session: a wrong password (SIGN_IN_FAILED), sign-in, `me`, a read with the cookie, a
 * write with the cookie from another site (FORBIDDEN) and from the app's own origin, sign-out, and
 * an unknown API token (NOT_SIGNED_IN). `write` must succeed when it is allowed.
 */
export async function walkSession(
  walk: Walk,
  user: User,
  read: string,
  write: { method: string; path: string; body?: unknown },
): Promise<Answer> {
  walk.expectProblem(await signIn(walk, user.email, 'not the password at all'), 'SIGN_IN_FAILED');
  const signedIn = await signIn(walk, user.email.toUpperCase(), user.password);
  expect(signedIn.status, signedIn.text).toBe(200);
  expect(signedIn.body.user).toMatchObject({ id: user.id, email: user.email, roles: [...user.roles] });
  const cookie = sessionCookie(signedIn);
  const me = await walk.call('GET', '/api/auth/me', undefined, { headers: { cookie } });
  expect(me.body.user.id).toBe(user.id);
  expect((await walk.call('GET', read, undefined, { headers: { cookie } })).status).toBe(200);

  const forged = await walk.call(write.method, write.path, write.body, { headers: { cookie } });
  walk.expectProblem(forged, 'FORBIDDEN');
  const elsewhere = { cookie, origin: 'https://evil.example' };
  walk.expectProblem(await walk.call(write.method, write.path, write.body, { headers: elsewhere }), 'FORBIDDEN');
  const own = await walk.call(write.method, write.path, write.body, { headers: { cookie, origin: walk.url } });
  expect(own.status, own.text).toBeLessThan(300);

  const out = await walk.call('POST', '/api/auth/sign-out', undefined, { headers: { cookie, origin: walk.url } });
  expect(out.status).toBe(204);
  expect((await walk.call('GET', '/api/auth/me', undefined, { headers: { cookie } })).body.user).toBeNull();
  const forgedToken = { authorization: 'Bearer npt_this-token-was-never-made' };
  walk.expectProblem(await walk.call('GET', read, undefined, { headers: forgedToken }), 'NOT_SIGNED_IN');
  return own;
}

/**
 * Fails sign-in with a wrong password until SIGN_IN_LOCKED (at most SIGN_IN_ATTEMPTS_PER_15_MINUTES
 * failures), after which even the right password is refused. Locks the address too: run it last.
 */
export async function walkLockout(walk: Walk, user: User): Promise<void> {
  const attempts = walk.settings.SIGN_IN_ATTEMPTS_PER_15_MINUTES;
  let answer: Answer | undefined;
  for (let i = 0; i <= attempts; i++) {
    answer = await signIn(walk, user.email, 'still not the password');
    if (answer.body.code !== 'SIGN_IN_FAILED') break;
  }
  if (!answer) throw new Error('no sign-in was tried');
  walk.expectProblem(answer, 'SIGN_IN_LOCKED');
  walk.expectProblem(await signIn(walk, user.email, user.password), 'SIGN_IN_LOCKED');
}

/**
 * A deactivated account (ACCOUNT_DEACTIVATED): its token stops working, and signing in with the
 * right password is refused as deactivated. Who may deactivate whom is `http/user-admin.test.ts`.
 */
export async function walkDeactivation(walk: Walk, user: User, path: string): Promise<void> {
  expect((await walk.as(user).get(path)).status).toBe(200);
  await walk.deactivate(user);
  walk.expectProblem(await walk.as(user).get(path), 'NOT_SIGNED_IN');
  walk.expectProblem(await signIn(walk, user.email, user.password), 'ACCOUNT_DEACTIVATED');
}

/**
 * A password reset link that no mail carried (RESET_LINK_INVALID), and the request for one that
 * answers the same for any address. The whole flow, with its mail, is `e2e/app-password-reset`.
 */
export async function walkPasswordReset(walk: Walk): Promise<void> {
  const asked = await walk.call('POST', '/api/auth/password-reset', { email: 'nobody@example.test' });
  expect(asked.status).toBe(202);
  const used = await walk.call('POST', '/api/auth/password-reset/confirm', {
    token: 'npr_not-a-link-anybody-was-sent',
    password: 'a long enough new password',
  });
  walk.expectProblem(used, 'RESET_LINK_INVALID');
}

/**
 * A sign-up confirmation link and an invitation link that no mail carried (VERIFY_LINK_INVALID,
 * INVITATION_INVALID). The whole flows, with their mails, are `e2e/app-joining`.
 */
export async function walkJoiningLinks(walk: Walk): Promise<void> {
  const verified = await walk.call('POST', '/api/auth/verify-email', {
    token: 'npv_not-a-link-anybody-was-sent',
    password: 'a long enough new password',
  });
  walk.expectProblem(verified, 'VERIFY_LINK_INVALID');
  const accepted = await walk.call('POST', '/api/invitations/accept', {
    token: 'npi_not-a-link-anybody-was-sent',
    name: 'Nobody',
    password: 'a long enough new password',
  });
  walk.expectProblem(accepted, 'INVITATION_INVALID');
}

/**
 * Calls `path` as `client` until RATE_LIMITED: at most RATE_LIMIT_PER_MINUTE calls succeed in a
 * minute (twice that if the minute turns over meanwhile). Use a user who makes no other call.
 */
export async function walkRateLimit(client: Client, path: string): Promise<void> {
  const limit = client.walk.settings.RATE_LIMIT_PER_MINUTE;
  let succeeded = 0;
  const batch = 50;
  while (succeeded <= 2 * limit) {
    const answers = await Promise.all(Array.from({ length: batch }, () => client.get(path)));
    const refused = answers.find((a) => a.status !== 200);
    succeeded += answers.filter((a) => a.status === 200).length;
    if (refused) {
      client.walk.expectProblem(refused, 'RATE_LIMITED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(succeeded).toBeGreaterThanOrEqual(Math.min(limit, batch));
      return;
    }
  }
  throw new Error(`${succeeded} calls of ${path} succeeded without RATE_LIMITED (the limit is ${limit} a minute)`);
}
