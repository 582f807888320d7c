import type { RuntimeSettings, SpecLine } from '@ninepoint/spec';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../compile/problems.ts';
import { sameOrigin } from '../http/same-origin.ts';
import { recordAccountEvent } from './accounts.ts';
import type { RequestActor, SecondStepAnswer, SignIn, TwoFactorStatus } from './auth.ts';
import type { AuthStore } from './auth-store.ts';
import { clearCookie, setCookie } from './cookies.ts';
import { isDemoEmail } from './dev-mode.ts';
import { managedUserId, strictCookieOptions } from './managed-account.ts';
import { PASSKEY_ROUTES } from './passkeys.ts';
import { verifyPassword } from './passwords.ts';
import {
  CONFIRM_TWO_FACTOR_SCHEMA,
  DISABLE_TWO_FACTOR_SCHEMA,
  PENDING_SIGN_IN_COOKIE,
  SECOND_STEP_SCHEMA,
  SECURE_PENDING_SIGN_IN_COOKIE,
} from './people-schemas.ts';
import type { SecretSealer } from './secret-key.ts';
import { looksLikeSecret, newSecret, secretHash } from './secrets.ts';
import { attemptSignIn, pruneSignInCounters } from './sign-in-lockout.ts';
import { codeStep, newRecoveryCodes, newTotpSecret, qrDataUrl, recoveryCodeHash, totpUri } from './totp.ts';
import type { UserAccount } from './users-store.ts';

/** Two-factor sign-in's calls. */
export const TWO_FACTOR_ROUTES = {
  /** `POST {code} | {recoveryCode}`: the second step of a sign-in; makes the session. */
  secondStep: '/api/auth/sign-in/two-factor',
  /** `POST`: a new secret, its QR code; not on until confirmed. */
  enrol: '/api/auth/two-factor/enrol',
  /** `POST {code}`: turns it on; answers the recovery codes. */
  confirm: '/api/auth/two-factor/confirm',
  /** `POST {code} | {recoveryCode} | {password}`: turns it off. */
  disable: '/api/auth/two-factor/disable',
  /** `DELETE`: those who manage people turn off a user's second factor. */
  reset: '/api/users/:id/two-factor',
} as const;

/** How long a sign-in waits for its code after the password was right. */
export const SECOND_STEP_MINUTES = 5;
/** Wrong codes one waiting sign-in may take before it ends (the account's own lockout counts too). */
export const SECOND_STEP_TRIES = 5;

/**
 * What a user whose role requires two-factor sign-in and who has not set it up may still call:
 * who they are, signing out, setting it up, and what every visitor may read. Pages (not `/api/`)
 * are served: the web app then shows nothing but the enrolment screen.
 */
const OPEN_WHILE_ENROLLING = new Set([
  '/api/auth/me',
  '/api/auth/sign-out',
  TWO_FACTOR_ROUTES.enrol,
  TWO_FACTOR_ROUTES.confirm,
  // A passkey meets the requirement too: registered now, it signs them in without a code next time.
  PASSKEY_ROUTES.list,
  PASSKEY_ROUTES.registerOptions,
  PASSKEY_ROUTES.register,
  '/api/health',
  '/api/spec',
  '/api/openapi.json',
]);

export interface TwoFactorOptions {
  auth: AuthStore;
  settings: Readonly<RuntimeSettings>;
  sealer: SecretSealer;
  /** The issuer an authenticator app shows beside the account: the product's name. */
  issuer: string;
  /** Whether a user holding these roles must use a second factor (point 6's `sign in` column). */
  requiredFor: (roles: readonly string[]) => boolean;
  /** The row of point 6 whose `requires two-factor` holds these roles to it, for TWO_FACTOR_REQUIRED to name. */
  requiredBy: (roles: readonly string[]) => SpecLine | null;
  /**
   * Whether any role requires it: when none does, no one is held back and the hook that would
   * hold them is not added (every call would pass through it for nothing).
   */
  requiredForSome: boolean;
  /** Whether these roles let their holder manage people (who may reset a user's second factor). */
  manages: (roles: readonly string[]) => boolean;
  now: () => number;
}

