import type Database from 'better-sqlite3';

/** How many statements that may write a connection has run (`countWrites`). */
export class WriteCount {
  #writes = 0;

  get writes(): number {
    return this.#writes;
  }

  /** Moves the count: a write starts or ends, or SQLite ended a transaction of its own accord. */
  moved(): void {
    this.#writes += 1;
  }
}

/** Transaction control that undoes writes, though SQLite calls it read-only. */
const ROLLBACK = /^\s*ROLLBACK\b/i;

/**
 * Makes a connection count the statements it runs that may change a row: every `exec`, every
 * `ROLLBACK`, and every run of a statement SQLite does not call read-only (`Statement.readonly`:
 * INSERT, UPDATE, DELETE, DDL, a pragma that sets; a SELECT is read-only and is left as it is, so
 * reads cost nothing more), and every transaction of better-sqlite3's that ends in its rollback.
 * Must be called before anything is prepared on `db`: `db.prepare`, `db.exec` and
 * `db.transaction` are wrapped on the connection itself.
 *
 * The count is the change stamp's (`SqliteRunner.changeStamp`): it moves with every write of this
 * connection, by whichever code, at the cost of an addition. `SELECT total_changes()` told the
 * same once per call, a statement of its own on every signed-in request (0.6–0.8 µs of a 25 µs get).
 * A statement's run moves it before and after, so a read made while the statement runs (by a
 * function it calls) is stale once it ends; an iteration moves it at each step, as the rows are
 * written then. A write that fails or is rolled back is counted too; that only makes a kept
 * answer be read again.
 */
export function countWrites(db: Database.Database): WriteCount {
  const count = new WriteCount();
  const prepare = db.prepare;
  const exec = db.exec;
  const transaction = db.transaction;
  db.prepare = function (this: Database.Database, source: string) {
    const statement = prepare.call(this, source);
    if (!statement.readonly || ROLLBACK.test(source)) counted(statement, count);
    return statement;
  } as typeof db.prepare;
  db.exec = function (this: Database.Database, source: string) {
    count.moved();
    try {
      return exec.call(this, source);
    } finally {
      count.moved();
    }
  };
  db.transaction = function (this: Database.Database, work: (...args: unknown[]) => unknown) {
    // better-sqlite3 rolls back with a statement of its own when `work` throws: counted here first.
    return transaction.call(this, function (this: unknown, ...args: unknown[]) {
      try {
        return work.apply(this, args);
      } catch (error) {
        count.moved();
        throw error;
      }
    });
  } as typeof db.transaction;
  return count;
}

/** The methods that run a statement at once. */
const RUNS = ['run', 'get', 'all'] as const;

function counted(statement: Database.Statement, count: WriteCount): void {
  const methods = statement as unknown as Record<(typeof RUNS)[number] | 'iterate', (...args: unknown[]) => unknown>;
  for (const name of RUNS) {
    const run = methods[name];
    methods[name] = function (this: unknown, ...args: unknown[]) {
      count.moved();
      try {
        return run.apply(this, args);
      } finally {
        count.moved();
      }
    };
  }
  const iterate = methods.iterate;
  methods.iterate = function (this: unknown, ...args: unknown[]) {
    count.moved();
    const rows = iterate.apply(this, args) as IterableIterator<unknown>;
    const next = rows.next;
    rows.next = (...step: [] | [unknown]) => {
      count.moved();
      try {
        return next.apply(rows, step);
      } finally {
        count.moved();
      }
    };
    return rows;
  };
}
