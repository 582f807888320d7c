import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { renderSVG } from 'uqr';
import { secretHash } from './secrets.ts';

/**
 * TOTP (RFC 6238) as every authenticator app reads it from a QR code: SHA-1, 6 digits, 30-second
 * steps (apps ignore other parameters or get them wrong), a 160-bit secret (RFC 4226's
 * recommendation). The arithmetic is otpauth's.
 */
const PERIOD = 30;
const DIGITS = 6;
/** A code of the step before or after now is accepted too: clocks drift, people type slowly. */
export const TOTP_WINDOW = 1;

/** A new TOTP secret, base32 (what an app's "enter a key" field takes). */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, issuer = '', label = ''): TOTP {
  return new TOTP({
    issuer,
    label,
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD,
  });
}

/** The `otpauth://totp/…` address an authenticator app reads from the QR code. */
export function totpUri(secret: string, issuer: string, account: string): string {
  return totp(secret, issuer, account).toString();
}

/** The QR code of a text, as an SVG `data:` URL an `<img>` shows (the pages' CSP allows `data:` images). */
export function qrDataUrl(text: string): string {
  return `data:image/svg+xml;base64,${Buffer.from(renderSVG(text, { border: 2 })).toString('base64')}`;
}

/**
 * The time step a code belongs to, when it is the secret's code for now or a step either side;
 * null otherwise. The caller then takes that step once (`TwoFactorStore.takeStep`): a code is
 * never accepted twice.
 */
export function codeStep(secret: string, code: string, at: number): number | null {
  const token = code.replace(/\s+/g, '');
  if (!new RegExp(`^\\d{${DIGITS}}$`).test(token)) return null;
  const delta = totp(secret).validate({ token, timestamp: at, window: TOTP_WINDOW });
  return delta === null ? null : TOTP.counter({ period: PERIOD, timestamp: at }) + delta;
}

/** The code of a secret at a time (for tests, and nothing else: the server never sends one). */
export function totpCode(secret: string, at: number): string {
  return totp(secret).generate({ timestamp: at });
}

/** How many recovery codes a user gets, each usable once. */
export const RECOVERY_CODE_COUNT = 10;

/** Crockford's base32: no I, L, O or U to misread. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * New recovery codes: 80 random bits each, written as 16 characters in four groups
 * (`7k2m-…`). Only their SHA-256 is kept: with 80 bits, a fast hash is enough (no one can try
 * 2^80 guesses against a stolen database).
 */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const bytes = randomBytes(10);
    let bits = 0n;
    for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
    let text = '';
    for (let i = 0; i < 16; i++) text = ALPHABET[Number((bits >> BigInt(5 * i)) & 31n)] + text;
    return text.match(/.{4}/g)?.join('-') ?? text;
  });
}

/** A recovery code as typed (any case, spaces or dashes, I/L for 1, O for 0) as it is hashed. */
export function recoveryCodeHash(code: string): string | null {
  const text = code
    .toLowerCase()
    .replace(/[\s-]+/g, '')
    .replace(/[il]/g, '1')
    .replace(/o/g, '0');
  if (!/^[0-9a-hjkmnp-tv-z]{16}$/.test(text)) return null;
  return secretHash(`recovery:${text}`);
}
