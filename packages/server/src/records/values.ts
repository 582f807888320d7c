import { randomFillSync } from 'node:crypto';
import { assertNever, type FieldType, kindFacts } from '@ninepoint/spec';

/** Record ids: UUIDs in lower case, as `uuidv7` writes them. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Random bytes read from the CSPRNG in bulk, 10 per id: one read (a system call, about 25 µs on
 * the 2-vCPU machines the benchmarks run on) per 409 ids instead of one per id, as Node's own
 * `randomUUID` does. Ids need no secrecy, only uniqueness; the bytes are the CSPRNG's either way.
 */
const pool = new Uint8Array(4090);
let taken = pool.length;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
let lastMs = 0;
let counter = 0;

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, a 12-bit counter, then 62 random
 * bits. Within one process ids only grow (method 1 of RFC 9562 §6.2: the counter restarts at a
 * random value below 2048 each millisecond), so records created one after another sort in that
 * order even within a millisecond, and the primary-key index is appended to.
 */
export function uuidv7(now: number = Date.now()): string {
  if (taken === pool.length) {
    randomFillSync(pool);
    taken = 0;
  }
  const r = taken;
  taken += 10;
  const random = (i: number) => pool[r + i] as number;
  if (now > lastMs) {
    lastMs = now;
    counter = (random(0) << 3) | (random(1) & 0x07);
  } else if (++counter > 0xfff) {
    // 4096 ids in one millisecond: borrow the next one.
    lastMs++;
    counter = 0;
  }
  const ms = lastMs;
  const hex = (byte: number) => HEX[byte & 0xff] as string;
  return (
    hex(ms / 2 ** 40) +
    hex(ms / 2 ** 32) +
    hex(ms / 2 ** 24) +
    hex(ms / 2 ** 16) +
    '-' +
    hex(ms / 2 ** 8) +
    hex(ms) +
    '-' +
    hex(0x70 | (counter >> 8)) +
    hex(counter) +
    '-' +
    hex(0x80 | (random(2) & 0x3f)) +
    hex(random(3)) +
    '-' +
    hex(random(4)) +
    hex(random(5)) +
    hex(random(6)) +
    hex(random(7)) +
    hex(random(8)) +
    hex(random(9))
  );
}

/**
 * A date and time in one form, UTC with milliseconds (`2025-01-31T09:30:00.000Z`), so stored
 * values sort and compare as the times they are whatever offset they were sent with; null when
 * it is not a time JavaScript can represent (a leap second, say). Finer fractions are cut to ms.
 */
export function normalizeDateTime(text: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/.test(text)) return null;
  const ms = Date.parse(text.replace(' ', 'T'));
  if (Number.isNaN(ms)) return null;
  const iso = new Date(ms).toISOString();
  // Years past 9999 print as +010000-…: not a date-time any schema accepts.
  return iso.length === 24 ? iso : null;
}

/**
 * A field's text in the one form it is stored in, so values that mean the same are the same:
 * ids in lower case (`0190…` and `0190…` in capitals name one record), date-times in UTC
 * (`normalizeDateTime`, null when it is none), as a list filter reads them. Other text is stored as sent.
 */
export function storedText(type: FieldType, text: string): string | null {
  const kind = kindFacts(type).filter;
  switch (kind) {
    case 'reference':
      return text.toLowerCase();
    case 'datetime':
      return normalizeDateTime(text);
    case 'text':
    case 'choice':
    case 'date':
    case 'integer':
    case 'decimal':
    case 'boolean':
      return text;
    default:
      return assertNever(kind);
  }
}

/** A real calendar date written as YYYY-MM-DD (no 30 February). */
export function isDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00.000Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}
