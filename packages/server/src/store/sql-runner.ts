/**
 * A few statements on either database, for the runtime's own small tables (users, sessions,
 * tokens, rate limits). SQL is written once with `?` placeholders in the subset both databases
 * share; each dialect prepares a statement once and reuses it.
 */
export interface SqlRunner {
  readonly dialect: 'sqlite' | 'postgres';
  /** The rows a statement returns. */
  all<T extends object>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a statement; answers how many rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /** Runs DDL statements in one transaction. */
  exec(statements: readonly string[]): Promise<void>;
}

/** The first row a statement returns, or undefined. */
export async function first<T extends object>(
  runner: SqlRunner,
  sql: string,
  params?: readonly unknown[],
): Promise<T | undefined> {
  const rows = await runner.all<T>(sql, params);
  return rows[0];
}
