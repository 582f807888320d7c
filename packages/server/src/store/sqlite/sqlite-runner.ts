import type Database from 'better-sqlite3';
import type { SqlRunner } from '../sql-runner.ts';
import { type Param, toSqlite } from './sqlite-dialect.ts';
import { StatementCache } from './statement-cache.ts';
import type { WriteCount } from './write-count.ts';

/** `SqlRunner` on a better-sqlite3 connection: synchronous statements behind the async interface. */
export class SqliteRunner implements SqlRunner {
  readonly dialect = 'sqlite';
  readonly #db: Database.Database;
  readonly #cache: StatementCache<Database.Statement<Param[], unknown>>;
  readonly #gate: () => Promise<void> | undefined;
  /** The writes this connection has started (`countWrites`). */
  readonly #writes: WriteCount;
  /**
   * `PRAGMA data_version`, the connection's one: the only cheap way to hear of another process's
   * commit. Both the change stamp and `SqliteStore.changedElsewhere` read it here.
   */
  readonly #dataVersion: Database.Statement<[], unknown>;
  /** `data_version` as a request's change stamp read it in this turn of the event loop; undefined before. */
  #turnVersion: unknown;
  #lastStamp: { writes: number; version: unknown; stamp: string } = { writes: -1, version: null, stamp: '' };
  readonly #turnEnded = () => {
    this.#turnVersion = undefined;
  };

  /**
   * `gate` answers what a statement waits for while a transaction of someone else's is held open
   * on the connection (`SqliteStore.hold`): a write would land in it, a read see its writes.
   * `get` does not wait (it answers at once); it only reads. `writes` counts the connection's
   * writes (`countWrites`, called when it was opened, before anything was prepared on it).
   */
  constructor(db: Database.Database, writes: WriteCount, gate: () => Promise<void> | undefined = () => undefined) {
    this.#db = db;
    this.#gate = gate;
    this.#writes = writes;
    this.#cache = new StatementCache((sql) => db.prepare<Param[], unknown>(sql), 64);
    this.#dataVersion = db.prepare<[], unknown>('PRAGMA data_version').pluck();
  }

  /** The connection's `PRAGMA data_version`: it changes when another connection or process commits. */
  dataVersion(): unknown {
    return this.#dataVersion.get();
  }

  async all<T extends object>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    const gate = this.#gate();
    if (gate) await gate;
    return this.#cache.get(sql).all(...bound(params)) as T[];
  }

  /**
   * This connection's count of writes (`countWrites`: any write by any code on it moves the stamp,
   * with no statement per call), and `data_version` for other connections' commits. `data_version`
   * opens a read transaction (two `fcntl` locks and a `stat`, about 4 µs, a twentieth of a get):
   * for a request (`forRequest`) it is read once per turn of the event loop, and the requests read
   * in that turn's poll share the read. Another process's commit is seen by every request read in
   * a later turn. Not by every request that arrived after it: the poll reads one socket after
   * another, so a request read later in the same poll (its bytes, or the last of them, arriving
   * after the turn's read and a commit) gets the turn's older value; the window is what is left
   * of that poll, milliseconds under load. Any other caller (a timer's, which runs before the
   * poll) reads it afresh and does not fill the turn's value.
   */
  changeStamp(forRequest = false): string {
    if (!forRequest) return this.#stamp(this.#writes.writes, this.#dataVersion.get());
    if (this.#turnVersion === undefined) {
      this.#turnVersion = this.#dataVersion.get();
      setImmediate(this.#turnEnded);
    }
    return this.#stamp(this.#writes.writes, this.#turnVersion);
  }

  /** The stamp of these counts: the last one again while they are unchanged, not a new string per call. */
  #stamp(writes: number, version: unknown): string {
    const last = this.#lastStamp;
    if (last.writes === writes && last.version === version) return last.stamp;
    this.#lastStamp = { writes, version, stamp: `${writes}:${version}` };
    return this.#lastStamp.stamp;
  }

  get<T extends object>(sql: string, params: readonly unknown[] = []): T | undefined {
    return this.#cache.get(sql).get(...bound(params)) as T | undefined;
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    const gate = this.#gate();
    if (gate) await gate;
    return this.#cache.get(sql).run(...bound(params)).changes;
  }

  async exec(statements: readonly string[]): Promise<void> {
    const gate = this.#gate();
    if (gate) await gate;
    this.#db
      .transaction(() => {
        for (const statement of statements) this.#db.exec(statement);
      })
      .immediate();
  }
}

/** Parameters as SQLite binds them; copied only when one needs converting (a boolean). */
function bound(params: readonly unknown[]): readonly Param[] {
  for (const param of params) if (typeof param === 'boolean') return params.map(toSqlite);
  return params as readonly Param[];
}
