import { createHash } from 'node:crypto';
import {
  HISTORY_TABLE,
  SCHEMA_TABLE,
  type SqlColumn,
  type SqlIndex,
  type SqlTable,
  type SqlType,
} from '../../compile/sql-schema.ts';

const TYPES: Record<SqlType, string> = {
  text: 'TEXT',
  // JSON numbers are doubles; BIGINT keeps every integer the API can carry exactly.
  integer: 'BIGINT',
  decimal: 'NUMERIC',
  boolean: 'BOOLEAN',
  date: 'DATE',
  datetime: 'TIMESTAMPTZ',
};

/** PostgreSQL cuts longer identifiers silently, which could make two index names one. */
const MAX_IDENTIFIER = 63;

/** `"name"`, with embedded quotes doubled, shortened with a hash when PostgreSQL would cut it. */
export function quoteIdentifier(name: string): string {
  return `"${pgName(name).replaceAll('"', '""')}"`;
}

/** The name as PostgreSQL will keep it: unchanged when short enough, else a prefix and a hash of the whole. */
export function pgName(name: string): string {
  if (Buffer.byteLength(name) <= MAX_IDENTIFIER) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 10);
  return `${name.slice(0, MAX_IDENTIFIER - 11)}_${hash}`;
}

/** A literal for DDL, where parameters cannot be bound. */
export function sqlLiteral(value: string | number | boolean): string {
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`${value} cannot be stored.`);
    return String(value);
  }
  return `'${value.replaceAll("'", "''")}'`;
}

export function tableDdl(table: SqlTable): string[] {
  const columns = table.columns.map((c) => `  ${columnDdl(c)}`).join(',\n');
  return [
    `CREATE TABLE IF NOT EXISTS ${quoteIdentifier(table.name)} (\n${columns}\n)`,
    ...table.indexes.map((i) => indexDdl(table, i)),
  ];
}

/**
 * Nullable columns are indexed NULLS FIRST so that the index order is SQLite's (nulls first when
 * ascending, last when descending): lists page identically on both databases, read from the index.
 */
export function indexDdl(table: SqlTable, index: SqlIndex): string {
  const columns = index.columns.map((name) => {
    const column = table.columns.find((c) => c.name === name);
    return column && !column.notNull ? `${quoteIdentifier(name)} NULLS FIRST` : quoteIdentifier(name);
  });
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${quoteIdentifier(index.name)} ON ${quoteIdentifier(table.name)} (${columns.join(', ')})`;
}

export function columnDdl(column: SqlColumn): string {
  const parts = [quoteIdentifier(column.name), TYPES[column.type]];
  if (column.primaryKey) parts.push('PRIMARY KEY');
  if (column.notNull) parts.push('NOT NULL');
  if (column.default !== null) parts.push(`DEFAULT ${sqlLiteral(column.default)}`);
  // Users live outside the spec's tables; their references are checked by the runtime.
  if (column.references?.table) parts.push(`REFERENCES ${quoteIdentifier(column.references.table)} ("id")`);
  return parts.join(' ');
}

/** One row per applied model: a later start diffs the spec against the newest. */
export const SCHEMA_TABLE_DDL = `CREATE TABLE IF NOT EXISTS ${quoteIdentifier(SCHEMA_TABLE)} (
  "id" BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  "applied_at" TEXT NOT NULL,
  "model_version" INTEGER NOT NULL,
  "product" TEXT NOT NULL,
  "model" TEXT NOT NULL,
  "tables" TEXT NOT NULL
)`;

/** As in SQLite (`store/sqlite/sqlite-ddl.ts`); `changes` is JSONB, so it can be queried. */
export const HISTORY_TABLE_DDL = [
  `CREATE TABLE IF NOT EXISTS ${quoteIdentifier(HISTORY_TABLE)} (
  "id" BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  "entity" TEXT NOT NULL,
  "record_id" TEXT NOT NULL,
  "at" TIMESTAMPTZ NOT NULL,
  "by" TEXT,
  "action" TEXT NOT NULL,
  "transition" TEXT,
  "from_state" TEXT,
  "to_state" TEXT,
  "changes" JSONB NOT NULL,
  "before" JSONB
)`,
  `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${HISTORY_TABLE}_record_idx`)} ON ${quoteIdentifier(HISTORY_TABLE)} ("entity", "record_id", "id")`,
  // Databases made before `before` existed get it (their older entries answer `{}`).
  `ALTER TABLE ${quoteIdentifier(HISTORY_TABLE)} ADD COLUMN IF NOT EXISTS "before" JSONB`,
];
