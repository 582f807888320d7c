import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Model } from '@ninepoint/spec';
import Database from 'better-sqlite3';
import { HISTORY_TABLE, SCHEMA_TABLE, type SqlSchema } from '../../compile/sql-schema.ts';
import { Held, HeldScope } from '../held.ts';
import { ServedRecords } from '../records-core.ts';
import { type MigrationSteps, migrate, SCHEMA_ROW_COLUMNS } from '../schema-apply.ts';
import type { AppliedSchema, ApplyOptions, Store, Synchronous, WriteFollower } from '../store.ts';
import { GroupCommit } from './group-commit.ts';
import { HISTORY_ADDED_COLUMNS, HISTORY_TABLE_DDL, quoteIdentifier, SCHEMA_TABLE_DDL } from './sqlite-ddl.ts';
import { SqliteDialect, type SqliteRecords, type TransactionRunner } from './sqlite-dialect.ts';
import { applySqlitePlan } from './sqlite-migrate.ts';
import { readRecordedSchema, SqliteMigrationProbe } from './sqlite-probe.ts';
import { SqliteRunner } from './sqlite-runner.ts';
import { countWrites, type WriteCount } from './write-count.ts';

export interface SqliteStoreOptions {
  /**
   * `normal` (the default): WAL with `synchronous=NORMAL` survives a killed process, but a power
   * loss can roll back the last commits. `full` makes every acknowledged write durable: the
   * writes of one turn of the event loop share one commit and its one sync (group-commit.ts).
   */
  synchronous?: Synchronous;
  /** How long a write waits for another process's lock before failing, in ms. */
  busyTimeoutMs?: number;
}

/**
 * An app's records in one SQLite file, through better-sqlite3: synchronous, so a transaction
 * never interleaves with another request's.
 */
export class SqliteStore implements Store {
  readonly dialect = 'sqlite';
  readonly location: string;
  readonly db: Database.Database;
  readonly sql: SqliteRunner;
  readonly #ping: Database.Statement;
  /** The connection's writes (`countWrites`), the change stamp's count. */
  readonly #writes: WriteCount;
  #seenVersion: unknown;
  readonly #commits: GroupCommit;
  readonly #records = new ServedRecords<Database.Database>();
  /**
   * Every write of the records runs through this one runner: group commit, each write in a
   * savepoint of its batch's transaction, answered after the batch's COMMIT.
   */
  readonly #transaction: TransactionRunner;
  /** The transaction held open across a before hook and its write, when one is (`hold`). */
  readonly #held = new HeldScope<Database.Database>();
  readonly #gate = () => this.#held.outsideWait();

  private constructor(location: string, db: Database.Database, writes: WriteCount, commits: GroupCommit) {
    this.location = location;
    this.db = db;
    this.#writes = writes;
    this.#commits = commits;
    // Inside a held transaction a write is a savepoint of it, made at once; outside, group commit
    // (which waits while one is held).
    const savepoint = db.transaction((work: () => unknown) => work());
    this.#transaction = <T>(work: () => T) => (this.#held.current() ? (savepoint(work) as T) : commits.run(work));
    this.sql = new SqliteRunner(db, writes, this.#gate);
    this.#ping = db.prepare('SELECT 1');
    this.#seenVersion = this.sql.dataVersion();
  }

  changedElsewhere(): boolean {
    if (!this.db.open) return false;
    const version = this.sql.dataVersion();
    if (version === this.#seenVersion) return false;
    this.#seenVersion = version;
    return true;
  }

  /** Opens (creating it and its folder when missing) the database at `path`, or `:memory:`. */
  static open(path: string, options: SqliteStoreOptions = {}): SqliteStore {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path, { timeout: options.busyTimeoutMs ?? 5000 });
    // Before anything is prepared on it: the change stamp counts every write (write-count.ts).
    const writes = countWrites(db);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
      db.pragma('foreign_keys = ON');
    } catch (error) {
      db.close();
      throw error;
    }
    return new SqliteStore(path, db, writes, new GroupCommit(db));
  }

