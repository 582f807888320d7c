import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Model } from '@ninepoint/spec';
import Database from 'better-sqlite3';
import { SCHEMA_TABLE, type SqlSchema, type SqlTable } from '../../compile/sql-schema.ts';
import type { AppliedSchema, Store, Synchronous } from '../store.ts';
import { HISTORY_TABLE_DDL, quoteIdentifier, SCHEMA_TABLE_DDL, tableDdl } from './sqlite-ddl.ts';
import {
  type HistoryRow,
  INSERT_HISTORY_SQL,
  SELECT_HISTORY_SQL,
  type SharedStatements,
  SqliteRecords,
  StatementCache,
} from './sqlite-records.ts';

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
  readonly #ping: Database.Statement;
  #records = new Map<string, SqliteRecords>();

  private constructor(location: string, db: Database.Database) {
    this.location = location;
    this.db = db;
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

  async applySchema(schema: SqlSchema, model: Model): Promise<AppliedSchema> {
    const { db } = this;
    const modelJson = JSON.stringify(model);
    const apply = db.transaction((): AppliedSchema => {
      const existing = new Set(
        db
          .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
          .all()
          .map((r) => r.name),
      );
      db.exec(SCHEMA_TABLE_DDL);
      for (const statement of HISTORY_TABLE_DDL) db.exec(statement);
      const created: string[] = [];
      const missingColumns: AppliedSchema['missingColumns'] = [];
      for (const table of schema.tables) {
        if (existing.has(table.name)) {
          const have = new Set(this.columnsOf(table.name));
          const missing = table.columns.map((c) => c.name).filter((c) => !have.has(c));
          if (missing.length > 0) missingColumns.push({ table: table.name, columns: missing });
        } else {
          created.push(table.name);
        }
        for (const statement of tableDdl(table)) db.exec(statement);
      }
      const last = db
        .prepare<[], { model: string }>(`SELECT model FROM ${quoteIdentifier(SCHEMA_TABLE)} ORDER BY id DESC LIMIT 1`)
        .get();
      const recorded = last?.model !== modelJson;
      if (recorded) {
        db.prepare(
          `INSERT INTO ${quoteIdentifier(SCHEMA_TABLE)} (applied_at, model_version, product, model, tables) VALUES (?, ?, ?, ?, ?)`,
        ).run(new Date().toISOString(), model.version, model.product.name, modelJson, JSON.stringify(schema.tables));
      }
      return { created, missingColumns, recorded };
    });
    // IMMEDIATE: two servers starting on one file take turns instead of failing half-way.
    const applied = apply.immediate();
    this.#prepare(schema, applied);
    return applied;
  }

  /**
   * Prepares the statements of every table that has all its columns, once: a request never
   * prepares a point read or write. A table missing columns gets none (serving it needs a migration).
   */
  #prepare(schema: SqlSchema, applied: AppliedSchema): void {
    const { db } = this;
    const incomplete = new Set(applied.missingColumns.map((m) => m.table));
    const ready = schema.tables.filter((t) => !incomplete.has(t.name));
    const shared: SharedStatements = {
      insertHistory: db.prepare(INSERT_HISTORY_SQL),
      selectHistory: db.prepare<[string, string], HistoryRow>(SELECT_HISTORY_SQL),
      exists: new Map(
        ready.map((t) => [
          t.name,
          db.prepare<[string], unknown>(`SELECT 1 FROM ${quoteIdentifier(t.name)} WHERE "id" = ?`),
        ]),
      ),
      cache: new StatementCache(db),
      reader: {
        get: (entity, id) => this.#records.get(entity)?.read(id),
        count: (entity, column, value, states, excludeId) => {
          const records = this.#records.get(entity);
          if (!records) throw new Error(`The table of ${entity} is not ready.`);
          return records.count(column, value, states, excludeId);
        },
      },
    };
    const records = new Map<string, SqliteRecords>();
    for (const table of ready) {
      const referrers = ready.flatMap((other: SqlTable) =>
        other.columns.filter((c) => c.references?.table === table.name).map((column) => ({ table: other, column })),
      );
      records.set(table.entity, new SqliteRecords(db, table, referrers, shared));
    }
    this.#records = records;
  }

  records(entity: string): SqliteRecords {
    const records = this.#records.get(entity);
    if (!records) throw new Error(`The table of ${entity} is not ready: apply the schema first.`);
    return records;
  }

  /** The column names of a table, in order. */
  columnsOf(table: string): string[] {
    return this.db
      .prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)')
      .all(table)
      .map((r) => r.name);
  }

  async ping(): Promise<void> {
    this.#ping.get();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
