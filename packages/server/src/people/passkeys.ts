import type { RuntimeSettings } from '@ninepoint/spec';
import type * as SimpleWebAuthn from '@simplewebauthn/server';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../compile/problems.ts';
import { sameOrigin } from '../http/same-origin.ts';
import { recordAccountEvent } from './accounts.ts';
import type { SignIn } from './auth.ts';
import type { AuthStore } from './auth-store.ts';
import { clearCookie, setCookie } from './cookies.ts';
import { managedUserId, strictCookieOptions } from './managed-account.ts';
import type { ChallengePurpose, PasskeyRow } from './passkeys-store.ts';
import {
  PASSKEY_CHALLENGE_COOKIE,
  PASSKEY_REGISTER_SCHEMA,
  PASSKEY_SIGN_IN_SCHEMA,
  SECURE_PASSKEY_CHALLENGE_COOKIE,
} from './people-schemas.ts';
import { looksLikeSecret, newSecret, secretHash } from './secrets.ts';
import { attemptSignIn, pruneSignInCounters } from './sign-in-lockout.ts';
import type { UserAccount } from './users-store.ts';

/**
 * @simplewebauthn/server, loaded by the first passkey call rather than at start-up: with its ASN.1
 * and certificate modules it cost about 250 ms of CPU to import, on every start of every server,
 * most of which never see a passkey.
 */
let simpleWebAuthn: Promise<typeof SimpleWebAuthn> | undefined;
const webAuthn = () => {
  simpleWebAuthn ??= import('@simplewebauthn/server');
  return simpleWebAuthn;
};

/** Passkeys' calls. */
export const PASSKEY_ROUTES = {
  /** `POST`: the options for `navigator.credentials.create` (signed in). */
  registerOptions: '/api/auth/passkeys/register/options',
  /** `POST {credential, name?}`: keeps the new passkey. */
  register: '/api/auth/passkeys/register',
  /** `GET`: the signed-in user's passkeys. */
  list: '/api/auth/passkeys',
  /** `DELETE`: removes one of them. */
  remove: '/api/auth/passkeys/:id',
  /** `POST`: the options for `navigator.credentials.get` (anyone). */
  signInOptions: '/api/auth/passkeys/sign-in/options',
  /** `POST {credential}`: signs in; makes the session. */
  signIn: '/api/auth/passkeys/sign-in',
  /** `GET` / `DELETE`: those who manage people see and remove a user's passkeys. */
  ofUser: '/api/users/:id/passkeys',
  removeOfUser: '/api/users/:id/passkeys/:passkeyId',
} as const;

/** How long a challenge waits for the authenticator's answer. */
export const PASSKEY_CHALLENGE_MINUTES = 5;

export interface PasskeysOptions {
  auth: AuthStore;
  settings: Readonly<RuntimeSettings>;
  /** The relying party's name browsers show: the product's name. */
  rpName: string;
  /**
   * `APP_URL`'s origin: the origin assertions must come from, its host the RP ID. Null (dev mode,
   * no APP_URL): the request's own origin, as `sameOrigin` takes it.
   */
  appUrl: string | null;
  manages: (roles: readonly string[]) => boolean;
  now: () => number;
}