  async applySchema(schema: SqlSchema, model: Model, options: ApplyOptions = {}): Promise<AppliedSchema> {
    const { db } = this;
    const dryRun = options.dryRun ?? false;
    if (db.inTransaction) throw new Error('applySchema cannot run inside another transaction.');
    // A rebuilt table is dropped and renamed: foreign keys must be off meanwhile, and SQLite ignores
    // the pragma inside a transaction. The check at the end stands in for them.
    if (!dryRun) db.pragma('foreign_keys = OFF');
    let applied: AppliedSchema;
    try {
      // IMMEDIATE: two servers starting on one file take turns, and the rows the plan counted
      // cannot change before it is applied. A dry run only reads, in one snapshot.
      db.exec(dryRun ? 'BEGIN' : 'BEGIN IMMEDIATE');
      try {
        applied = await migrate(this.#migrationSteps(schema), schema, model, { ...options, location: this.location });
        db.exec(dryRun ? 'ROLLBACK' : 'COMMIT');
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw error;
      }
    } finally {
      if (!dryRun) db.pragma('foreign_keys = ON');
    }
    // Every table's point reads and writes are prepared now: a request never prepares one.
    if (applied.applied)
      this.#records.serve(new SqliteDialect(this.db, this.#transaction, this.#gate), schema, applied.plan.tables);
    return applied;
  }

  #migrationSteps(schema: SqlSchema): MigrationSteps {
    const { db } = this;
    return {
      recorded: () => readRecordedSchema(db),
      probe: new SqliteMigrationProbe(db),
      bookkeeping: () => {
        db.exec(SCHEMA_TABLE_DDL);
        for (const statement of HISTORY_TABLE_DDL) db.exec(statement);
        const history = db
          .prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)')
          .all(HISTORY_TABLE);
        // Columns added since the table was first made (their older entries hold null).
        for (const name of HISTORY_ADDED_COLUMNS) {
          if (history.some((c) => c.name === name)) continue;
          db.exec(`ALTER TABLE ${quoteIdentifier(HISTORY_TABLE)} ADD COLUMN ${quoteIdentifier(name)} TEXT`);
        }
      },
      apply: (plan) => applySqlitePlan(db, plan, schema),
      record: (values) => {
        const table = quoteIdentifier(SCHEMA_TABLE);
        db.prepare(`INSERT INTO ${table} (${SCHEMA_ROW_COLUMNS}) VALUES (?, ?, ?, ?, ?)`).run(...values);
      },
    };
  }

  /**
   * One `BEGIN IMMEDIATE` held across `work`'s awaits: the records it reads and writes (its
   * in-process API calls too) are this transaction's, each write a savepoint of it. SQLite has one
   * connection, so meanwhile every other read and write of this process waits (group commit is
   * paused, reads wait at `gate`): none sees a write that may be rolled back, none lands in it.
   * Another process's writer waits for the file's lock up to its busy timeout. Callers bound
   * `work` in time (a before hook: `CODE_TIMEOUT_SECONDS`).
   */
  hold<T>(work: () => Promise<T>, _turn?: string): Promise<T> {
    const { db } = this;
    return this.#held.run(
      () => {
        this.#commits.pause();
        try {
          db.exec('BEGIN IMMEDIATE');
        } catch (error) {
          this.#commits.resume();
          throw error;
        }
        return new Held(db);
      },
      (_held, commit) => {
        try {
          if (!db.inTransaction) {
            // SQLite ended it itself (a full disk, an I/O error): nothing of it was kept, and what
            // was read inside it under the change stamp is stale.
            this.#writes.moved();
            if (commit) throw new Error('SQLite rolled back the held transaction before its commit.');
            return;
          }
          if (commit) {
            try {
              db.exec('COMMIT');
            } catch (error) {
              if (db.inTransaction) db.exec('ROLLBACK');
              throw error;
            }
          } else db.exec('ROLLBACK');
        } finally {
          this.#commits.resume();
        }
      },
      work,
      true,
    );
  }

  afterCommit(fn: () => void): void {
    this.#held.afterCommit(fn);
  }

  follow(follower: WriteFollower): void {
    this.#records.follow(follower);
  }

  records(entity: string): SqliteRecords {
    return this.#records.of(entity);
  }

  async ping(): Promise<void> {
    this.#ping.get();
  }

  async close(): Promise<void> {
    // Writes already queued commit first: each was accepted, and its caller waits for the answer.
    await this.#commits.drain();
    if (this.db.open) this.db.close();
  }
}
