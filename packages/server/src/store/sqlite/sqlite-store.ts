import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Model } from '@ninepoint/spec';
import Database from 'better-sqlite3';
import { HISTORY_TABLE, SCHEMA_TABLE, type SqlSchema } from '../../compile/sql-schema.ts';
import { ServedRecords } from '../records-core.ts';
import { type MigrationSteps, migrate, SCHEMA_ROW_COLUMNS } from '../schema-apply.ts';
import type { AppliedSchema, ApplyOptions, Store, Synchronous, WriteFollower } from '../store.ts';
import { GroupCommit } from './group-commit.ts';
import { HISTORY_ADDED_COLUMNS, HISTORY_TABLE_DDL, quoteIdentifier, SCHEMA_TABLE_DDL } from './sqlite-ddl.ts';
import { SqliteDialect, type SqliteRecords, type TransactionRunner } from './sqlite-dialect.ts';
import { applySqlitePlan } from './sqlite-migrate.ts';
import { readRecordedSchema, SqliteMigrationProbe } from './sqlite-probe.ts';
import { SqliteRunner } from './sqlite-runner.ts';

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
  readonly #commits: GroupCommit;
  readonly #records = new ServedRecords<Database.Database>();
  /**
   * Every write of the records runs through this one runner: group commit, each write in a
   * savepoint of its batch's transaction, answered after the batch's COMMIT.
   */
  readonly #transaction: TransactionRunner;

  private constructor(location: string, db: Database.Database, commits: GroupCommit) {
    this.location = location;
    this.db = db;
    this.#commits = commits;
    this.#transaction = (work) => commits.run(work);
    this.sql = new SqliteRunner(db);
    this.#ping = db.prepare('SELECT 1');
  }

  /** Opens (creating it and its folder when missing) the database at `path`, or `:memory:`. */
  static open(path: string, options: SqliteStoreOptions = {}): SqliteStore {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path, { timeout: options.busyTimeoutMs ?? 5000 });
    try {
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
      db.pragma('foreign_keys = ON');
    } catch (error) {
      db.close();
      throw error;
    }
    return new SqliteStore(path, db, new GroupCommit(db));
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
      this.#records.serve(new SqliteDialect(this.db, this.#transaction), schema, applied.plan.tables);
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
