import { HISTORY_TABLE, type SqlColumn, type SqlIndex, type SqlTable } from '../../compile/sql-schema.ts';
import { Ddl } from '../ddl.ts';

const DDL = new Ddl({
  types: {
    text: 'TEXT',
    integer: 'INTEGER',
    // NUMERIC affinity keeps integers exact and compares numerically; decimals are checked by scale on the way in.
    decimal: 'NUMERIC',
    // 0 or 1.
    boolean: 'INTEGER',
    // ISO 8601 text: `2025-01-31` and `2025-01-31T09:30:00.000Z` sort as they compare.
    date: 'TEXT',
    datetime: 'TEXT',
  },
  quote: quoteIdentifier,
  booleans: ['1', '0'],
});

/** `"name"`, with embedded quotes doubled. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A literal for DDL, where parameters cannot be bound. */
export function sqlLiteral(value: string | number | boolean): string {
  return DDL.literal(value);
}

export function tableDdl(table: SqlTable): string[] {
  return [DDL.table(table), ...table.indexes.map((i) => indexDdl(table.name, i))];
}

/** `CREATE [UNIQUE] INDEX IF NOT EXISTS …` for one index of a table. */
export function indexDdl(table: string, index: SqlIndex): string {
  return DDL.index(table, index);
}

/** A column's definition inside `CREATE TABLE` or `ALTER TABLE … ADD COLUMN`. */
export function columnDdl(column: SqlColumn): string {
  return DDL.column(column);
}

export const SCHEMA_TABLE_DDL = DDL.schemaTable('INTEGER PRIMARY KEY AUTOINCREMENT');

/** The history (see `historyTableDdl`): the rowid orders a record's entries oldest first. */
export const HISTORY_TABLE_DDL = [
  DDL.historyTable('INTEGER PRIMARY KEY', 'TEXT'),
  `CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${HISTORY_TABLE}_record_idx`)} ON ${quoteIdentifier(HISTORY_TABLE)} ("entity", "record_id")`,
];

/**
 * Columns databases made before them get: `before` (older entries answer `{}`) and `how` (an
 * import's entries; null on older ones).
 */
export const HISTORY_ADDED_COLUMNS = ['before', 'how'] as const;