/** A passkey as the API answers it. */
export interface PasskeyInfo {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

const info = (row: PasskeyRow): PasskeyInfo => ({
  id: row.id,
  name: row.name,
  createdAt: new Date(row.createdAt).toISOString(),
  lastUsedAt: row.lastUsedAt === null ? null : new Date(row.lastUsedAt).toISOString(),
});

/**
 * Passkeys (WebAuthn, through @simplewebauthn/server) as a second way in for password accounts:
 *
 * - a signed-in user registers a passkey (user verification required, `none` attestation: the
 *   app trusts the browser's authenticator, not a vendor), lists and removes theirs;
 * - anyone signs in with one (a discoverable credential: no email asked); the session starts as a
 *   password sign-in's does. A passkey sign-in satisfies `requires two-factor`: it is
 *   phishing-resistant (bound to the origin) and user-verifying (PIN or biometric on the device),
 *   two factors in one, so no TOTP code is asked after it;
 * - every challenge is single-use, lives `PASSKEY_CHALLENGE_MINUTES`, and is bound to the browser
 *   by an HttpOnly SameSite=Strict cookie holding a 256-bit secret (only its hash is kept);
 * - the signature counter is checked (a cloned authenticator whose counter goes back is refused);
 *   deactivated users are refused; failures count against the account like wrong passwords.
 */
export function registerPasskeys(app: FastifyInstance, options: PasskeysOptions, signIn: SignIn): void {
  const { auth, settings, rpName, manages, now } = options;
  const attempts = settings.SIGN_IN_ATTEMPTS_PER_15_MINUTES;

  const party = (request: FastifyRequest): { origin: string; rpID: string } => {
    const origin = options.appUrl ?? `${request.protocol}://${request.host}`;
    return { origin, rpID: new URL(origin).hostname };
  };

  const ownPages = (request: FastifyRequest) => {
    if (request.headers.origin !== undefined && !sameOrigin(request)) {
      throw new ProblemError('FORBIDDEN', {}, { detail: 'Passkey calls must come from this app’s own pages.' });
    }
  };

  const self = (request: FastifyRequest): UserAccount => {
    const { actor } = request;
    if (actor.user === null) throw new ProblemError('NOT_SIGNED_IN');
    if (actor.via !== 'session') {
      throw new ProblemError('FORBIDDEN', {}, { detail: 'Passkeys are registered from a signed-in browser.' });
    }
    return actor.user;
  };

  const keepChallenge = async (
    request: FastifyRequest,
    reply: FastifyReply,
    purpose: ChallengePurpose,
    userId: string | null,
    challenge: string,
  ) => {
    const secret = newSecret('passkey');
    const at = now();
    const expiresAt = at + PASSKEY_CHALLENGE_MINUTES * 60_000;
    await auth.passkeys.addChallenge(secretHash(secret), purpose, userId, challenge, at, expiresAt);
    setCookie(reply, cookieName(request), secret, { ...strictCookieOptions(request), expires: new Date(expiresAt) });
  };

  /** The browser's challenge, taken once (a second answer to it finds nothing). */
  const takeChallenge = async (request: FastifyRequest, reply: FastifyReply, purpose: ChallengePurpose) => {
    const secret = request.cookies[cookieName(request)];
    clearCookie(reply, cookieName(request), strictCookieOptions(request));
    if (secret === undefined || !looksLikeSecret('passkey', secret)) return undefined;
    return auth.passkeys.takeChallenge(secretHash(secret), purpose, now());
  };

  app.post(PASSKEY_ROUTES.registerOptions, async (request, reply) => {
    ownPages(request);
    const user = self(request);
    const kept = await auth.passkeys.of(user.id);
    const { generateRegistrationOptions } = await webAuthn();
    const creation = await generateRegistrationOptions({
      rpName,
      rpID: party(request).rpID,
      userName: user.email,
      userDisplayName: user.name,
      userID: new TextEncoder().encode(user.id),
      attestationType: 'none',
      excludeCredentials: kept.map((row) => ({ id: row.id, transports: row.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      timeout: PASSKEY_CHALLENGE_MINUTES * 60_000,
    });
    await keepChallenge(request, reply, 'register', user.id, creation.challenge);
    return reply.send(creation);
  });

  app.post(PASSKEY_ROUTES.register, { schema: { body: PASSKEY_REGISTER_SCHEMA } }, async (request, reply) => {
    ownPages(request);
    const user = self(request);
    const body = request.body as { credential: RegistrationResponseJSON; name?: string };
    const taken = await takeChallenge(request, reply, 'register');
    if (!taken || taken.userId !== user.id) {
      throw new ProblemError('INVALID_PAYLOAD', {
        detail:
          'no passkey registration under way in this browser: start with POST /api/auth/passkeys/register/options',
      });
    }
    const { origin, rpID } = party(request);
    const { verifyRegistrationResponse } = await webAuthn();
    let verified: Awaited<ReturnType<typeof SimpleWebAuthn.verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response: body.credential,
        expectedChallenge: taken.challenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        requireUserVerification: true,
      });
    } catch (error) {
      request.log.warn({ user: user.id, err: (error as Error).message }, 'passkey registration refused');
      throw new ProblemError('INVALID_PAYLOAD', {
        detail: `the passkey was not accepted: ${(error as Error).message}`,
      });
    }
    if (!verified.verified) throw new ProblemError('INVALID_PAYLOAD', { detail: 'the passkey was not accepted' });
    const { credential } = verified.registrationInfo;
    const at = now();
    const name = body.name?.trim() || `Passkey ${new Date(at).toISOString().slice(0, 10)}`;
    const added = await auth.passkeys.add({
      id: credential.id,
      userId: user.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports ?? [],
      name,
      createdAt: at,
    });
    if (!added) throw new ProblemError('INVALID_PAYLOAD', { detail: 'this passkey is registered already' });
    await recordAccountEvent(auth, user.id, { kind: 'passkey-added' }, user.id, at);
    request.log.info({ user: user.id }, 'passkey added');
    return reply.code(201).send(info(added));
  });

  app.get(PASSKEY_ROUTES.list, async (request, reply) => {
    const user = self(request);
    return reply.send({ items: (await auth.passkeys.of(user.id)).map(info) });
  });

  app.delete(PASSKEY_ROUTES.remove, async (request, reply) => {
    const user = self(request);
    const id = (request.params as { id: string }).id;
    if (!(await auth.passkeys.remove(user.id, id))) throw new ProblemError('NOT_FOUND', { entity: 'passkey', id });
    await recordAccountEvent(auth, user.id, { kind: 'passkey-removed' }, user.id, now());
    request.log.info({ user: user.id }, 'passkey removed');
    return reply.code(204).send();
  });

  app.post(PASSKEY_ROUTES.signInOptions, async (request, reply) => {
    ownPages(request);
    const { generateAuthenticationOptions } = await webAuthn();
    const request_ = await generateAuthenticationOptions({
      rpID: party(request).rpID,
      userVerification: 'required',
      timeout: PASSKEY_CHALLENGE_MINUTES * 60_000,
    });
    await keepChallenge(request, reply, 'sign-in', null, request_.challenge);
    return reply.send(request_);
  });

  app.post(PASSKEY_ROUTES.signIn, { schema: { body: PASSKEY_SIGN_IN_SCHEMA } }, async (request, reply) => {
    ownPages(request);
    const body = request.body as { credential: AuthenticationResponseJSON };
    const taken = await takeChallenge(request, reply, 'sign-in');
    if (!taken) {
      throw new ProblemError(
        'SIGN_IN_FAILED',
        {},
        { detail: 'This passkey sign-in has expired or was used already. Try again.' },
      );
    }
    const passkey = await auth.passkeys.byId(body.credential.id);
    const refused = async (userId: string | null, why: string) => {
      if (userId !== null) await pruneSignInCounters(auth.counters, now(), 'passkey:');
      request.log.warn({ user: userId, why }, 'passkey sign-in refused');
      return new ProblemError('SIGN_IN_FAILED', {}, { detail: 'The passkey was not accepted.' });
    };
    if (!passkey) throw await refused(null, 'unknown passkey');
    const tried = await attemptSignIn(auth.counters, [`passkey:account:${passkey.userId}`], attempts, now());
    if (tried.locked) {
      reply.header('retry-after', String(tried.retryAfter));
      throw new ProblemError('SIGN_IN_LOCKED');
    }
    const { origin, rpID } = party(request);
    const { verifyAuthenticationResponse } = await webAuthn();
    let verified: Awaited<ReturnType<typeof SimpleWebAuthn.verifyAuthenticationResponse>>;
    try {
      verified = await verifyAuthenticationResponse({
        response: body.credential,
        expectedChallenge: taken.challenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        requireUserVerification: true,
        credential: {
          id: passkey.id,
          publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
          counter: passkey.counter,
          transports: passkey.transports as never,
        },
      });
    } catch (error) {
      throw await refused(passkey.userId, (error as Error).message);
    }
    // The user handle, when the authenticator gives it, must be the passkey's owner.
    const handle = body.credential.response.userHandle;
    const owner = handle ? Buffer.from(handle, 'base64url').toString('utf8') : passkey.userId;
    if (!verified.verified || owner !== passkey.userId) throw await refused(passkey.userId, 'not verified');
    const { newCounter } = verified.authenticationInfo;
    if (!(await auth.passkeys.used(passkey.id, passkey.counter, newCounter, now()))) {
      throw await refused(passkey.userId, 'counter changed under way');
    }
    const user = await auth.users.activeById(passkey.userId);
    if (!user) throw await refused(passkey.userId, 'deactivated');
    await tried.release();
    await signIn(request, reply, user, 'passkey');
    return reply.send({ user });
  });

  app.get(PASSKEY_ROUTES.ofUser, async (request, reply) => {
    const id = await managedUserId(request, auth, manages);
    return reply.send({ items: (await auth.passkeys.of(id)).map(info) });
  });

  app.delete(PASSKEY_ROUTES.removeOfUser, async (request, reply) => {
    const id = await managedUserId(request, auth, manages);
    const passkeyId = (request.params as { passkeyId: string }).passkeyId;
    if (!(await auth.passkeys.remove(id, passkeyId))) {
      throw new ProblemError('NOT_FOUND', { entity: 'passkey', id: passkeyId });
    }
    await recordAccountEvent(auth, id, { kind: 'passkey-removed' }, request.actor.user?.id ?? id, now());
    request.log.info({ user: id }, 'passkey removed by a manager');
    return reply.code(204).send();
  });
}

function cookieName(request: FastifyRequest): string {
  return request.protocol === 'https' ? SECURE_PASSKEY_CHALLENGE_COOKIE : PASSKEY_CHALLENGE_COOKIE;
}
