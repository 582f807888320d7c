import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** The shortest `SECRET_KEY` accepted: 32 characters, as `openssl rand -base64 32` gives 44. */
export const MIN_SECRET_KEY_LENGTH = 32;

/** Why `SECRET_KEY` cannot be used; the message says what to set. */
export class SecretKeySettingError extends Error {
  override name = 'SecretKeySettingError';
}

/**
 * `SECRET_KEY` from the environment: null when unset; refused when shorter than 32 characters
 * (a key that can be guessed protects nothing).
 */
export function secretKeyFromEnv(env: Readonly<Record<string, string | undefined>>): string | null {
  const key = env.SECRET_KEY?.trim();
  if (!key) return null;
  if (key.length < MIN_SECRET_KEY_LENGTH) {
    throw new SecretKeySettingError(
      `SECRET_KEY must have at least ${MIN_SECRET_KEY_LENGTH} characters (openssl rand -base64 32 makes one).`,
    );
  }
  return key;
}

/** How a sealed value starts: the format and key version, so another can follow. */
const SEALED = 'v1.';
/** A value kept as it is (no `SECRET_KEY` when it was stored). */
const PLAIN = 'plain.';

/**
 * Keeps the secrets the server must read back (two-factor secrets: unlike passwords and session
 * ids, a code can only be checked with the secret itself, so it cannot be hashed). With a
 * `SECRET_KEY` each value is sealed with AES-256-GCM under a key derived from it (HKDF-SHA256), so
 * a copy of the database alone gives nothing; without one, values are kept as they are, marked so
 * that setting a key later still reads them (and seals each as it is next written).
 */
export class SecretSealer {
  readonly #key: Buffer | null;

  constructor(secretKey: string | null) {
    this.#key =
      secretKey === null ? null : Buffer.from(hkdfSync('sha256', secretKey, 'ninepoint', 'two-factor secrets v1', 32));
  }

  /** Whether values are sealed (a `SECRET_KEY` is set). */
  get sealing(): boolean {
    return this.#key !== null;
  }

  seal(value: string): string {
    if (this.#key === null) return `${PLAIN}${value}`;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return `${SEALED}${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /**
   * The value, or null when it cannot be read: sealed under another key, or sealed while this
   * server has none (the caller refuses the code, and logs why).
   */
  open(stored: string): string | null {
    if (stored.startsWith(PLAIN)) return stored.slice(PLAIN.length);
    if (!stored.startsWith(SEALED) || this.#key === null) return null;
    const bytes = Buffer.from(stored.slice(SEALED.length), 'base64url');
    if (bytes.length < 29) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, 12));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}
