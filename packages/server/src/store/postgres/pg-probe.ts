import type pg from 'pg';
import type { RecordedSchema } from '../../compile/applied-state.ts';
import type { MigrationProbe, ProbedColumn, ProbedRow } from '../../compile/migration-contract.ts';
import type { Value } from '../../compile/record-types.ts';
import { SCHEMA_TABLE, type SqlColumn } from '../../compile/sql-schema.ts';
import { NEWEST_SCHEMA_SQL, recordedSchemaOf } from '../schema-apply.ts';
import { pgName, quoteIdentifier as q } from './pg-ddl.ts';

/** Rows the probe reads per query: a migration never holds a whole large table in memory. */
const PROBE_BATCH = 1000;

/** Reads the newest `_ninepoint_schema` row of the current schema, if there is one. */
export async function readRecordedSchema(client: pg.PoolClient): Promise<RecordedSchema | null> {
  const exists = await client.query(
    'SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1',
    [SCHEMA_TABLE],
  );
  if ((exists.rowCount ?? 0) === 0) return null;
  return recordedSchemaOf((await client.query<{ model: string; tables: string }>(NEWEST_SCHEMA_SQL)).rows[0]);
}

/** The planner's view of a PostgreSQL database, read inside the migration's transaction. */
export class PgMigrationProbe implements MigrationProbe {
  readonly #client: pg.PoolClient;

  constructor(client: pg.PoolClient) {
    this.#client = client;
  }

  async columns(table: string, names: readonly string[]): Promise<ProbedColumn[] | null> {
    const { rows } = await this.#client.query<{ column_name: string; is_nullable: string }>(
      `SELECT column_name, is_nullable FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
      [pgName(table)],
    );
    const named = new Map(names.map((name) => [pgName(name), name]));
    return rows.length === 0
      ? null
      : rows.map((r) => ({ name: named.get(r.column_name) ?? r.column_name, notNull: r.is_nullable === 'NO' }));
  }

  async rowCount(table: string): Promise<number> {
    const { rows } = await this.#client.query<{ n: number }>(`SELECT count(*) AS "n" FROM ${q(table)}`);
    return Number(rows[0]?.n ?? 0);
  }

  /** In batches by id: every table has one, the primary key. */
  async *rows(table: string, columns: readonly SqlColumn[]): AsyncIterable<ProbedRow> {
    if (columns.length === 0) return;
    const select = columns.map((c) => q(c.name)).join(', ');
    // Keyed by the field's name: a long one comes back under the name PostgreSQL keeps.
    const keys = columns.map((c) => [c.name, pgName(c.name)] as const);
    let after: string | null = null;
    for (;;) {
      const { rows }: { rows: Record<string, Value>[] } = await this.#client.query<Record<string, Value>>(
        after === null
          ? `SELECT ${select}, "id" AS "_ninepoint_id" FROM ${q(table)} ORDER BY "id" LIMIT ${PROBE_BATCH}`
          : `SELECT ${select}, "id" AS "_ninepoint_id" FROM ${q(table)} WHERE "id" > $1 ORDER BY "id" LIMIT ${PROBE_BATCH}`,
        after === null ? [] : [after],
      );
      for (const row of rows) {
        after = String(row._ninepoint_id);
        const values: Record<string, Value> = {};
        for (const [name, key] of keys) values[name] = row[key] as Value;
        yield values;
      }
      if (rows.length < PROBE_BATCH) return;
    }
  }
}
