import type { MaybePromise } from './step.ts';

/** A write to the identity tables, as the PostgreSQL identity watch hears it (`SqlRunner.onIdentityChange`). */
export interface IdentityChange {
  /** The table written (`_ninepoint_users`…); null: unknown (an older trigger's word, or writes missed while not listening). */
  table: string | null;
  /** The users whose rows the statement wrote (before and after it); absent: some users, unknown which. */
  users?: readonly string[];
}

/**
 * A few statements on either database, for the runtime's own small tables (users, sessions,
 * tokens, rate limits). SQL is written once with `?` placeholders in the subset both databases
 * share; each dialect prepares a statement once and reuses it.
 */
export interface SqlRunner {
  readonly dialect: 'sqlite' | 'postgres';
  /** The rows a statement returns. */
  all<T extends object>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /**
   * The first row a statement returns, or undefined. SQLite answers at once, not in a promise:
   * every call looks up its token or session, and on SQLite that costs no promise (`await` takes
   * either).
   */
  get<T extends object>(sql: string, params?: readonly unknown[]): MaybePromise<T | undefined>;
  /** Runs a statement; answers how many rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /** Runs DDL statements in one transaction. */
  exec(statements: readonly string[]): Promise<void>;
  /**
   * A stamp that differs whenever anything may have changed in the database since it was taken:
   * any row written on this connection, by any path (SQLite's count of writes, `countWrites`), or any commit of
   * another connection or process (`data_version`). Equal stamps mean nothing was written, so what
   * was read under the first still holds. On PostgreSQL, while the server hears the identity
   * tables' notifications (`PgRunner.watchIdentity`): a stamp that changes at every write to users,
   * tokens or sessions, and undefined — keep nothing — whenever it does not listen. `forRequest`:
   * the caller serves a request read from the network in this turn of the event loop, which lets
   * SQLite read another process's commits once per turn (`SqliteRunner.changeStamp`).
   */
  changeStamp?(forRequest?: boolean): string | undefined;
  /**
   * PostgreSQL, while the server hears the identity tables' notifications: calls `listener` for
   * every write to users, tokens or sessions, by any writer (bare SQL included), once heard.
   * Returns what stops it.
   */
  onIdentityChange?(listener: (change: IdentityChange) => void): () => void;
}

/** The first row a statement returns, or undefined, as a promise on either database. */
export async function first<T extends object>(
  runner: SqlRunner,
  sql: string,
  params?: readonly unknown[],
): Promise<T | undefined> {
  return runner.get<T>(sql, params);
}

/** `f` of a value, at once when the value is there, else when its promise settles. */
export function andThen<T, U>(value: MaybePromise<T>, f: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}
