import type { Model } from '@ninepoint/spec';
import pg from 'pg';
import { blockingSteps } from '../../compile/migration-contract.ts';
import { planMigration } from '../../compile/migration-planner.ts';
import { MigrationRefusedError } from '../../compile/migration-report.ts';
import { SCHEMA_TABLE, type SqlSchema, type SqlTable } from '../../compile/sql-schema.ts';
import { recordsOf, servedTables } from '../records-core.ts';
import type { AppliedSchema, ApplyOptions, Store } from '../store.ts';
import { HISTORY_TABLE_DDL, quoteIdentifier, SCHEMA_TABLE_DDL } from './pg-ddl.ts';
import { PgDialect, type PgRecords } from './pg-dialect.ts';
import { applyPgPlan, PgMigrationProbe, readRecordedSchema } from './pg-migrate.ts';
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
  [
    pg.types.builtins.TIMESTAMPTZ,
    (text: string) => (pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ)(text) as Date).toISOString(),
  ],
]);

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
  #records = new Map<string, PgRecords>();

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
    const dryRun = options.dryRun ?? false;
    const allowDestructive = options.allowDestructive ?? false;
    const applied = await inTransaction(this.pool, async (client): Promise<AppliedSchema> => {
      // Two servers starting on one database take turns; the rows the plan counted cannot change
      // before it is applied, because every write waits for the DDL's locks.
      await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
      const last = await readRecordedSchema(client);
      const plan = await planMigration({
        previous: last?.state ?? null,
        model,
        schema,
        probe: new PgMigrationProbe(client),
      });
      if (dryRun) return { plan, applied: false, recorded: false };
      if (blockingSteps(plan, allowDestructive).length > 0) {
        throw new MigrationRefusedError(plan, { allowDestructive, location: this.location });
      }
      await client.query(SCHEMA_TABLE_DDL);
      for (const statement of HISTORY_TABLE_DDL) await client.query(statement);
      await applyPgPlan(client, plan, schema);
      const modelJson = JSON.stringify(model);
      const tablesJson = JSON.stringify(plan.tables);
      const recorded = last?.modelJson !== modelJson || last.tablesJson !== tablesJson;
      if (recorded) {
        await client.query(
          `INSERT INTO ${quoteIdentifier(SCHEMA_TABLE)} ("applied_at", "model_version", "product", "model", "tables") VALUES ($1, $2, $3, $4, $5)`,
          [new Date().toISOString(), model.version, model.product.name, modelJson, tablesJson],
        );
      }
      return { plan, applied: true, recorded };
    });
    if (applied.applied) this.#prepare(schema, applied.plan.tables);
    return applied;
  }

  /** Builds the records of every table of the schema, as the migration left it (`servedTables`). */
  #prepare(schema: SqlSchema, layout: readonly SqlTable[]): void {
    this.#records = recordsOf(new PgDialect(this.pool), servedTables(schema.tables, layout));
  }

  records(entity: string): PgRecords {
    const records = this.#records.get(entity);
    if (!records) throw new Error(`The table of ${entity} is not ready: apply the schema first.`);
    return records;
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
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
