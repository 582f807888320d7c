import { type Algorithm, hash, verify } from '@node-rs/argon2';

/** `Algorithm.Argon2id`: the enum is `const`, which type stripping cannot inline. */
const ARGON2ID = 2 as Algorithm;

/**
 * Argon2id with the parameters OWASP recommends as a minimum (19 MiB, 2 passes, 1 lane): about
 * 20 ms per hash on this project's machines. The parameters are stored in each hash, so raising
 * them later still verifies old passwords.
 */
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * Argon2id at its lowest cost (1 MiB, 1 pass): for test processes only, which hash thousands of
 * made-up passwords (`useTestHashCost`). Verifying reads the cost from each hash, so a server
 * verifies either kind; what it hashes is always at `OPTIONS` unless a test lowered it.
 */
const TEST_OPTIONS = { algorithm: ARGON2ID, memoryCost: 1024, timeCost: 1, parallelism: 1 } as const;

let hashing: typeof OPTIONS | typeof TEST_OPTIONS = OPTIONS;

/**
 * Lowers the cost of new hashes (`true`) or restores the production cost (`false`), for the test
 * process this runs in: the vitest setup file packages/server/test/test-hash-cost.ts lowers it for
 * the server and browser suites, whose cost was a fifth of their CPU time. Throws outside vitest,
 * so no server can run with it.
 */
export function useTestHashCost(lower: boolean): void {
  if (process.env.VITEST !== 'true') throw new Error('useTestHashCost is for test processes (vitest) only.');
  hashing = lower ? TEST_OPTIONS : OPTIONS;
  decoy = undefined;
}

/** Shortest password accepted; longer ones are hashed whole (argon2 has no 72-byte cut-off). */
export const MIN_PASSWORD_LENGTH = 10;
/** Longest password accepted: hashing a megabyte would be a cheap way to burn CPU. */
export const MAX_PASSWORD_LENGTH = 1024;

/** Why a password cannot be used, or null. */
export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `A password needs at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `A password may have at most ${MAX_PASSWORD_LENGTH} characters.`;
  return null;
}

/** The argon2id hash of a password, in PHC string format (`$argon2id$v=19$m=…`). */
export async function hashPassword(password: string): Promise<string> {
  return hash(password, hashing);
}

/** A hash of no one's password, verified against when the account does not exist. */
let decoy: Promise<string> | undefined;

/**
 * Whether `password` matches `stored`. With `stored` null (no such account) it verifies against a
 * decoy hash all the same, so an unknown account takes as long to refuse as a wrong password.
 */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (password.length > MAX_PASSWORD_LENGTH) return false;
  if (stored === null) {
    decoy ??= hashPassword('decoy password that nobody has');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}
