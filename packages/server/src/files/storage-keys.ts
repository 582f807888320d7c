import { randomBytes } from 'node:crypto';

/** A new storage key: 256 random bits, base64url (43 characters). */
export function newStorageKey(): string {
  return randomBytes(32).toString('base64url');
}
