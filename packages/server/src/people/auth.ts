import type { PeopleAccess, RuntimeSettings } from '@ninepoint/spec';
import type { FastifyInstance, FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify';
import { type AccessSummary, type Actor, VISITOR } from '../compile/permissions.ts';
import { ProblemError } from '../compile/problems.ts';
import { sameOrigin } from '../http/same-origin.ts';
import { andThen } from '../store/sql-runner.ts';
import type { MaybePromise } from '../store/step.ts';
import { UUID } from '../store/uuidv7.ts';
import type { AuthStore } from './auth-store.ts';
import { clearCookie, readCookies, registerCookies, setCookie } from './cookies.ts';
import { type Credential, requestCredential } from './credentials.ts';
import { verifyPassword } from './passwords.ts';
import { tell } from './people-events.ts';
import { SECURE_SESSION_COOKIE, SESSION_COOKIE, SIGN_IN_SCHEMA } from './people-schemas.ts';
import { LastPerConnection } from './per-connection.ts';
import { RateLimiter } from './rate-limiter.ts';
import { looksLikeSecret, newSecret, secretHash, secretHashOn } from './secrets.ts';
import type { SessionFound } from './sessions-store.ts';
import { attemptSignIn, pruneSignInCounters } from './sign-in-lockout.ts';
import type { TokenFound } from './tokens-store.ts';
import { listAccountsFor } from './user-admin.ts';
import { normalizeEmail } from './user-rows.ts';
import type { UserAccount } from './users-store.ts';

/** Who a request is from, as the handlers see it. */
export interface RequestActor extends Actor {
  user: UserAccount | null;
  /** How the user proved who they are; null for a visitor. */
  via: 'session' | 'token' | null;
  /** A session started with a passkey: it satisfies `requires two-factor` (passkeys.ts). */
  passkey?: boolean;
}

// The cookie names and the sign-in body live with the OpenAPI document's schemas: one source for both.
export { SECURE_SESSION_COOKIE, SESSION_COOKIE, SIGN_IN_SCHEMA };

declare module 'fastify' {
  interface FastifyRequest {
    actor: RequestActor;
  }
}

/** A session's last use is written at most this often: not a database write per request. */
const TOUCH_EVERY_MS = 60_000;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const VISITOR_ACTOR: RequestActor = Object.freeze({ ...VISITOR, user: null, via: null });

/**
 * Signs a request's browser in as a user whose identity is already proven: ends the session the
 * browser had (no fixation), starts a new one and sets its cookie. Password sign-in and dev mode's
 * sign-in-as (`dev-mode.ts`) both go through it.
 */
/** Where the web app's hashed, immutable files are served (see web-app.ts). */
const ASSETS_PREFIX = '/assets/';

export type SignIn = (
  request: FastifyRequest,
  reply: FastifyReply,
  user: UserAccount,
  signedInWith?: 'passkey',
) => Promise<void>;

export interface AuthOptions {
  auth: AuthStore;
  settings: Readonly<RuntimeSettings>;
  /** What the actor may do per entity, answered by `GET /api/auth/me` for the web app. */
  accessOf?: (actor: Actor) => Record<string, AccessSummary>;
  /** What a signed-in actor may do with people's accounts (point 6's `people` column). */
  peopleOf?: (actor: Actor) => PeopleAccess;
  /** The roles people may sign up to themselves (point 6's `joins` column). */
  signUp?: readonly { role: string; domains: string[] }[];
  /** Sign-in with an OpenID Connect provider: what its button says and where it starts. */
  singleSignOn?: { name: string; start: string } | null;
  /** Whether an actor may search the user directory (`GET /api/users`); default: any signed-in user. */
  mayPickUsers?: (actor: Actor) => boolean;
  /**
   * Of some user ids, those an actor who may not pick users may see named (`namedUsers`): the
   * directory answers by id about those only. Default: all of them.
   */
  namedUsers?: (actor: Actor, ids: readonly string[]) => Promise<ReadonlySet<string>>;
  /**
   * Whether an actor's roles let them manage people: `GET /api/users` then lists every account
   * with email, roles and status (`listAccountsFor`); default: nobody.
   */
  managesPeople?: (actor: Actor) => boolean;
  /**
   * Starts the second step of a sign-in whose password was right, for a user whose second factor
   * is on (`two-factor.ts`): answers what `POST /api/auth/sign-in` then says (202), having set the
   * cookie of the sign-in waiting for its code.
   */
  secondStep?: (request: FastifyRequest, reply: FastifyReply, user: UserAccount) => Promise<SecondStepAnswer>;
  /** What `GET /api/auth/me` says of the caller's second factor (null: signed out, or no such thing). */
  twoFactorOf?: (actor: RequestActor) => Promise<TwoFactorStatus | null>;
  /** Told of each sign-out, with the session or token it ended (`PeopleEvents`). */
  signedOut?: (credential: Credential) => void;
  /** For tests: the clock. */
  now?: () => number;
}

/** What a sign-in answers when it waits for its second step. */
export interface SecondStepAnswer {
  secondStep: 'two-factor';
  expiresAt: string;
}

/** A signed-in user's second factor as `GET /api/auth/me` tells it. */
export interface TwoFactorStatus {
  /** Whether their sign-in asks for a code. */
  enabled: boolean;
  /** Whether one of their roles requires it (point 6's `sign in` column). */
  required: boolean;
  /** How many unused recovery codes they have. */
  recoveryCodesLeft: number;
}

/**
 * Sign-in, sessions, API tokens, CSRF protection and rate limits, for every call:
 *
 * - `Authorization: Bearer npt_…` authenticates a machine client; a token that is unknown or
 *   revoked answers NOT_SIGNED_IN (never a silent visitor).
 * - The session cookie authenticates a browser: HttpOnly, SameSite=Lax, `Secure` and `__Host-`
 *   over HTTPS. Sign-in always makes a new session (the old one, if any, ends: no fixation); a
 *   session ends after `SESSION_IDLE_MINUTES` unused or `SESSION_MAX_HOURS` after sign-in.
 * - A state-changing call authenticated by the cookie must come from the app's own origin
 *   (`Origin`, or `Sec-Fetch-Site: same-origin`); otherwise FORBIDDEN. Tokens are not sent by
 *   browsers on their own, so token calls need no such check.
 * - Failed sign-ins are counted per account and per address over 15 minutes; past
 *   `SIGN_IN_ATTEMPTS_PER_15_MINUTES` the answer is SIGN_IN_LOCKED, before the password is looked at.
 * - Every call counts against `RATE_LIMIT_PER_MINUTE` for its user, or its address when signed out.
 */
export function registerAuth(app: FastifyInstance, options: AuthOptions): { limiter: RateLimiter; signIn: SignIn } {
  const { auth, settings } = options;
  const now = options.now ?? Date.now;
  const idleMs = settings.SESSION_IDLE_MINUTES * 60_000;
  const maxMs = settings.SESSION_MAX_HOURS * 3_600_000;
  const attempts = settings.SIGN_IN_ATTEMPTS_PER_15_MINUTES;
  const limiter = new RateLimiter(auth.counters, settings.RATE_LIMIT_PER_MINUTE, { now });

  // Cookies are read by the preParsing hook below, and written when set (cookies.ts): no hook of
  // their own on every call.
  registerCookies(app);
  // Set for every request by the preParsing hook below, before any handler runs.
  app.decorateRequest('actor', null as unknown as RequestActor);
  app.addHook('onClose', async () => {
    await limiter.close();
  });

  const cookieName = (request: FastifyRequest) =>
    request.protocol === 'https' ? SECURE_SESSION_COOKIE : SESSION_COOKIE;

  const clearSession = (request: FastifyRequest, reply: FastifyReply) => {
    const secure = request.protocol === 'https';
    clearCookie(reply, cookieName(request), { path: '/', httpOnly: true, sameSite: 'lax', secure });
  };

  /**
   * Admits a request as `actor` (or refuses it, `refusal`): the rate limit first, since a refused
   * credential still counts against its address (guessing tokens is rate limited too), then the
   * cross-site check of cookie-signed calls. Calls `done` at once when the limiter can decide alone.
   */
  const admit = (
    request: FastifyRequest,
    reply: FastifyReply,
    actor: RequestActor,
    refusal: unknown,
    payload: RequestPayload,
    done: PreParsingDone,
  ): void => {
    request.actor = actor;
    const taken = limiter.take(actor.user ? userLimitKey(actor.user) : addressLimitKey(request));
    if (typeof taken === 'boolean') finish(done, payload, admission(request, reply, taken, refusal));
    else
      taken.then(
        (ok) => finish(done, payload, admission(request, reply, ok, refusal)),
        (error: unknown) => finish(done, payload, error),
      );
  };

  const admission = (request: FastifyRequest, reply: FastifyReply, taken: boolean, refusal: unknown): unknown => {
    if (!taken) {
      reply.header('retry-after', String(limiter.retryAfterSeconds()));
      return new ProblemError('RATE_LIMITED');
    }
    if (refusal !== null) return refusal;
    if (request.actor.via === 'session' && !SAFE_METHODS.has(request.method) && !sameOrigin(request)) {
      return new ProblemError(
        'FORBIDDEN',
        {},
        {
          detail:
            'A state-changing call signed in by cookie must come from this app’s own pages (cross-site request refused).',
        },
      );
    }
    return null;
  };

  // preParsing: before the body is read. A callback hook, not an async one: on SQLite a call's
  // token or session is found at once, and the call is admitted without a promise.
  app.addHook('preParsing', (request, reply, payload, done) => {
    request.cookies = readCookies(request.headers.cookie, request.raw.socket);
    // An actor already set is an in-process call of the app's own code (a module beside the spec,
    // `code/`, named by a secret that exists while it runs): it acts for a request that was
    // admitted already, so it is neither found again nor counted against the rate limit.
    if (request.actor !== null) {
      done(null, payload);
      return;
    }
    // The web app's hashed files are public and served from memory: they need no user, and a page
    // loads a dozen of them, which must not spend the rate limit the calls are held to.
    if (request.method === 'GET' && request.url.startsWith(ASSETS_PREFIX)) {
      request.actor = VISITOR_ACTOR;
      done(null, payload);
      return;
    }
    let actor: MaybePromise<RequestActor>;
    try {
      actor = resolveActor(request, reply);
    } catch (error) {
      admit(request, reply, VISITOR_ACTOR, error, payload, done);
      return;
    }
    if (actor instanceof Promise) {
      actor.then(
        (found) => admit(request, reply, found, null, payload, done),
        (error: unknown) => admit(request, reply, VISITOR_ACTOR, error, payload, done),
      );
    } else admit(request, reply, actor, null, payload, done);
  });

  /** Who a request is from, by its token or its session cookie; throws NOT_SIGNED_IN for a bad token. */
  const resolveActor = (request: FastifyRequest, reply: FastifyReply): MaybePromise<RequestActor> => {
    const authorization = request.headers.authorization;
    if (authorization !== undefined) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      const hash = secretHashOn(request.raw.socket, 'token', match?.[1] ?? '');
      return andThen(hash === undefined ? undefined : auth.tokens.user(hash, true), tokenActor);
    }
    const secret = request.cookies[cookieName(request)];
    if (secret === undefined) return VISITOR_ACTOR;
    const hash = secretHashOn(request.raw.socket, 'session', secret);
    if (hash === undefined) {
      clearSession(request, reply);
      return VISITOR_ACTOR;
    }
    const session = auth.sessions.get(hash, true);
    // No closure per call where the session was found at once (SQLite, or kept from lately).
    if (session instanceof Promise) return session.then((found) => sessionActor(request, reply, hash, found));
    return sessionActor(request, reply, hash, session);
  };

  const tokenActor = (found: TokenFound | undefined): MaybePromise<RequestActor> => {
    if (!found) {
      throw new ProblemError('NOT_SIGNED_IN', {}, { detail: 'The API token is not valid, or it was revoked.' });
    }
    const actor: RequestActor = { userId: found.user.id, roles: found.user.roles, user: found.user, via: 'token' };
    const at = now();
    if (found.lastUsedAt !== null && at - found.lastUsedAt <= TOUCH_EVERY_MS) return actor;
    return auth.tokens.touch(found.tokenId, at).then(() => actor);
  };

  const sessionActor = (
    request: FastifyRequest,
    reply: FastifyReply,
    hash: string,
    session: SessionFound | undefined,
  ): MaybePromise<RequestActor> => {
    const at = now();
    if (!session || at >= session.expiresAt || at - session.lastSeenAt >= idleMs) {
      clearSession(request, reply);
      return session ? auth.sessions.end(hash).then(() => VISITOR_ACTOR) : VISITOR_ACTOR;
    }
    const actor: RequestActor = {
      userId: session.user.id,
      roles: session.user.roles,
      user: session.user,
      via: 'session',
    };
    if (session.passkey) actor.passkey = true;
    if (at - session.lastSeenAt <= TOUCH_EVERY_MS) return actor;
    return auth.sessions.touch(hash, at).then(() => actor);
  };

  const signIn: SignIn = async (request, reply, user, signedInWith) => {
    // A new session id at every sign-in; any session the browser had ends here.
    const previous = request.cookies[cookieName(request)];
    if (previous !== undefined && looksLikeSecret('session', previous)) await auth.sessions.end(secretHash(previous));
    const secret = newSecret('session');
    const at = now();
    const expiresAt = at + maxMs;
    await auth.sessions.create(secretHash(secret), user.id, at, expiresAt, signedInWith ?? null);
    request.log.info({ user: user.id }, 'signed in');
    const secure = request.protocol === 'https';
    setCookie(reply, cookieName(request), secret, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure,
      expires: new Date(expiresAt),
    });
  };

  app.post('/api/auth/sign-in', { schema: { body: SIGN_IN_SCHEMA } }, async (request, reply) => {
    if (request.headers.origin !== undefined && !sameOrigin(request)) {
      throw new ProblemError('FORBIDDEN', {}, { detail: 'Sign-in must come from this app’s own pages.' });
    }
    const { email, password } = request.body as { email: string; password: string };
    const at = now();
    const keys = [`sign-in:account:${normalizeEmail(email)}`, `sign-in:address:${request.ip}`];
    const attempt = await attemptSignIn(auth.counters, keys, attempts, at);
    if (attempt.locked) {
      request.log.warn({ key: attempt.key.startsWith('sign-in:account') ? 'account' : 'address' }, 'sign-in locked');
      reply.header('retry-after', String(attempt.retryAfter));
      throw new ProblemError('SIGN_IN_LOCKED');
    }
    const found = await auth.users.forSignIn(email);
    const ok = await verifyPassword(found?.passwordHash ?? null, password);
    if (!found || !ok) {
      await pruneSignInCounters(auth.counters, at, 'sign-in:');
      request.log.warn('sign-in failed');
      throw new ProblemError('SIGN_IN_FAILED');
    }
    await attempt.release();
    // Said only to whoever knows the password: a wrong one answers SIGN_IN_FAILED as for anyone.
    if (!found.active) {
      request.log.warn({ user: found.user.id }, 'sign-in of a deactivated account');
      throw new ProblemError('ACCOUNT_DEACTIVATED');
    }
    // With a second factor on, the password alone makes no session: a sign-in waits for its code.
    if (options.secondStep && (await auth.twoFactor.enabled(found.user.id))) {
      const pending = await options.secondStep(request, reply, found.user);
      return reply.code(202).send(pending);
    }
    await signIn(request, reply, found.user);
    return reply.send({ user: found.user });
  });

  app.post('/api/auth/sign-out', async (request, reply) => {
    const secret = request.cookies[cookieName(request)];
    const credential = options.signedOut ? requestCredential(request) : null;
    if (secret !== undefined && looksLikeSecret('session', secret)) await auth.sessions.end(secretHash(secret));
    clearSession(request, reply);
    if (credential) tell(request, () => options.signedOut?.(credential));
    return reply.code(204).send();
  });

  app.get('/api/auth/me', async (request, reply) =>
    reply.send({
      user: request.actor.user,
      access: options.accessOf?.(request.actor) ?? {},
      people: request.actor.user === null ? null : (options.peopleOf?.(request.actor) ?? null),
      signUp: options.signUp ?? [],
      singleSignOn: options.singleSignOn ?? null,
      twoFactor: (await options.twoFactorOf?.(request.actor)) ?? null,
    }),
  );

  // The people a field referring to `User` may name, for pickers: open to those who may write
  // such a field. Of another user it shows the id and the name only (see `directoryEntry`). To
  // those who manage people it lists every account instead, with email, roles and status.
  app.get('/api/users', async (request, reply) => {
    if (request.actor.user === null) throw new ProblemError('NOT_SIGNED_IN');
    const query = request.query as Record<string, string | string[] | undefined>;
    if (query.id === undefined && options.managesPeople?.(request.actor) === true) {
      return reply.send(await listAccountsFor(auth, query));
    }
    const unknown = Object.keys(query).find((k) => k !== 'q' && k !== 'limit' && k !== 'id');
    if (unknown !== undefined) throw invalid('the only parameters are q, limit and id');
    if (query.id !== undefined) {
      // Users by id, for showing who a record or its history names. Those who may pick users or
      // manage people could find anyone by name; anyone else learns only the names of the users
      // the records they read show them: an id does not name its user to just anybody.
      const ids = (Array.isArray(query.id) ? query.id : [query.id]).map((id) => id.toLowerCase());
      if (ids.length > 100 || ids.some((id) => !UUID.test(id))) throw invalid('id must be up to 100 user ids');
      if (query.q !== undefined || query.limit !== undefined) throw invalid('id cannot be combined with q or limit');
      const everyone =
        options.namedUsers === undefined ||
        options.managesPeople?.(request.actor) === true ||
        (options.mayPickUsers?.(request.actor) ?? true);
      const asked = everyone ? ids : [...((await options.namedUsers?.(request.actor, ids)) ?? [])];
      const found = asked.length === 0 ? [] : await auth.users.byIds(asked);
      return reply.send({ items: found.map((user) => directoryEntry(user, request.actor)) });
    }
    if (!(options.mayPickUsers?.(request.actor) ?? true)) {
      throw new ProblemError(
        'FORBIDDEN',
        {},
        { detail: 'The user directory is for those who may fill in a User field.' },
      );
    }
    const q = query.q ?? '';
    const limitText = query.limit ?? '20';
    if (typeof q !== 'string' || q.length > 200 || q.includes('\u0000')) {
      throw invalid('q must be one text of at most 200 characters');
    }
    if (
      typeof limitText !== 'string' ||
      !/^\d{1,3}$/.test(limitText) ||
      Number(limitText) < 1 ||
      Number(limitText) > 100
    ) {
      throw invalid('limit must be a whole number from 1 to 100');
    }
    const found = await auth.users.find(q, Number(limitText), 'name');
    return reply.send({ items: found.map((user) => directoryEntry(user, request.actor)) });
  });

  return { limiter, signIn };
}

