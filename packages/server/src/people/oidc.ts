import { type Model, signUpRoles } from '@ninepoint/spec';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as client from 'openid-client';
import { createJoinedAccount } from './accounts.ts';
import type { SignIn } from './auth.ts';
import type { AuthStore } from './auth-store.ts';
import { clearCookie, setCookie } from './cookies.ts';
import { OIDC_CALLBACK_PATH, type OidcSettings } from './oidc-settings.ts';
import type { OidcStore } from './oidc-store.ts';
import { looksLikeSecret, newSecret, secretHash } from './secrets.ts';
import { normalizeEmail } from './user-rows.ts';
import type { UserAccount } from './users-store.ts';

export const OIDC_START_PATH = '/api/auth/oidc/start';
const COOKIE = 'np_oidc';
const SECURE_COOKIE = '__Host-np_oidc';
/** How long a person may take at the provider before the sign-in must start again. */
const PENDING_MS = 10 * 60_000;
/** A password hash no password matches: an account made by single sign-on has no password until reset. */
const NO_PASSWORD = 'none: signs in with single sign-on';

/**
 * Why a sign-in with the provider did not sign anyone in, as the sign-in page is told
 * (`/sign-in?sso=<reason>`); the page says what to do.
 */
export type OidcRefusal =
  | 'cancelled'
  | 'expired'
  | 'failed'
  | 'unavailable'
  | 'unverified'
  | 'no-account'
  | 'deactivated';

export interface OidcOptions {
  settings: OidcSettings;
  auth: AuthStore;
  logins: OidcStore;
  model: Model;
  signIn: SignIn;
  /**
   * Starts the second step for a user whose two-factor sign-in is on (`two-factor.ts`): the
   * provider proved who they are, the app's own second factor is asked for all the same.
   */
  secondStep?: (request: FastifyRequest, reply: FastifyReply, user: UserAccount) => Promise<unknown>;
  now: () => number;
}

/**
 * Sign-in with an OpenID Connect provider (authorization code flow with PKCE, state and nonce):
 *
 * - `GET /api/auth/oidc/start?next=/path` sends the browser to the provider. State, nonce and the
 *   PKCE verifier stay in the database, keyed by the hash of a random id the browser keeps in an
 *   HttpOnly cookie for ten minutes.
 * - `GET /api/auth/oidc/callback` finishes it once (the pending sign-in is deleted as it is read),
 *   then signs in the user the provider account is linked to; or, the first time, the user with
 *   the provider's verified email (and links them); or, when point 6 lets people sign up to a role
 *   that accepts that email, a new user with that role. Anyone else is sent back to the sign-in
 *   page with the reason. An email the provider has not verified is never trusted.
 */
