import { createHash } from 'node:crypto';
import type pg from 'pg';

/** Errors PostgreSQL may raise for a transaction that would succeed if run again. */
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 5;

/** A query prepared once per connection under a name derived from its text. */
export interface Named {
  name: string;
  text: string;
}

const names = new Map<string, string>();

/** The statement as pg prepares it: once per connection, then reused by name. */
export function named(text: string): Named {
  let name = names.get(text);
  if (!name) {
    name = `np_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return { name, text };
}

/** Runs `work` in one transaction on a connection of its own, again when PostgreSQL asks for it. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
      if (attempt < MAX_ATTEMPTS && RETRYABLE.has(pgCode(error))) continue;
      throw error;
    } finally {
      // A connection that could not roll back is closed, not given to the next request.
      client.release(broken);
    }
  }
}

/** PostgreSQL's SQLSTATE of an error, or ''. */
export function pgCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
}
