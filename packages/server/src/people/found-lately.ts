import { andThen, type SqlRunner } from '../store/sql-runner.ts';
import type { MaybePromise } from '../store/step.ts';

/** How long an entry is kept at most, and how many are (then all are dropped at once). */
const KEPT_MS = 10_000;
const KEPT_ENTRIES = 1_000;

/**
 * Tokens or sessions found lately, by the hash of their secret, with the database's change stamp
 * when they were read (`SqlRunner.changeStamp`). An entry answers only while the stamp is
 * unchanged. On SQLite any row written on this connection (a revocation, a sign-out, a
 * deactivation, a role change, a migration) or any commit of another process (`ninepoint tokens
 * revoke` or `ninepoint users deactivate` at the terminal) makes every entry stale at once, so the
 * next call reads the row again (for a request, every request read in a later turn of the event
 * loop: another process's commits are read once per turn, `SqliteRunner.changeStamp`). On PostgreSQL any write to users, tokens or sessions, by any
 * server or process, does (their trigger notifies, `IdentityWatch` hears it), but another
 * server's touch of a session's last-seen or a token's last-used stamp; while the server
 * does not hear those notifications there is no stamp, and every call reads its row. What is not
 * found is never kept.
 */
export class FoundLately<T> {
  readonly #sql: SqlRunner;
  readonly #read: (hash: string) => MaybePromise<T | undefined>;
  readonly #entries = new Map<string, { found: T; stamp: string; until: number }>();
  /**
   * Reads under way (PostgreSQL), by hash: a call under the same stamp waits for the same answer
   * instead of sending the same statement (after a change, every concurrent call of one token
   * would otherwise read it).
   */
  readonly #reading = new Map<string, { stamp: string; answer: Promise<T | undefined> }>();
  readonly #now: () => number;

  /** `read` is the lookup: at once on SQLite, a promise on PostgreSQL. */
  constructor(sql: SqlRunner, read: (hash: string) => MaybePromise<T | undefined>, now: () => number = Date.now) {
    this.#sql = sql;
    this.#read = read;
    this.#now = now;
  }

  /** `forRequest`: for a request read in this turn of the event loop (`SqlRunner.changeStamp`). */
  get(hash: string, forRequest = false): MaybePromise<T | undefined> {
    const stamp = this.#sql.changeStamp?.(forRequest);
    if (stamp === undefined) return this.#read(hash);
    const at = this.#now();
    const kept = this.#entries.get(hash);
    if (kept && kept.stamp === stamp && at < kept.until) return kept.found;
    // The stamp taken before the read is the read's: SQLite runs nothing in between; on
    // PostgreSQL a change heard during the read moves the stamp on, so the entry is stale at once.
    const reading = this.#reading.get(hash);
    if (reading && reading.stamp === stamp) return reading.answer;
    const answer = andThen(this.#read(hash), (found) => {
      if (found === undefined) this.#entries.delete(hash);
      else {
        if (this.#entries.size >= KEPT_ENTRIES) this.#entries.clear();
        this.#entries.set(hash, { found, stamp, until: at + KEPT_MS });
      }
      return found;
    });
    if (answer instanceof Promise) {
      const entry = { stamp, answer };
      this.#reading.set(hash, entry);
      const done = () => {
        if (this.#reading.get(hash) === entry) this.#reading.delete(hash);
      };
      answer.then(done, done);
    }
    return answer;
  }
}
