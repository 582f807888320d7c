import { createHash, randomBytes } from 'node:crypto';

/** What a secret is for: a session, an API token, a password reset link, or a sign-in under way at an OpenID provider. */
export type SecretKind = 'session' | 'token' | 'reset' | 'oidc';

const PREFIX: Record<SecretKind, string> = { session: 'nps', token: 'npt', reset: 'npr', oidc: 'npo' };

/**
 * A new secret for a session, an API token or a password reset link: 256 bits from the CSPRNG,
 * base64url, with a prefix saying what it is (`nps_` session, `npt_` token, `npr_` reset) so a
 * leaked one is easy to recognise.
 */
export function newSecret(kind: SecretKind): string {
  return `${PREFIX[kind]}_${randomBytes(32).toString('base64url')}`;
}

/**
 * What the database keeps of a secret: its SHA-256. A stolen database or backup holds no usable
 * session or token; a fast hash is enough because the secret itself has 256 bits.
 */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Whether text has the shape of a secret of this kind (checked before any lookup). */
export function looksLikeSecret(kind: SecretKind, text: string): boolean {
  return new RegExp(`^${PREFIX[kind]}_[A-Za-z0-9_-]{43}$`).test(text);
}
