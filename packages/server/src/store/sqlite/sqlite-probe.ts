import type Database from 'better-sqlite3';
import type { RecordedSchema } from '../../compile/applied-state.ts';
import type { MigrationProbe, ProbedColumn, ProbedRow } from '../../compile/migration-contract.ts';
import type { Value } from '../../compile/record-types.ts';
import { SCHEMA_TABLE, type SqlColumn } from '../../compile/sql-schema.ts';
import { NEWEST_SCHEMA_SQL, recordedSchemaOf } from '../schema-apply.ts';
import { quoteIdentifier as q } from './sqlite-ddl.ts';

/** A column as `pragma_table_info` describes it. */
export interface TableInfo {
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}

/** Reads the newest `_ninepoint_schema` row, if the table exists and has one. */
export function readRecordedSchema(db: Database.Database): RecordedSchema | null {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(SCHEMA_TABLE);
  if (!exists) return null;
  return recordedSchemaOf(db.prepare<[], { model: string; tables: string }>(NEWEST_SCHEMA_SQL).get());
}

/** The planner's view of a SQLite database; synchronous underneath, so it reads inside the migration's transaction. */
export class SqliteMigrationProbe implements MigrationProbe {
  readonly #db: Database.Database;

  constructor(db: Database.Database) {
    this.#db = db;
  }

  async columns(table: string): Promise<ProbedColumn[] | null> {
    const info = tableInfo(this.#db, table);
    return info.length === 0 ? null : info.map((c) => ({ name: c.name, notNull: c.notnull === 1 || c.pk === 1 }));
  }

  async rowCount(table: string): Promise<number> {
    const row = this.#db.prepare<[], { n: number }>(`SELECT count(*) AS "n" FROM ${q(table)}`).get();
    return Number(row?.n ?? 0);
  }

  async *rows(table: string, columns: readonly SqlColumn[]): AsyncIterable<ProbedRow> {
    if (columns.length === 0) return;
    const statement = this.#db.prepare<[], Record<string, Value>>(
      `SELECT ${columns.map((c) => q(c.name)).join(', ')} FROM ${q(table)}`,
    );
    const booleans = columns.filter((c) => c.type === 'boolean').map((c) => c.name);
    for (const row of statement.iterate()) {
      for (const name of booleans) {
        const value = row[name];
        if (typeof value === 'number') row[name] = value !== 0;
      }
      yield row;
    }
  }
}

export function tableInfo(db: Database.Database, table: string): TableInfo[] {
  return db
    .prepare<[string], TableInfo>('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)')
    .all(table);
}
