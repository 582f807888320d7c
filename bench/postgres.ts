// PostgreSQL for the API benchmark: whether the server answers, and a schema of its own per
// database the benchmark fills, dropped after (also when the run is interrupted: see cleanup.ts).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { onInterrupt } from './cleanup.ts';

/** The server the PostgreSQL runs use: `BENCH_DATABASE_URL`, else the tests' `TEST_DATABASE_URL`, else the local one. */
export function postgresUrlOf(env: NodeJS.ProcessEnv = process.env): string {
  return env.BENCH_DATABASE_URL || env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
}

/** Why PostgreSQL at `url` cannot be used, or null when it answers. */
export async function postgresUnavailable(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return error instanceof Error ? error.message || error.constructor.name : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

/** A URL whose connections use `schema` for every unqualified name (as the server tests do). */
export function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  return parsed.toString();
}

export interface BenchSchema {
  name: string;
  /** The server's URL with `search_path` set to the schema. */
  url: string;
  /** Drops the schema with everything in it; safe to call twice. */
  drop(): Promise<void>;
}

/** A new, empty schema on the server at `url`. */
export async function createSchema(url: string, prefix = 'np_bench'): Promise<BenchSchema> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await run(url, `CREATE SCHEMA "${name}"`);
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    forget();
    await run(url, `DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  };
  const forget = onInterrupt(drop);
  return { name, url: withSearchPath(url, name), drop };
}

async function run(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
