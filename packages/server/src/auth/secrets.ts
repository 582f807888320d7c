import { createHash, randomBytes } from 'node:crypto';

/**
 * A new secret for a session or an API token: 256 bits from the CSPRNG, base64url, with a prefix
 * saying what it is (`nps_` session, `npt_` token) so a leaked one is easy to recognise.
 */
export function newSecret(kind: 'session' | 'token'): string {
  return `${kind === 'session' ? 'nps' : 'npt'}_${randomBytes(32).toString('base64url')}`;
}

/**
 * What the database keeps of a secret: its SHA-256. A stolen database or backup holds no usable
 * session or token; a fast hash is enough because the secret itself has 256 bits.
 */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Whether text has the shape of a secret of this kind (checked before any lookup). */
export function looksLikeSecret(kind: 'session' | 'token', text: string): boolean {
  return new RegExp(`^${kind === 'session' ? 'nps' : 'npt'}_[A-Za-z0-9_-]{43}$`).test(text);
}
