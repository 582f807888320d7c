import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Model } from '@ninepoint/spec';
import Database from 'better-sqlite3';
import { blockingSteps } from '../../compile/migration-contract.ts';
import { planMigration } from '../../compile/migration-planner.ts';
import { MigrationRefusedError } from '../../compile/migration-report.ts';
import { HISTORY_TABLE, SCHEMA_TABLE, type SqlSchema, type SqlTable } from '../../compile/sql-schema.ts';
import { recordsOf, servedTables } from '../records-core.ts';
import type { AppliedSchema, ApplyOptions, Store, Synchronous } from '../store.ts';
import { HISTORY_BEFORE_COLUMN, HISTORY_TABLE_DDL, quoteIdentifier, SCHEMA_TABLE_DDL } from './sqlite-ddl.ts';
import { SqliteDialect, type SqliteRecords } from './sqlite-dialect.ts';
import { applySqlitePlan, readRecordedSchema, SqliteMigrationProbe } from './sqlite-migrate.ts';
import { SqliteRunner } from './sqlite-runner.ts';

export interface SqliteStoreOptions {
  /**
   * `normal` (the default): WAL with `synchronous=NORMAL` survives a killed process, but a power
   * loss can roll back the last commits. `full` makes every acknowledged write durable, at about
   * a third of the write throughput.
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
  #records = new Map<string, SqliteRecords>();

  private constructor(location: string, db: Database.Database) {
    this.location = location;
    this.db = db;
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
    return new SqliteStore(path, db);
  }

  async applySchema(schema: SqlSchema, model: Model, options: ApplyOptions = {}): Promise<AppliedSchema> {
    const { db } = this;
    const dryRun = options.dryRun ?? false;
    const allowDestructive = options.allowDestructive ?? false;
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
        applied = await this.#migrate(schema, model, dryRun, allowDestructive);
        db.exec(dryRun ? 'ROLLBACK' : 'COMMIT');
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw error;
      }
    } finally {
      if (!dryRun) db.pragma('foreign_keys = ON');
    }
    if (applied.applied) this.#prepare(schema, applied.plan.tables);
    return applied;
  }

  async #migrate(schema: SqlSchema, model: Model, dryRun: boolean, allowDestructive: boolean): Promise<AppliedSchema> {
    const { db } = this;
    const last = readRecordedSchema(db);
    const plan = await planMigration({
      previous: last?.state ?? null,
      model,
      schema,
      probe: new SqliteMigrationProbe(db),
    });
    if (dryRun) return { plan, applied: false, recorded: false };
    if (blockingSteps(plan, allowDestructive).length > 0) {
      throw new MigrationRefusedError(plan, { allowDestructive, location: this.location });
    }
    db.exec(SCHEMA_TABLE_DDL);
    for (const statement of HISTORY_TABLE_DDL) db.exec(statement);
    const historyColumns = db
      .prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)')
      .all(HISTORY_TABLE);
    if (!historyColumns.some((c) => c.name === HISTORY_BEFORE_COLUMN)) {
      db.exec(
        `ALTER TABLE ${quoteIdentifier(HISTORY_TABLE)} ADD COLUMN ${quoteIdentifier(HISTORY_BEFORE_COLUMN)} TEXT`,
      );
    }
    applySqlitePlan(db, plan, schema);
    const modelJson = JSON.stringify(model);
    const tablesJson = JSON.stringify(plan.tables);
    const recorded = last?.modelJson !== modelJson || last.tablesJson !== tablesJson;
    if (recorded) {
      db.prepare(
        `INSERT INTO ${quoteIdentifier(SCHEMA_TABLE)} (applied_at, model_version, product, model, tables) VALUES (?, ?, ?, ?, ?)`,
      ).run(new Date().toISOString(), model.version, model.product.name, modelJson, tablesJson);
    }
    return { plan, applied: true, recorded };
  }

  /**
   * Prepares the statements of every table, once: a request never prepares a point read or
   * write. Each table is served as the migration left it (`servedTables`).
   */
  #prepare(schema: SqlSchema, layout: readonly SqlTable[]): void {
    this.#records = recordsOf(new SqliteDialect(this.db), servedTables(schema.tables, layout));
  }

  records(entity: string): SqliteRecords {
    const records = this.#records.get(entity);
    if (!records) throw new Error(`The table of ${entity} is not ready: apply the schema first.`);
    return records;
  }

  async ping(): Promise<void> {
    this.#ping.get();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
