import type Database from 'better-sqlite3';
import type { ApiRecord, Value } from '../../compile/record-types.ts';
import type { SqlColumn, SqlTable } from '../../compile/sql-schema.ts';
import { sumPlaces } from '../record-logic.ts';
import type { Records } from '../records-core.ts';
import type { Prepared, RecordsDialect, Row, Violation } from '../records-dialect.ts';
import { runSync, type Step } from '../step.ts';
import { USER_FOR_EXPRESSIONS_SQL, USERS_TABLE } from '../users-table.ts';
import { quoteIdentifier } from './sqlite-ddl.ts';
import { StatementCache } from './statement-cache.ts';

/** An entity's records in SQLite. */
export type SqliteRecords = Records<Database.Database>;

/**
 * Runs one write transaction's work and answers its result. The work is synchronous; a runner may
 * answer later (a Promise), for instance when it commits several writes at once.
 */
export type TransactionRunner = <T>(work: () => T) => T | Promise<T>;

/**
 * Every write of the records runs through this one function: `BEGIN IMMEDIATE`, the work,
 * `COMMIT` (or `ROLLBACK` when it throws). IMMEDIATE takes the write lock at the start, so another
 * process's writer cannot make the transaction fail half-way; within this process, better-sqlite3
 * runs one at a time anyway. `SqliteStore` passes its dialects group commit instead (group-commit.ts).
 */
export function immediateTransactions(db: Database.Database): TransactionRunner {
  const transaction = db.transaction((work: () => unknown) => work());
  return <T>(work: () => T) => transaction.immediate(work) as T;
}

/** What SQLite stores and binds: booleans are 0 or 1. */
export type Param = string | number | null;

/** A value as SQLite binds it: booleans as 0 or 1. */
export function toSqlite(value: unknown): Param {
  return typeof value === 'boolean' ? (value ? 1 : 0) : (value as Param);
}

/**
 * The records core's SQLite: `?` placeholders, LIKE, statements prepared once on the connection
 * (better-sqlite3), and transactions through one runner. Every call answers at once.
 */
export class SqliteDialect implements RecordsDialect<Database.Database> {
  readonly name = 'sqlite';
  readonly sync = true;
  readonly idle: Database.Database;
  readonly like = 'LIKE';
  readonly forUpdate = '';
  readonly #cache: StatementCache<Prepared<Database.Database>>;
  readonly #transaction: TransactionRunner;
  readonly #gate: (() => Promise<void> | undefined) | undefined;
  #selectUser: Database.Statement<[string], ApiRecord> | undefined;

  constructor(
    db: Database.Database,
    transaction: TransactionRunner = immediateTransactions(db),
    gate?: () => Promise<void> | undefined,
  ) {
    this.idle = db;
    this.#transaction = transaction;
    this.#gate = gate;
    this.#cache = new StatementCache((sql) => this.prepare(sql));
  }

  gate(): Promise<void> | undefined {
    return this.#gate?.();
  }

  quote(name: string): string {
    return quoteIdentifier(name);
  }

  columnKey(name: string): string {
    return name;
  }

  placeholder(): string {
    return '?';
  }

  nullsOrder(): string {
    // SQLite's own order: NULLs first ascending, last descending.
    return '';
  }

  sum(column: SqlColumn): string {
    const total = `sum(${this.quote(column.name)})`;
    const places = sumPlaces(column);
    // Decimals are stored as REAL and added in floating point (0.1 + 0.2 is 0.30000000000000004):
    // rounded to the places they were written with, the sum is the one NUMERIC would answer.
    return places === null ? total : `round(${total}, ${places})`;
  }

  stateAmong(states: readonly string[], bind: (value: unknown) => string): string {
    return `"state" IN (${states.map(bind).join(', ')})`;
  }

  toDb(_column: SqlColumn, value: Value): Param {
    return toSqlite(value);
  }

  fromJson(stored: unknown): Record<string, Value> | null {
    return typeof stored === 'string' ? (JSON.parse(stored) as Record<string, Value>) : null;
  }

  prepare(sql: string): Prepared<Database.Database> {
    // better-sqlite3 binds an array's items as the statement's parameters.
    const statement = this.idle.prepare<unknown[], Row>(sql);
    return {
      one: (_conn, params) => statement.get(params),
      byId: (_conn, id) => statement.get(id),
      all: (_conn, params) => statement.all(params),
      run: (_conn, params) => statement.run(params).changes,
    };
  }

  cached(sql: string): Prepared<Database.Database> {
    return this.#cache.get(sql);
  }

  /** Prepared on first use, once the users table exists; before it does (no sign-in), there are no users. */
  user(_conn: Database.Database, id: string): ApiRecord | undefined {
    if (!this.#selectUser) {
      const exists = this.idle
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
        .get(USERS_TABLE);
      if (!exists) return undefined;
      this.#selectUser = this.idle.prepare<[string], ApiRecord>(USER_FOR_EXPRESSIONS_SQL);
    }
    return this.#selectUser.get(id);
  }

  transaction<T>(work: (conn: Database.Database) => Step<T>): T | Promise<T> {
    return this.#transaction(() => runSync(work(this.idle)));
  }

  violation(error: unknown, table: SqlTable): Violation | null {
    const code = sqliteCode(error);
    if (code === 'SQLITE_CONSTRAINT_UNIQUE') return { kind: 'unique', field: uniqueField(error, table) };
    if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return { kind: 'foreign-key' };
    return null;
  }
}

/** SQLite names the column: `UNIQUE constraint failed: books.isbn`. */
function uniqueField(error: unknown, table: SqlTable): string {
  const unique = table.indexes.filter((i) => i.unique && i.columns.length === 1).map((i) => i.columns[0] as string);
  const message = error instanceof Error ? error.message : '';
  const prefix = `${table.name}.`;
  const named = message
    .replace(/^.*constraint failed: /, '')
    .split(', ')
    .map((part) => (part.startsWith(prefix) ? part.slice(prefix.length) : ''))
    .find((column) => unique.includes(column));
  return named ?? unique[0] ?? 'id';
}

function sqliteCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
}