export function registerOidc(app: FastifyInstance, options: OidcOptions): void {
  const { settings, auth, logins, model, signIn, now } = options;
  let discovered: Promise<client.Configuration> | null = null;
  // Discovered at the first sign-in, not at start-up: the app starts even when the provider is down.
  const configuration = () => {
    discovered ??= client
      .discovery(
        settings.issuer,
        settings.clientId,
        settings.clientSecret ?? undefined,
        settings.clientSecret === null ? client.None() : undefined,
        settings.issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : {},
      )
      .catch((error: unknown) => {
        discovered = null;
        throw error;
      });
    return discovered;
  };
  const cookieName = (request: FastifyRequest) => (request.protocol === 'https' ? SECURE_COOKIE : COOKIE);
  const refuse = (reply: FastifyReply, reason: OidcRefusal) => reply.redirect(`/sign-in?sso=${reason}`, 303);

  app.get(OIDC_START_PATH, async (request, reply) => {
    const next = safeNext((request.query as Record<string, unknown>).next);
    let config: client.Configuration;
    try {
      config = await configuration();
    } catch (error) {
      request.log.error({ err: error, issuer: settings.issuer.href }, 'the OpenID provider could not be reached');
      return refuse(reply, 'unavailable');
    }
    const id = newSecret('oidc');
    const login = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier: client.randomPKCECodeVerifier(),
      next,
      expiresAt: now() + PENDING_MS,
    };
    await logins.begin(secretHash(id), login, now());
    setCookie(reply, cookieName(request), id, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: request.protocol === 'https',
      maxAge: PENDING_MS / 1000,
    });
    const target = client.buildAuthorizationUrl(config, {
      redirect_uri: settings.redirectUri,
      scope: 'openid email profile',
      code_challenge: await client.calculatePKCECodeChallenge(login.verifier),
      code_challenge_method: 'S256',
      state: login.state,
      nonce: login.nonce,
    });
    return reply.redirect(target.href, 303);
  });

  app.get(OIDC_CALLBACK_PATH, async (request, reply) => {
    const name = cookieName(request);
    const id = request.cookies[name];
    clearCookie(reply, name, { path: '/', httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https' });
    const login =
      id !== undefined && looksLikeSecret('oidc', id) ? await logins.take(secretHash(id), now()) : undefined;
    if (!login) return refuse(reply, 'expired');
    const query = request.url.slice(request.url.indexOf('?'));
    if (new URLSearchParams(query).has('error')) return refuse(reply, 'cancelled');
    let claims: { sub: string; email?: unknown; email_verified?: unknown; name?: unknown };
    try {
      const config = await configuration();
      const tokens = await client.authorizationCodeGrant(config, new URL(`${settings.redirectUri}${query}`), {
        pkceCodeVerifier: login.verifier,
        expectedState: login.state,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
      const idToken = tokens.claims();
      if (!idToken) return refuse(reply, 'failed');
      // Many providers put the email in the ID token only when asked; the userinfo endpoint has it.
      claims =
        typeof idToken.email === 'string'
          ? idToken
          : await client.fetchUserInfo(config, tokens.access_token, idToken.sub);
    } catch (error) {
      request.log.warn({ err: error }, 'sign-in with the OpenID provider failed');
      return refuse(reply, 'failed');
    }
    const found = await accountFor(claims, settings.issuer.href, { auth, logins, model, now });
    if (typeof found === 'string') {
      request.log.info({ reason: found }, 'single sign-on refused');
      return refuse(reply, found);
    }
    if (options.secondStep && (await auth.twoFactor.enabled(found.id))) {
      await options.secondStep(request, reply, found);
      return reply.redirect(`/sign-in?step=two-factor&next=${encodeURIComponent(login.next)}`, 303);
    }
    await signIn(request, reply, found);
    return reply.redirect(login.next, 303);
  });
}

/** Only a path of this app: never another site (`//evil.example`, `https://…`) after signing in. */
function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/(?![/\\])[^\s]*$/.test(next) && next.length <= 2000 ? next : '/';
}

/**
 * The user a provider account signs in as, or why none: linked before; else the user with its
 * verified email (linked now); else a new user, when point 6 lets people sign up to a role that
 * accepts the email (the first such role, those naming the email's domain before those open to
 * any).
 */
async function accountFor(
  claims: { sub: string; email?: unknown; email_verified?: unknown; name?: unknown },
  issuer: string,
  { auth, logins, model, now }: Pick<OidcOptions, 'auth' | 'logins' | 'model' | 'now'>,
): Promise<UserAccount | 'unverified' | 'no-account' | 'deactivated'> {
  const linked = await logins.linkedUser(issuer, claims.sub);
  const found = linked === undefined ? undefined : await auth.users.managed(linked);
  if (found) {
    // A deactivated account is told so, as a password sign-in with the right password is.
    const { active, deactivatedAt: _since, ...user } = found;
    return active ? user : 'deactivated';
  }
  if (typeof claims.email !== 'string' || claims.email_verified !== true) return 'unverified';
  const email = normalizeEmail(claims.email);
  const existing = await auth.users.forSignIn(email);
  if (existing) {
    await logins.link(issuer, claims.sub, existing.user.id, now());
    return existing.active ? existing.user : 'deactivated';
  }
  const domain = email.slice(email.lastIndexOf('@') + 1);
  const open = signUpRoles(model);
  const role = open.find((r) => r.domains.includes(domain))?.role ?? open.find((r) => r.domains.length === 0)?.role;
  if (role === undefined) return 'no-account';
  const name = typeof claims.name === 'string' ? claims.name.trim().slice(0, 200) : '';
  const created = await createJoinedAccount(
    auth,
    { email, name, roles: [role], passwordHash: NO_PASSWORD },
    { via: 'single-sign-on', issuer },
    now(),
  );
  // Another tab may have made the account a moment ago: sign in as it.
  const account = created ?? (await auth.users.byEmail(email));
  if (!account) return 'no-account';
  await logins.link(issuer, claims.sub, account.id, now());
  return account;
}