type RequestPayload = Parameters<preParsingHookHandler>[2];
type PreParsingDone = Parameters<preParsingHookHandler>[3];

/** Ends the preParsing hook: on with the payload, or the error that refuses the call. */
function finish(done: PreParsingDone, payload: RequestPayload, error: unknown): void {
  if (error === null) done(null, payload);
  else done(error as Error);
}

/** Each account's rate-limit key, made once for the account object kept with its session or token. */
const userKeys = new WeakMap<UserAccount, string>();

/** The key a user's calls count under (`RateLimiter.take`), without a new string per call. */
function userLimitKey(user: UserAccount): string {
  let key = userKeys.get(user);
  if (key === undefined) {
    key = `user:${user.id}`;
    userKeys.set(user, key);
  }
  return key;
}

/** Each connection's last address and its key (behind a proxy, the address may change). */
const addressKeys = new LastPerConnection<string, string>((ip) => `ip:${ip}`);

/** The key a visitor's calls count under: their address's. */
function addressLimitKey(request: FastifyRequest): string {
  return addressKeys.get(request.raw.socket, request.ip);
}

/** A user as the directory shows them: only the caller's own entry holds their email and roles. */
export type DirectoryEntry = UserAccount | Pick<UserAccount, 'id' | 'name'>;

/**
 * What the user directory shows the actor of a user: the whole account when it is their own,
 * else the id and the name, all a picker or a record's "by" needs. Emails and roles are for
 * those who manage people: their `GET /api/users` lists accounts (`listAccountsFor`).
 */
export function directoryEntry(user: UserAccount, actor: Actor): DirectoryEntry {
  return user.id === actor.userId ? user : { id: user.id, name: user.name };
}

function invalid(detail: string): ProblemError {
  return new ProblemError('INVALID_PAYLOAD', { detail });
}
