import { createHmac, type KeyObject } from 'node:crypto';

/** The prefix of a Standard Webhooks secret: `whsec_` and the key in base64. */
const PREFIX = 'whsec_';

/** The key of a `whsec_…` secret, or null when the value is not one (no prefix, not base64, empty). */
export function webhookKey(secret: string | undefined): Buffer | null {
  if (secret === undefined || !secret.startsWith(PREFIX)) return null;
  const encoded = secret.slice(PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return null;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= 16 ? key : null;
}

/**
 * The `webhook-signature` header of a call, as the Standard Webhooks specification says:
 * `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` under the secret's key. A `KeyObject`
 * made once (`createSecretKey`) spares each call importing the key again.
 */
export function webhookSignature(key: Buffer | KeyObject, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
