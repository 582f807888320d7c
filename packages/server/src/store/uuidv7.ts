import { randomFillSync } from 'node:crypto';

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
