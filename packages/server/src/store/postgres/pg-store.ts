import type { Model } from '@ninepoint/spec';
import pg from 'pg';
import { SCHEMA_TABLE, type SqlSchema } from '../../compile/sql-schema.ts';
import { Held, HeldScope } from '../held.ts';
import { ServedRecords } from '../records-core.ts';
import { type MigrationSteps, migrate, SCHEMA_ROW_COLUMNS } from '../schema-apply.ts';
import type { AppliedSchema, ApplyOptions, Store, WriteFollower } from '../store.ts';
import { HISTORY_TABLE_DDL, quoteIdentifier, SCHEMA_TABLE_DDL } from './pg-ddl.ts';
import { type PgConn, PgDialect, type PgRecords } from './pg-dialect.ts';
import { applyPgPlan } from './pg-migrate.ts';
import { PgMigrationProbe, readRecordedSchema } from './pg-probe.ts';
import { PgRunner, SCHEMA_LOCK } from './pg-runner.ts';
import { inTransaction } from './pg-transaction.ts';

export interface PgStoreOptions {
  /** Connections kept open at most (default 10). */
  poolSize?: number;
  /** How long to wait for a connection before failing, in ms (default 10 s). */
  connectTimeoutMs?: number;
}

/**
 * How values come back: as the API writes them and SQLite gives them back. Integers (BIGINT,
 * count) and decimals (NUMERIC) as numbers; dates as `YYYY-MM-DD`; date-times as ISO 8601 in UTC
 * with milliseconds. Everything else keeps pg's default.
 */
const TYPE_PARSERS = new Map<number, (text: string) => unknown>([
  [pg.types.builtins.INT8, Number],
  [pg.types.builtins.NUMERIC, Number],
  [pg.types.builtins.DATE, (text: string) => text],
  [pg.types.builtins.TIMESTAMPTZ, timestampToIso],
]);

const parseTimestamp = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ);
/** How PostgreSQL writes a timestamptz in a session whose time zone is UTC (`DateStyle` ISO, the default). */
const UTC_TIMESTAMP = /^([1-9]\d{3}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00$/;

/**
 * A timestamptz as ISO 8601 in UTC with milliseconds. In a UTC session (the usual server
 * setting) the text is rearranged, the fraction cut to milliseconds: two list columns of every row
 * paid for a Date built and written out again. Anything else (another zone, a year outside
 * 1000–9999, infinity) goes through pg's parser as before, with the same answer.
 */
export function timestampToIso(text: string): unknown {
  const utc = UTC_TIMESTAMP.exec(text);
  if (utc !== null) {
    const fraction = utc[3];
    const ms = fraction === undefined ? '000' : fraction.length >= 3 ? fraction.slice(0, 3) : fraction.padEnd(3, '0');
    return `${utc[1]}T${utc[2]}.${ms}Z`;
  }
  const parsed = parseTimestamp(text);
  return parsed instanceof Date ? parsed.toISOString() : parsed;
}

const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    TYPE_PARSERS.get(oid) ?? pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * An app's records in a PostgreSQL database, through a pool of node-postgres connections. Tables
 * live in the connection's current schema (`search_path`): several apps can share a database by
 * setting `options=-c search_path=<schema>` in the URL.
 */
export class PgStore implements Store {
  readonly dialect = 'postgres';
  readonly location: string;
  readonly pool: pg.Pool;
  readonly sql: PgRunner;
  readonly #records = new ServedRecords<PgConn>();
  readonly #held = new HeldScope<PgConn>();

  private constructor(location: string, pool: pg.Pool) {
    this.location = location;
    this.pool = pool;
    this.sql = new PgRunner(pool);
  }

  /** Connects to the database at `url` and checks that it answers. */
  static async open(url: string, options: PgStoreOptions = {}): Promise<PgStore> {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      types,
    });
    // An idle connection the server drops must not crash the process; the next query reconnects.
    pool.on('error', () => {});
    const store = new PgStore(redact(url), pool);
    try {
      await store.ping();
    } catch (error) {
      await pool.end();
      throw error;
    }
    return store;
  }

  async applySchema(schema: SqlSchema, model: Model, options: ApplyOptions = {}): Promise<AppliedSchema> {
    const applied = await inTransaction(this.pool, async (client): Promise<AppliedSchema> => {
      // Two servers starting on one database take turns; the rows the plan counted cannot change
      // before it is applied, because every write waits for the DDL's locks.
      await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
      const steps: MigrationSteps = {
        recorded: () => readRecordedSchema(client),
        probe: new PgMigrationProbe(client),
        bookkeeping: async () => {
          await client.query(SCHEMA_TABLE_DDL);
          for (const statement of HISTORY_TABLE_DDL) await client.query(statement);
        },
        apply: (plan) => applyPgPlan(client, plan, schema),
        record: async (values) => {
          const table = quoteIdentifier(SCHEMA_TABLE);
          await client.query(`INSERT INTO ${table} (${SCHEMA_ROW_COLUMNS}) VALUES ($1, $2, $3, $4, $5)`, values);
        },
      };
      return migrate(steps, schema, model, { ...options, location: this.location });
    });
    // Every table's point reads and writes are prepared now: a request never prepares one.
    if (applied.applied) this.#records.serve(new PgDialect(this.pool, this.#held), schema, applied.plan.tables);
    return applied;
  }

  /**
   * A transaction on a connection of its own, held across `work`'s awaits: the records `work` reads
   * and writes are its (each write a savepoint of it); other requests run on other connections
   * meanwhile and wait only for the rows it locks, and holds of the same `turn` for each other
   * (an advisory lock). Not run again on a serialization failure (its work is not repeatable):
   * that rolls back and throws.
   */
  hold<T>(work: () => Promise<T>, turn?: string): Promise<T> {
    return this.#held.run(
      async () => {
        const client = await this.pool.connect();
        try {
          await client.query('BEGIN');
          // Under READ COMMITTED, what a hold reads after this lock includes what the hold of the
          // same turn before it committed: two hooks reading a stock and writing it back take turns.
          if (turn !== undefined) await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 1))', [turn]);
        } catch (error) {
          client.release(error instanceof Error ? error : true);
          throw error;
        }
        return new Held<PgConn>(client);
      },
      async (held, commit) => {
        const client = held.conn as pg.PoolClient;
        let broken: Error | undefined;
        try {
          // The writes queued on it are done (or failed) before it ends.
          await held.queue;
          await client.query(commit ? 'COMMIT' : 'ROLLBACK');
        } catch (error) {
          broken = error instanceof Error ? error : new Error(String(error));
          try {
            await client.query('ROLLBACK');
            broken = undefined;
          } catch {
            // A connection that could not roll back is closed, not given to the next request.
          }
          if (commit) throw error;
        } finally {
          client.release(broken);
        }
      },
      work,
      false,
    );
  }

  afterCommit(fn: () => void): void {
    this.#held.afterCommit(fn);
  }

  follow(follower: WriteFollower): void {
    this.#records.follow(follower);
  }

  records(entity: string): PgRecords {
    return this.#records.of(entity);
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.sql.close();
    if (!this.pool.ended) await this.pool.end();
  }
}

/** The URL without its password, for messages and logs. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}
