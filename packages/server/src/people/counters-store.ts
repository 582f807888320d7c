import type { SqlRunner } from '../store/sql-runner.ts';

export const RATE_TABLE = '_ninepoint_rate_limits';

/** One counter per key and window. */
export const COUNTERS_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS "${RATE_TABLE}" (
  "key" TEXT NOT NULL,
  "window_start" BIGINT NOT NULL,
  "hits" BIGINT NOT NULL,
  PRIMARY KEY ("key", "window_start")
)`,
];

/**
 * Rate-limit counters, in the app's own database so that several app servers on one PostgreSQL
 * database count together: the general limit, failed sign-ins, and the hourly limits of reset,
 * sign-up and invitation mail.
 */
export class CountersStore {
  readonly #sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.#sql = sql;
  }

  /** Adds `hits` to a key's counter in a window, atomically, and answers the counter's new value. */
  async hit(key: string, windowStart: number, hits = 1): Promise<number> {
    const row = await this.#sql.get<{ hits: number | string }>(
      `INSERT INTO "${RATE_TABLE}" ("key", "window_start", "hits") VALUES (?, ?, ?)
       ON CONFLICT ("key", "window_start") DO UPDATE SET "hits" = "${RATE_TABLE}"."hits" + excluded."hits"
       RETURNING "hits"`,
      [key, windowStart, hits],
    );
    return Number(row?.hits ?? hits);
  }

  /** A key's counter in a window, without adding to it. */
  async hits(key: string, windowStart: number): Promise<number> {
    const row = await this.#sql.get<{ hits: number | string }>(
      `SELECT "hits" FROM "${RATE_TABLE}" WHERE "key" = ? AND "window_start" = ?`,
      [key, windowStart],
    );
    return Number(row?.hits ?? 0);
  }

  /**
   * Forgets the counters whose key starts with `prefix` (no `%` or `_` in it) of windows that
   * started before `before`. Counters of different lengths share the table: the general limit's
   * (`rate:`, one minute) and sign-in failures' (`sign-in:`, 15 minutes), each pruned by its own.
   */
  async prune(before: number, prefix = 'rate:'): Promise<number> {
    return this.#sql.run(`DELETE FROM "${RATE_TABLE}" WHERE "key" LIKE ? AND "window_start" < ?`, [
      `${prefix}%`,
      before,
    ]);
  }
}
