import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { StoreOptions } from '../src/store/open-store.ts';
import { PgStore } from '../src/store/postgres/pg-store.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../src/store/store.ts';
import { tempDir } from './helpers.ts';

/**
 * The databases a suite runs on (`TEST_DATABASES`, or `SQLITE_ONLY` when its behaviour does not
 * depend on the database): SQLite always, PostgreSQL when the server at
 * `TEST_DATABASE_URL` (default `postgres://postgres@127.0.0.1:5432/test`) answers. Without it the
 * PostgreSQL runs are skipped with a printed reason, except with `CI=true`, where a missing server
 * fails the suite.
 *
 * @example
 * describe.each(TEST_DATABASES)('on $name', (db) => {
 *   it('…', async () => {
 *     const fresh = await db.fresh();
 *     try { const server = await createServer({ model, ...fresh.options }); … } finally { await fresh.remove(); }
 *   });
 * });
 */
export interface TestDatabase {
  name: 'sqlite' | 'postgres';
  /** A new, empty database (a temp file, or a PostgreSQL schema of its own) and how to remove it. */
  fresh(): Promise<FreshDatabase>;
}

export interface FreshDatabase {
  options: StoreOptions;
  /** What the database is, for `DATABASE_URL` or `--db` when a test starts a process. */
  env: { DATABASE_URL?: string; dbPath?: string };
  remove(): Promise<void>;
}

export const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const sqlite: TestDatabase = {
  name: 'sqlite',
  async fresh() {
    const temp = tempDir();
    return { options: { dbPath: temp.dbPath }, env: { dbPath: temp.dbPath }, remove: async () => temp.remove() };
  },
};

const postgres: TestDatabase = {
  name: 'postgres',
  async fresh() {
    const schema = `np_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA "${schema}"`);
    } finally {
      await admin.end();
    }
    const url = withSearchPath(TEST_POSTGRES_URL, schema);
    return {
      options: { databaseUrl: url },
      env: { DATABASE_URL: url },
      async remove() {
        const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
        await client.connect();
        try {
          await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        } finally {
          await client.end();
        }
      },
    };
  },
};

/**
 * A URL whose connections use `schema` for every unqualified name, and commit without waiting for
 * PostgreSQL to flush its write-ahead log to disk (`synchronous_commit=off`): what a commit makes
 * visible, and what survives the app's own process being killed (the crash suites), is the same;
 * only a crash of PostgreSQL's machine could lose the last commits, which no test does. PostgreSQL
 * used 9 % less CPU for the migrations and live-events files (1.62–2.06 s against 1.81–2.28 s, four
 * runs each).
 */
export function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema} -c synchronous_commit=off`);
  return parsed.toString();
}

/** Why PostgreSQL cannot be used, or null when it answers. */
async function postgresUnavailable(): Promise<string | null> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

const unavailable = await postgresUnavailable();
if (unavailable !== null && process.env.CI !== 'true') {
  console.warn(`Skipping the PostgreSQL runs: ${TEST_POSTGRES_URL} does not answer (${unavailable}).`);
}

/** The failing stand-in for PostgreSQL under CI=true when no server answers. */
const missing: TestDatabase = {
  name: 'postgres',
  async fresh() {
    throw new Error(
      `CI=true requires PostgreSQL at ${TEST_POSTGRES_URL}, which does not answer (${unavailable}). ` +
        'Start it, or set TEST_DATABASE_URL.',
    );
  },
};

/**
 * SQLite and PostgreSQL: for the suites whose behaviour depends on the database, each saying why
 * in a comment (the stores and their SQL, migrations, filters and summaries, values as each
 * database keeps them, live updates across servers, concurrency, crashes). Everything else runs on
 * `SQLITE_ONLY`.
 */
export const TEST_DATABASES: readonly TestDatabase[] =
  unavailable === null ? [sqlite, postgres] : process.env.CI === 'true' ? [sqlite, missing] : [sqlite];

/**
 * SQLite alone: for suites whose behaviour is the HTTP layer's, the checker's or the app's
 * (permissions, transitions, sign-in, the examples' walks, the browser), which run the same SQL
 * through the same store code on either database. The store's SQL is tested on both by the suites
 * on `TEST_DATABASES`; running these twice would test the same thing twice.
 */
export const SQLITE_ONLY: readonly TestDatabase[] = [sqlite];

/** True when the PostgreSQL runs are in `TEST_DATABASES` (they are skipped otherwise). */
export const POSTGRES_AVAILABLE = unavailable === null;

/**
 * Runs SQL behind the API's back (`?` placeholders), on either database: for tests that set up
 * what the API would refuse, such as a loan that fell due while nobody looked.
 */
export async function execute(store: Store, sql: string, params: unknown[] = []): Promise<void> {
  if (store instanceof SqliteStore) {
    store.db.prepare(sql).run(...(params as (string | number | null)[]));
    return;
  }
  if (store instanceof PgStore) {
    let n = 0;
    await store.pool.query(
      sql.replace(/\?/g, () => `$${++n}`),
      params,
    );
    return;
  }
  throw new Error(`No raw SQL for a ${store.dialect} store.`);
}
