import type Database from 'better-sqlite3';

/** How many statements that may write a connection has started (`countWrites`). */
export interface WriteCount {
  readonly writes: number;
}

/** The methods that run a statement. */
const RUNS = ['run', 'get', 'all', 'iterate'] as const;

/**
 * Makes a connection count the statements it starts that may change a row: every `exec`, and every
 * run of a statement SQLite does not call read-only (`Statement.readonly`: INSERT, UPDATE, DELETE,
 * DDL, a pragma that sets; a SELECT is read-only and is left as it is, so reads cost nothing more).
 * Must be called before anything is prepared on `db`: `db.prepare` and `db.exec` are wrapped on
 * the connection itself.
 *
 * The count is the change stamp's (`SqliteRunner.changeStamp`): it moves with every write of this
 * connection, by whichever code, at the cost of an addition. `SELECT total_changes()` told the
 * same once per call, a statement of its own on every signed-in request (0.6–0.8 µs of a 25 µs get).
 * A write that fails or is rolled back is counted too; that only makes a kept answer be read again.
 * Statements better-sqlite3 prepares for itself (a transaction's BEGIN, COMMIT and ROLLBACK, a
 * pragma) change no row that a statement of the transaction has not counted.
 */
export function countWrites(db: Database.Database): WriteCount {
  const count = { writes: 0 };
  const prepare = db.prepare;
  const exec = db.exec;
  db.prepare = function (this: Database.Database, source: string) {
    const statement = prepare.call(this, source);
    if (!statement.readonly) counted(statement, count);
    return statement;
  } as typeof db.prepare;
  db.exec = function (this: Database.Database, source: string) {
    count.writes += 1;
    return exec.call(this, source);
  };
  return count;
}

function counted(statement: Database.Statement, count: { writes: number }): void {
  const methods = statement as unknown as Record<(typeof RUNS)[number], (...args: unknown[]) => unknown>;
  for (const name of RUNS) {
    const run = methods[name];
    methods[name] = function (this: unknown, ...args: unknown[]) {
      count.writes += 1;
      return run.apply(this, args);
    };
  }
}