/**
 * Two-factor sign-in (TOTP, RFC 6238) for password accounts:
 *
 * - enrolment: a new secret and its QR code; it is on only once a code from the app confirms it,
 *   which answers ten single-use recovery codes, shown once and kept as SHA-256;
 * - a sign-in whose password is right then makes no session: it waits, for `SECOND_STEP_MINUTES`,
 *   bound to the browser by an HttpOnly cookie holding a 256-bit secret (only its hash is kept),
 *   for a code (this step or one either side, never one accepted before) or a recovery code;
 *   wrong codes count against the account like wrong passwords (SIGN_IN_LOCKED), and a waiting
 *   sign-in ends after `SECOND_STEP_TRIES` of them;
 * - turning it off takes a current code, a recovery code or the password; those who manage people
 *   may reset it for a user (the account's history records it);
 * - a user whose role requires it and who has not set it up may call nothing but the calls
 *   enrolment needs (TWO_FACTOR_REQUIRED).
 */
export class TwoFactor {
  readonly #options: TwoFactorOptions;

  constructor(options: TwoFactorOptions) {
    this.#options = options;
  }

  /** Starts the second step of a sign-in: the waiting sign-in and its cookie (`AuthOptions.secondStep`). */
  readonly beginSecondStep = async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: UserAccount,
  ): Promise<SecondStepAnswer> => {
    const { auth, now } = this.#options;
    const secret = newSecret('pending');
    const at = now();
    const expiresAt = at + SECOND_STEP_MINUTES * 60_000;
    await auth.twoFactor.addPending(secretHash(secret), user.id, at, expiresAt);
    setCookie(reply, pendingCookie(request), secret, { ...strictCookieOptions(request), expires: new Date(expiresAt) });
    request.log.info({ user: user.id }, 'sign-in waits for its second step');
    return { secondStep: 'two-factor', expiresAt: new Date(expiresAt).toISOString() };
  };

  /** `GET /api/auth/me`'s `twoFactor` (`AuthOptions.twoFactorOf`). */
  readonly statusOf = async (actor: RequestActor): Promise<TwoFactorStatus | null> => {
    if (actor.user === null) return null;
    const { auth, requiredFor } = this.#options;
    const enabled = await auth.twoFactor.enabled(actor.user.id);
    return {
      enabled,
      // A session signed in with a passkey has met the requirement: nothing to set up before working.
      required: requiredFor(actor.roles) && !isDemoEmail(actor.user.email) && actor.passkey !== true,
      recoveryCodesLeft: enabled ? await auth.twoFactor.recoveryCodesLeft(actor.user.id) : 0,
    };
  };

  /** Registers the calls and the hook that holds back a user who must enrol first. */
  register(app: FastifyInstance, signIn: SignIn): void {
    const { auth, settings, sealer, issuer, requiredFor, requiredBy, manages, now } = this.#options;
    const attempts = settings.SIGN_IN_ATTEMPTS_PER_15_MINUTES;

    // Only sessions of users whose roles require it pay for a look-up; everyone else passes at once.
    if (this.#options.requiredForSome)
      app.addHook('preValidation', (request, _reply, done) => {
        const { actor } = request;
        if (
          actor.via !== 'session' ||
          actor.user === null ||
          actor.passkey === true ||
          !requiredFor(actor.roles) ||
          isDemoEmail(actor.user.email)
        ) {
          done();
          return;
        }
        const path = request.url.split('?')[0] ?? '';
        if (!path.startsWith('/api/') || OPEN_WHILE_ENROLLING.has(path) || path.startsWith('/api/docs')) {
          done();
          return;
        }
        auth.twoFactor.enabled(actor.user.id).then(
          (enabled) =>
            done(enabled ? undefined : new ProblemError('TWO_FACTOR_REQUIRED', {}, { spec: requiredBy(actor.roles) })),
          (error: unknown) => done(error as Error),
        );
      });

    /** Counts a code attempt against the account before it is checked (as wrong passwords are). */
    const attempt = async (request: FastifyRequest, reply: FastifyReply, userId: string) => {
      const tried = await attemptSignIn(auth.counters, [`two-factor:account:${userId}`], attempts, now());
      if (tried.locked) {
        request.log.warn({ user: userId }, 'two-factor locked');
        reply.header('retry-after', String(tried.retryAfter));
        throw new ProblemError('SIGN_IN_LOCKED');
      }
      return tried.release;
    };
    const failed = async (request: FastifyRequest, userId: string, what: string) => {
      await pruneSignInCounters(auth.counters, now(), 'two-factor:');
      request.log.warn({ user: userId }, what);
    };

    /** Whether a TOTP code is right for the user's confirmed factor, taking its time step once. */
    const totpAccepted = async (request: FastifyRequest, userId: string, code: string): Promise<boolean> => {
      const row = await auth.twoFactor.get(userId);
      if (!row || row.confirmedAt === null) return false;
      const secret = sealer.open(row.secret);
      if (secret === null) {
        request.log.error(
          { user: userId },
          'a two-factor secret cannot be read: it was sealed with another SECRET_KEY, or SECRET_KEY is not set',
        );
        return false;
      }
      const step = codeStep(secret, code, now());
      return step !== null && (await auth.twoFactor.takeStep(userId, step));
    };

    const recoveryAccepted = async (request: FastifyRequest, userId: string, code: string): Promise<boolean> => {
      const hash = recoveryCodeHash(code);
      if (hash === null || !(await auth.twoFactor.useRecoveryCode(userId, hash, now()))) return false;
      const left = await auth.twoFactor.recoveryCodesLeft(userId);
      await recordAccountEvent(auth, userId, { kind: 'recovery-code-used', left }, userId, now());
      request.log.info({ user: userId, left }, 'recovery code used');
      return true;
    };

    app.post(TWO_FACTOR_ROUTES.secondStep, { schema: { body: SECOND_STEP_SCHEMA } }, async (request, reply) => {
      if (request.headers.origin !== undefined && !sameOrigin(request)) {
        throw new ProblemError('FORBIDDEN', {}, { detail: 'Sign-in must come from this app’s own pages.' });
      }
      const secret = request.cookies[pendingCookie(request)];
      const hash = secret !== undefined && looksLikeSecret('pending', secret) ? secretHash(secret) : null;
      const pending = hash === null ? undefined : await auth.twoFactor.pending(hash);
      if (hash === null || !pending || now() >= pending.expiresAt || pending.failures >= SECOND_STEP_TRIES) {
        if (hash !== null) await auth.twoFactor.endPending(hash);
        clearCookie(reply, pendingCookie(request), strictCookieOptions(request));
        throw new ProblemError('TWO_FACTOR_EXPIRED');
      }
      const release = await attempt(request, reply, pending.userId);
      const body = request.body as { code?: string; recoveryCode?: string };
      const ok =
        body.code !== undefined
          ? await totpAccepted(request, pending.userId, body.code)
          : await recoveryAccepted(request, pending.userId, body.recoveryCode ?? '');
      if (!ok) {
        await failed(request, pending.userId, 'second step failed');
        if ((await auth.twoFactor.failPending(hash)) >= SECOND_STEP_TRIES) await auth.twoFactor.endPending(hash);
        throw new ProblemError('TWO_FACTOR_FAILED');
      }
      await release();
      // The waiting sign-in is used once: of two requests with right codes, one signs in.
      const ended = await auth.twoFactor.endPending(hash);
      clearCookie(reply, pendingCookie(request), strictCookieOptions(request));
      const user = ended ? await auth.users.activeById(pending.userId) : undefined;
      if (!user) throw new ProblemError('TWO_FACTOR_EXPIRED');
      await signIn(request, reply, user);
      return reply.send({ user });
    });

    /** The signed-in user of a call that changes their own second factor: a browser session only. */
    const self = (request: FastifyRequest): UserAccount => {
      const { actor } = request;
      if (actor.user === null) throw new ProblemError('NOT_SIGNED_IN');
      if (actor.via !== 'session') {
        throw new ProblemError('FORBIDDEN', {}, { detail: 'Two-factor sign-in is set up from a signed-in browser.' });
      }
      return actor.user;
    };

    app.post(TWO_FACTOR_ROUTES.enrol, async (request, reply) => {
      const user = self(request);
      const secret = newTotpSecret();
      if (!(await auth.twoFactor.begin(user.id, sealer.seal(secret), now())))
        throw new ProblemError('TWO_FACTOR_ENABLED');
      const uri = totpUri(secret, issuer, user.email);
      return reply.send({ secret, uri, qr: qrDataUrl(uri) });
    });

    app.post(TWO_FACTOR_ROUTES.confirm, { schema: { body: CONFIRM_TWO_FACTOR_SCHEMA } }, async (request, reply) => {
      const user = self(request);
      const row = await auth.twoFactor.get(user.id);
      if (row?.confirmedAt != null) throw new ProblemError('TWO_FACTOR_ENABLED');
      const secret = row ? sealer.open(row.secret) : null;
      if (secret === null) {
        throw new ProblemError('INVALID_PAYLOAD', { detail: 'start with POST /api/auth/two-factor/enrol' });
      }
      const release = await attempt(request, reply, user.id);
      const step = codeStep(secret, (request.body as { code: string }).code, now());
      if (step === null) {
        await failed(request, user.id, 'two-factor confirmation failed');
        throw new ProblemError('TWO_FACTOR_FAILED');
      }
      await release();
      const codes = newRecoveryCodes();
      const hashes = codes.map((code) => recoveryCodeHash(code) ?? '');
      if (!(await auth.twoFactor.confirm(user.id, step, hashes, now()))) throw new ProblemError('TWO_FACTOR_ENABLED');
      await recordAccountEvent(auth, user.id, { kind: 'two-factor-enabled' }, user.id, now());
      request.log.info({ user: user.id }, 'two-factor sign-in turned on');
      return reply.send({ recoveryCodes: codes });
    });

    app.post(TWO_FACTOR_ROUTES.disable, { schema: { body: DISABLE_TWO_FACTOR_SCHEMA } }, async (request, reply) => {
      const user = self(request);
      if (!(await auth.twoFactor.enabled(user.id))) return reply.code(204).send();
      if (requiredFor(user.roles)) {
        throw new ProblemError(
          'TWO_FACTOR_REQUIRED',
          {},
          {
            detail:
              'Your role requires two-factor sign-in: it cannot be turned off. Ask who manages people to reset it.',
            spec: requiredBy(user.roles),
          },
        );
      }
      const release = await attempt(request, reply, user.id);
      const body = request.body as { code?: string; recoveryCode?: string; password?: string };
      let ok: boolean;
      if (body.code !== undefined) ok = await totpAccepted(request, user.id, body.code);
      else if (body.recoveryCode !== undefined) ok = await recoveryAccepted(request, user.id, body.recoveryCode);
      else
        ok = await verifyPassword((await auth.users.forSignIn(user.email))?.passwordHash ?? null, body.password ?? '');
      if (!ok) {
        await failed(request, user.id, 'turning two-factor off failed');
        throw new ProblemError(body.password !== undefined ? 'SIGN_IN_FAILED' : 'TWO_FACTOR_FAILED');
      }
      await release();
      if (await auth.twoFactor.remove(user.id)) {
        await recordAccountEvent(auth, user.id, { kind: 'two-factor-disabled' }, user.id, now());
        request.log.info({ user: user.id }, 'two-factor sign-in turned off');
      }
      return reply.code(204).send();
    });

    app.delete(TWO_FACTOR_ROUTES.reset, async (request, reply) => {
      const id = await managedUserId(request, auth, manages);
      // A reset that finds nothing to reset records nothing, as every account change.
      if (await auth.twoFactor.remove(id)) {
        await recordAccountEvent(auth, id, { kind: 'two-factor-reset' }, request.actor.user?.id ?? id, now());
        request.log.info({ user: id }, 'two-factor sign-in reset');
      }
      return reply.code(204).send();
    });
  }
}

function pendingCookie(request: FastifyRequest): string {
  return request.protocol === 'https' ? SECURE_PENDING_SIGN_IN_COOKIE : PENDING_SIGN_IN_COOKIE;
}
