import type { SqlRunner } from '../store/sql-runner.ts';

/** The last time each recurring job (point 7's Schedules) fell due and was run: one row per job. */
export const SCHEDULE_RUNS_TABLE = '_ninepoint_schedule_runs';
const R = `"${SCHEDULE_RUNS_TABLE}"`;

/** Times in milliseconds since 1970, as the outbox's tables; the same DDL on both databases. */
const DDL = [
  `CREATE TABLE IF NOT EXISTS ${R} (
  "job" TEXT PRIMARY KEY,
  "last_due" BIGINT NOT NULL,
  "ran_at" BIGINT NOT NULL
)`,
];

/** Each job's last run, through `SqlRunner` on SQLite and PostgreSQL alike. */
export class ScheduleRuns {
  readonly #sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.#sql = sql;
  }

  async setUp(): Promise<void> {
    await this.#sql.exec(DDL);
  }

  /** When the job last fell due and was run, or undefined for a job never seen. */
  async lastDue(job: string): Promise<number | undefined> {
    const row = await this.#sql.get<{ last_due: number | string }>(`SELECT "last_due" FROM ${R} WHERE "job" = ?`, [
      job,
    ]);
    return row === undefined ? undefined : Number(row.last_due);
  }

  /** A job seen for the first time starts from `due`: what fell due before it existed is not run. */
  async firstSeen(job: string, due: number, now: number): Promise<void> {
    await this.#sql.run(`INSERT INTO ${R} ("job", "last_due", "ran_at") VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, [
      job,
      due,
      now,
    ]);
  }

  /**
   * Claims the run due at `due`: true for the one caller that moves the job's last run forward to
   * it, false when it already stands there (or later), so a run is never done twice.
   */
  async claim(job: string, due: number, now: number): Promise<boolean> {
    const changed = await this.#sql.run(
      `UPDATE ${R} SET "last_due" = ?, "ran_at" = ? WHERE "job" = ? AND "last_due" < ?`,
      [due, now, job, due],
    );
    return changed === 1;
  }
}
