/**
 * A database's tables as `init --from` reads them, the same for every database: what the spec
 * is written from. Each reader (`read-sqlite.ts`, `read-postgres.ts`) fills it from its catalogue.
 */
export interface SourceSchema {
  /** For the spec's first point and the terminal: `SQLite file shop.db`, `PostgreSQL 127.0.0.1/test, schema public`. */
  description: string;
  tables: SourceTable[];
}

export interface SourceTable {
  name: string;
  columns: SourceColumn[];
  /** The primary key's columns, in key order; empty when the table has none. */
  primaryKey: string[];
  foreignKeys: SourceForeignKey[];
  /** Unique constraints and unique indexes, each its columns (the primary key not among them). */
  uniques: string[][];
  /** Check constraints, as the database prints their expressions. */
  checks: string[];
}

export interface SourceColumn {
  name: string;
  /** The declared type, lower case, without length or precision: `integer`, `character varying`, `numeric`. */
  type: string;
  /** `varchar(40)`'s 40, when declared. */
  maxLength: number | null;
  /** `numeric(10,2)`'s 2, when declared. */
  scale: number | null;
  notNull: boolean;
  /** The default as SQL text (`0`, `'open'::text`, `now()`), or null. */
  default: string | null;
  /** The values of a PostgreSQL enum type, when the column is one. */
  enumValues: string[] | null;
  /** Whether the database fills it itself (a serial, an identity, SQLite's INTEGER PRIMARY KEY). */
  generated: boolean;
  /** From the rows, for a column whose values are text: the longest value's length, and how many are blank. */
  stats: { longest: number; blanks: number } | null;
}

/** Whether a column's values are read as text, so that their lengths and blanks are measured. */
export function holdsText(type: string): boolean {
  return /char|text|clob|string|json|\[\]$|^$/.test(type);
}

export interface SourceForeignKey {
  columns: string[];
  table: string;
  refColumns: string[];
}

/** Reads a source's rows, a table at a time, every value as text (null for NULL). */
export interface SourceRows {
  rows(table: SourceTable): AsyncIterable<(string | null)[]>;
  close(): Promise<void>;
}

/** A database the source could not be read from: unreachable, not a database, no such file. */
export class SourceError extends Error {
  override name = 'SourceError';
}
