import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HISTORY_TABLE } from '@ninepoint/server';
import { checkSpec, type Model } from '@ninepoint/spec';
import type { TestDatabase } from '../../packages/server/test/databases.ts';
import { insertRowBefore } from '../../packages/server/test/helpers.ts';
import { exampleSource } from '../walk.ts';
import { type ApiUser, addApiUsers, type ServedDatabase, servedDatabase, withAccounts } from './server-process.ts';

/**
 * The lending desk example as the crash, concurrency and soak suites serve it: unchanged but for
 * a rate limit no load of theirs reaches, so that every refusal they see is one of the spec's.
 */
export const DESK_SOURCE = insertRowBefore(
  exampleSource('lending-desk.md'),
  ['MAX_LOANS'],
  '| RATE_LIMIT_PER_MINUTE | 1000000 | calls per user per minute: no reliability load is rate-limited |',
);

export const MAX_LOANS = 5;

/** The checked model of `DESK_SOURCE`. */
export function deskModel(): Model {
  const { model, ok, diagnostics } = checkSpec(DESK_SOURCE);
  if (!ok) throw new Error(`The lending desk has errors: ${JSON.stringify(diagnostics)}`);
  return model;
}

/** `DESK_SOURCE` written to a temp folder, for `ninepoint serve`, and how to remove the folder. */
export function writeDeskSpec(): { specPath: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'ninepoint-reliability-'));
  const specPath = join(dir, 'lending-desk.md');
  writeFileSync(specPath, DESK_SOURCE);
  return { specPath, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** An ISO date `days` from today (UTC); negative for the past. */
export function inDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

/** A fast, seeded PRNG (mulberry32): the same seed gives the same choices. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A whole number in [min, max] from `random`. */
export function between(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/**
 * Waits for a kill's moment: `ms` have passed AND `answered()` has reached `least` (the writes the
 * round must have had answered), or `capMs` have passed, whichever is first. On a loaded machine a
 * round's random run time alone may see few writes answered (a server slow to take its first
 * calls), which left the run with too few answered writes to prove anything; the moment stays
 * random, and the kill still lands mid-write. Answers whether the writes reached `least`.
 */
export async function killMoment(ms: number, answered: () => number, least: number, capMs = 60_000): Promise<boolean> {
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  while (answered() < least && Date.now() - started < capMs) await new Promise((resolve) => setTimeout(resolve, 10));
  return answered() >= least;
}

/**
 * The most loans each borrower held at once (state out or overdue), replaying every Loan history
 * entry in the order the database numbered them, and how many each holds now. The loan limit
 * holds at all times when no number is above MAX_LOANS. Entries are numbered as they are written,
 * inside the write's transaction, and a lend counts the loans only after any return it depends on
 * has committed, so this order never shows fewer loans at once than there were.
 */
export async function loansHeld(
  model: Model,
  database: ServedDatabase,
): Promise<{ most: Map<string, number>; now: Map<string, number> }> {
  const rows = await withAccounts(model, database, (db) =>
    db.store.sql.all<{ record_id: string; action: string; to_state: string | null; changes: unknown }>(
      `SELECT record_id, action, to_state, changes FROM ${HISTORY_TABLE} WHERE entity = 'Loan' ORDER BY id`,
    ),
  );
  const holding = new Set(['out', 'overdue']);
  const loans = new Map<string, { borrower: string; state: string }>();
  const now = new Map<string, number>();
  const most = new Map<string, number>();
  for (const row of rows) {
    const changes = (typeof row.changes === 'string' ? JSON.parse(row.changes) : row.changes) as Record<
      string,
      unknown
    >;
    const loan = loans.get(row.record_id) ?? { borrower: String(changes.borrower), state: '' };
    const before = holding.has(loan.state);
    if (row.to_state !== null) loan.state = row.to_state;
    loans.set(row.record_id, loan);
    const after = holding.has(loan.state);
    if (before === after) continue;
    const count = (now.get(loan.borrower) ?? 0) + (after ? 1 : -1);
    now.set(loan.borrower, count);
    most.set(loan.borrower, Math.max(most.get(loan.borrower) ?? 0, count));
  }
  return { most, now };
}

/** A suite's lending desk: its spec in a temporary folder, a fresh database, and its users' tokens. */
export interface Desk {
  specPath: string;
  database: ServedDatabase;
  /** A staff user. */
  desk: ApiUser;
  /** Members, each with a token. */
  members: ApiUser[];
  /** Removes the database and the folder. */
  remove(): Promise<void>;
}

/**
 * Writes the desk's spec, makes a fresh database on `db`, and adds a staff user and `members`
 * members (emails at `<domain>.test`) with API tokens, as the CLI would.
 */
export async function setUpDesk(db: TestDatabase, options: { members: number; domain: string }): Promise<Desk> {
  const spec = writeDeskSpec();
  const fresh = await db.fresh();
  const remove = async () => {
    await fresh.remove();
    spec.remove();
  };
  try {
    const database = servedDatabase(fresh);
    const [desk, ...members] = (await addApiUsers(deskModel(), database, [
      { email: `desk@${options.domain}.test`, roles: ['staff'] },
      ...Array.from({ length: options.members }, (_, i) => ({
        email: `member${i}@${options.domain}.test`,
        roles: ['member'],
      })),
    ])) as [ApiUser, ...ApiUser[]];
    return { specPath: spec.specPath, database, desk, members, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
