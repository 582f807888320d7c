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
  integer: 'INTEGER',
  // NUMERIC affinity keeps integers exact and compares numerically; decimals are checked by scale on the way in.
  decimal: 'NUMERIC',
  // 0 or 1.
  boolean: 'INTEGER',
  // ISO 8601 text: `2025-01-31` and `2025-01-31T09:30:00.000Z` sort as they compare.
  date: 'TEXT',
  datetime: 'TEXT',
};

/** `"name"`, with embedded quotes doubled. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A literal for DDL, where parameters cannot be bound. */
export function sqlLiteral(value: string | number | boolean): string {
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`${value} cannot be stored.`);
    return String(value);
  }
  return `'${value.replaceAll("'", "''")}'`;
}

export function tableDdl(table: SqlTable): string[] {
  const t = quoteIdentifier(table.name);
  const columns = table.columns.map((c) => `  ${columnDdl(c)}`).join(',\n');
  return [`CREATE TABLE IF NOT EXISTS ${t} (\n${columns}\n)`, ...table.indexes.map((i) => indexDdl(table.name, i))];
}

/** `CREATE [UNIQUE] INDEX IF NOT EXISTS …` for one index of a table. */
export function indexDdl(table: string, index: SqlIndex): string {
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${quoteIdentifier(index.name)} ON ${quoteIdentifier(table)} (${index.columns.map(quoteIdentifier).join(', ')})`;
}

/** A column's definition inside `CREATE TABLE` or `ALTER TABLE … ADD COLUMN`. */
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
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "applied_at" TEXT NOT NULL,
  "model_version" INTEGER NOT NULL,
  "product" TEXT NOT NULL,
  "model" TEXT NOT NULL,
  "tables" TEXT NOT NULL
)`;

/**
 * One row per change of a record, written in the transaction that makes the change. `changes` is
 * a JSON object of the fields that changed, with their new values, and `before` of their old ones
 * (on delete, every field's last value), so a record's history replays to any of its versions
 * and shows who changed what from what. Rows are never deleted: the
 * history of a deleted record stays readable. The rowid orders a record's entries oldest first.
 */
export const HISTORY_TABLE_DDL = [
  `CREATE TABLE IF NOT EXISTS ${quoteIdentifier(HISTORY_TABLE)} (
  "id" INTEGER PRIMARY KEY,
  "entity" TEXT NOT NULL,
  "record_id" TEXT NOT NULL,
  "at" TEXT NOT NULL,
  "by" TEXT,
  "action" TEXT NOT NULL,
  "transition" TEXT,
  "from_state" TEXT,
  "to_state" TEXT,
  "changes" TEXT NOT NULL,
  "before" TEXT
)`,
  `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${HISTORY_TABLE}_record_idx`)} ON ${quoteIdentifier(HISTORY_TABLE)} ("entity", "record_id")`,
];

/** Databases made before `before` existed get it (their older entries answer `{}`). */
export const HISTORY_BEFORE_COLUMN = 'before';
