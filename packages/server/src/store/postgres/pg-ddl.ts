import { createHash } from 'node:crypto';
import { HISTORY_TABLE, type SqlColumn, type SqlIndex, type SqlTable } from '../../compile/sql-schema.ts';
import { Ddl } from '../ddl.ts';

const DDL = new Ddl({
  types: {
    text: 'TEXT',
    // JSON numbers are doubles; BIGINT keeps every integer the API can carry exactly.
    integer: 'BIGINT',
    decimal: 'NUMERIC',
    boolean: 'BOOLEAN',
    date: 'DATE',
    datetime: 'TIMESTAMPTZ',
  },
  quote: quoteIdentifier,
  booleans: ['TRUE', 'FALSE'],
});

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
  return DDL.literal(value);
}

export function tableDdl(table: SqlTable): string[] {
  return [DDL.table(table), ...table.indexes.map((i) => indexDdl(table, i))];
}

/**
 * Nullable columns are indexed NULLS FIRST so that the index order is SQLite's (nulls first when
 * ascending, last when descending): lists page identically on both databases, read from the index.
 */
export function indexDdl(table: SqlTable, index: SqlIndex): string {
  return DDL.index(table.name, index, (name) => {
    const column = table.columns.find((c) => c.name === name);
    return column && !column.notNull ? `${quoteIdentifier(name)} NULLS FIRST` : quoteIdentifier(name);
  });
}

export function columnDdl(column: SqlColumn): string {
  return DDL.column(column);
}

export const SCHEMA_TABLE_DDL = DDL.schemaTable('BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY');

/** The history (see `historyTableDdl`); `changes` is JSONB, so it can be queried. */
export const HISTORY_TABLE_DDL = [
  DDL.historyTable('BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY', 'JSONB'),
  `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${HISTORY_TABLE}_record_idx`)} ON ${quoteIdentifier(HISTORY_TABLE)} ("entity", "record_id", "id")`,
  // Databases made before `before` existed get it (their older entries answer `{}`).
  `ALTER TABLE ${quoteIdentifier(HISTORY_TABLE)} ADD COLUMN IF NOT EXISTS "before" JSONB`,
  // And `how` (an import's entries), null for every older entry.
  `ALTER TABLE ${quoteIdentifier(HISTORY_TABLE)} ADD COLUMN IF NOT EXISTS "how" TEXT`,
];
