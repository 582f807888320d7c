import { hash, randomBytes } from 'node:crypto';
import { LastPerConnection } from './per-connection.ts';

/**
 * What a secret is for: a session, an API token, a link (password reset, email confirmation,
 * invitation), a sign-in under way at an OpenID provider, or one waiting for its second step.
 */
export type SecretKind = 'session' | 'token' | 'reset' | 'verify' | 'invitation' | 'oidc' | 'pending' | 'passkey';

const PREFIX: Record<SecretKind, string> = {
  session: 'nps',
  token: 'npt',
  reset: 'npr',
  verify: 'npv',
  invitation: 'npi',
  oidc: 'npo',
  pending: 'npp',
  passkey: 'npk',
};

/**
 * A new secret for a session, an API token, a link, an OpenID sign-in or a sign-in waiting for its
 * second step: 256 bits from the CSPRNG,
 * base64url, with a prefix saying what it is (`nps_` session, `npt_` token, `npr_` reset, `npv_`
 * email confirmation, `npi_` invitation, `npo_` OpenID sign-in, `npp_` a sign-in waiting for its code, `npk_` a passkey challenge) so a leaked one is easy to recognise.
 */
export function newSecret(kind: SecretKind): string {
  return `${PREFIX[kind]}_${randomBytes(32).toString('base64url')}`;
}

/**
 * What the database keeps of a secret: its SHA-256. A stolen database or backup holds no usable
 * session or token; a fast hash is enough because the secret itself has 256 bits.
 */
export function secretHash(secret: string): string {
  // One-shot: every authenticated call hashes its secret, and a Hash object costs several times more.
  return hash('sha256', secret, 'hex');
}

/** Per kind, each connection's last secret and its hash (undefined: not of that kind's shape). */
const lastSent = Object.fromEntries(
  Object.keys(PREFIX).map((kind) => [
    kind,
    new LastPerConnection<string, string | undefined>((secret) =>
      looksLikeSecret(kind as SecretKind, secret) ? secretHash(secret) : undefined,
    ),
  ]),
) as Record<SecretKind, LastPerConnection<string, string | undefined>>;

/**
 * `secretHash` of a secret of `kind`'s shape (`looksLikeSecret`), or undefined for one that is not,
 * remembered per connection: a browser's keep-alive connection sends the same session cookie with
 * every call, and a client the same token, so the secret is checked and hashed once per connection
 * and secret instead of once per call (they were a twentieth of a session's get).
 */
export function secretHashOn(
  connection: object | null | undefined,
  kind: SecretKind,
  secret: string,
): string | undefined {
  return lastSent[kind].get(connection, secret);
}

/** The shape of each kind's secrets, compiled once: every authenticated call tests one. */
const SHAPE = Object.fromEntries(
  Object.entries(PREFIX).map(([kind, prefix]) => [kind, new RegExp(`^${prefix}_[A-Za-z0-9_-]{43}$`)]),
) as Record<SecretKind, RegExp>;

/** Whether text has the shape of a secret of this kind (checked before any lookup). */
export function looksLikeSecret(kind: SecretKind, text: string): boolean {
  return SHAPE[kind].test(text);
}
