import type { ApiRecord, Value } from '../compile/record-types.ts';
import type { SqlColumn, SqlTable } from '../compile/sql-schema.ts';
import type { MaybePromise, Step } from './step.ts';

/** A row as a driver answers it, by column name. */
export type Row = Record<string, unknown>;

/**
 * A statement prepared once (better-sqlite3's `Statement`, node-postgres's named query). `conn` is
 * where it runs: the dialect's `idle` connection outside a transaction, the transaction's inside.
 */
export interface Prepared<C> {
  /** The first row, or undefined. */
  one(conn: C, params: readonly unknown[]): MaybePromise<Row | undefined>;
  /** `one` with an id as the only parameter: the hot read, with no array built for it. */
  byId(conn: C, id: string): MaybePromise<Row | undefined>;
  all(conn: C, params: readonly unknown[]): MaybePromise<Row[]>;
  /** Runs it; answers how many rows it changed. */
  run(conn: C, params: readonly unknown[]): MaybePromise<number>;
}

/** A database guard a write ran into: a unique index (naming its field), or a foreign key. */
export type Violation = { kind: 'unique'; field: string } | { kind: 'foreign-key' };

/**
 * What the records core (`records-core.ts`) needs of a database: its words of SQL, its driver
 * calls and its transactions. Everything else (the order of a write's steps, the checks, the
 * history, list planning, refusals) is the core's, once for every database.
 */
export interface RecordsDialect<C> {
  readonly name: 'sqlite' | 'postgres';
  /** Every call answers at once (better-sqlite3): the core's sequences run with `runSync`. */
  readonly sync: boolean;
  /**
   * Where reads outside a transaction run (SQLite: the connection; PostgreSQL: the pool, or the
   * connection of the held transaction the caller runs in, `Store.hold`).
   */
  readonly idle: C;
  /**
   * What a read outside a held transaction waits for while one is open on the same connection
   * (SQLite), so it never sees writes that may yet be rolled back; undefined when it need not wait.
   */
  gate?(): Promise<void> | undefined;
  /** `"name"`, as this database keeps the name. */
  quote(name: string): string;
  /** The name a row from the driver holds a column under (PostgreSQL shortens a long one, `pgName`). */
  columnKey(name: string): string;
  /** The placeholder of the `n`th bound value, counting from 1. */
  placeholder(n: number): string;
  /** Matching ignoring the case of ASCII letters: SQLite's LIKE does, PostgreSQL needs ILIKE. */
  readonly like: 'LIKE' | 'ILIKE';
  /** What follows `ASC` or `DESC` on a nullable sort column so that NULLs come first ascending. */
  nullsOrder(descending: boolean): string;
  /**
   * A number column's total in a summary: an integer's exact, a decimal's with the column's places
   * (`sumPlaces`), as PostgreSQL's NUMERIC adds them. SQLite, which adds in floating point, rounds.
   */
  sum(column: SqlColumn): string;
  /** "The state is one of these"; `bind` adds a value and answers its placeholder. */
  stateAmong(states: readonly string[], bind: (value: unknown) => string): string;
  /** What ends the read of a record a write is about to change, to hold it until the end. */
  readonly forUpdate: string;
  /** A value as this database binds it in `column` (SQLite: booleans as 0 or 1). */
  toDb(column: SqlColumn, value: Value): unknown;
  /** A JSON column's stored value as an object (SQLite keeps text; PostgreSQL answers JSONB parsed). */
  fromJson(stored: unknown): Record<string, Value> | null;
  /** Prepares a statement the records use on every request. */
  prepare(sql: string): Prepared<C>;
  /** A statement by its text, kept while it is in use: the shapes of list queries are many. */
  cached(sql: string): Prepared<C>;
  /**
   * Taken before a limit's count inside a write, on the group it counts (`countGroupKey`), so that
   * two writers that could both pass the limit count one after the other. Absent where the
   * database runs one write at a time (SQLite).
   */
  lockCount?(conn: C, key: string): MaybePromise<void>;
  /** A user as expressions see one (`borrower.name`), from the runtime's users table. */
  user(conn: C, id: string): MaybePromise<ApiRecord | undefined>;
  /** Runs `work` in one write transaction, made whole or not at all. */
  transaction<T>(work: (conn: C) => Step<T>): MaybePromise<T>;
  /** Which guard `error` is, if it is one of `table`'s. */
  violation(error: unknown, table: SqlTable): Violation | null;
}
