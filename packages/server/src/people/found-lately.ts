import type { SqlRunner } from '../store/sql-runner.ts';

/** How long an entry is kept at most, and how many are (then all are dropped at once). */
const KEPT_MS = 10_000;
const KEPT_ENTRIES = 1_000;

/**
 * Tokens or sessions found lately (SQLite only), by the hash of their secret, with the database's
 * change stamp when they were read (`SqlRunner.changeStamp`). An entry answers only while the
 * stamp is unchanged: any row written on this connection (a revocation, a sign-out, a
 * deactivation, a role change, a migration) or any commit of another process (`ninepoint tokens
 * revoke` or `ninepoint users deactivate` at the terminal) makes every entry stale at once, so the
 * very next call reads the row again. What is not found is never kept. On PostgreSQL (no stamp)
 * every call reads its row.
 */
export class FoundLately<T> {
  readonly #sql: SqlRunner;
  readonly #read: (hash: string) => T | undefined;
  readonly #entries = new Map<string, { found: T; stamp: string; until: number }>();
  readonly #now: () => number;

  /** `read` is the lookup on SQLite, which answers at once. */
  constructor(sql: SqlRunner, read: (hash: string) => T | undefined, now: () => number = Date.now) {
    this.#sql = sql;
    this.#read = read;
    this.#now = now;
  }

  /** Whether this runner can keep anything: false on PostgreSQL. */
  get enabled(): boolean {
    return this.#sql.changeStamp !== undefined;
  }

  get(hash: string): T | undefined {
    const stamp = (this.#sql.changeStamp as () => string).call(this.#sql);
    const at = this.#now();
    const kept = this.#entries.get(hash);
    if (kept && kept.stamp === stamp && at < kept.until) return kept.found;
    // The stamp taken before the read is the read's: SQLite runs nothing in between.
    const found = this.#read(hash);
    if (found === undefined) this.#entries.delete(hash);
    else {
      if (this.#entries.size >= KEPT_ENTRIES) this.#entries.clear();
      this.#entries.set(hash, { found, stamp, until: at + KEPT_MS });
    }
    return found;
  }
}
