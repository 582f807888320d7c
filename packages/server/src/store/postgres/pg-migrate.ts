import type pg from 'pg';
import type { RecordedSchema } from '../../compile/applied-state.ts';
import type {
  MigrationPlan,
  MigrationProbe,
  ProbedColumn,
  ProbedRow,
  SchemaChange,
} from '../../compile/migration-contract.ts';
import type { Value } from '../../compile/record-types.ts';
import { SCHEMA_TABLE, type SqlColumn, type SqlSchema, type SqlTable } from '../../compile/sql-schema.ts';
import { NEWEST_SCHEMA_SQL, recordedSchemaOf } from '../schema-apply.ts';
import { columnDdl, indexDdl, pgName, quoteIdentifier as q, sqlLiteral, tableDdl } from './pg-ddl.ts';

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

  async columns(table: string): Promise<ProbedColumn[] | null> {
    const { rows } = await this.#client.query<{ column_name: string; is_nullable: string }>(
      `SELECT column_name, is_nullable FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
      [pgName(table)],
    );
    return rows.length === 0 ? null : rows.map((r) => ({ name: r.column_name, notNull: r.is_nullable === 'NO' }));
  }

  async rowCount(table: string): Promise<number> {
    const { rows } = await this.#client.query<{ n: number }>(`SELECT count(*) AS "n" FROM ${q(table)}`);
    return Number(rows[0]?.n ?? 0);
  }

  /** In batches by id: every table has one, the primary key. */
  async *rows(table: string, columns: readonly SqlColumn[]): AsyncIterable<ProbedRow> {
    if (columns.length === 0) return;
    const select = columns.map((c) => q(c.name)).join(', ');
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
        const { _ninepoint_id: _, ...values } = row;
        yield values;
      }
      if (rows.length < PROBE_BATCH) return;
    }
  }
}

/**
 * Makes the plan's changes inside the caller's transaction. PostgreSQL alters all of them in
 * place (DDL is transactional: a failure rolls everything back). A column added NOT NULL to a table
 * with rows is added empty, filled, then constrained.
 */
export async function applyPgPlan(client: pg.PoolClient, plan: MigrationPlan, schema: SqlSchema): Promise<void> {
  const changes = plan.steps.flatMap((s) => s.changes);
  const layouts = new Map<string, SqlTable>([...plan.tables, ...schema.tables].map((t) => [t.name, t]));
  const run = (sql: string, params: unknown[] = []) => client.query(sql, params);
  for (const change of changes) if (change.kind === 'drop-index') await run(`DROP INDEX IF EXISTS ${q(change.index)}`);
  for (const change of changes) {
    if (change.kind === 'create-table') for (const statement of tableDdl(change.table)) await run(statement);
  }
  for (const change of changes) {
    switch (change.kind) {
      case 'recreate-column':
        await run(`ALTER TABLE ${q(change.table)} DROP COLUMN ${q(change.column.name)}`);
        await addColumn(client, change);
        break;
      case 'add-column':
        await addColumn(client, change);
        break;
      case 'fill-nulls':
        await run(`UPDATE ${q(change.table)} SET ${q(change.column)} = $1 WHERE ${q(change.column)} IS NULL`, [
          change.value,
        ]);
        break;
      case 'set-not-null':
        await run(`ALTER TABLE ${q(change.table)} ALTER COLUMN ${q(change.column)} SET NOT NULL`);
        break;
      case 'drop-not-null':
        await run(`ALTER TABLE ${q(change.table)} ALTER COLUMN ${q(change.column)} DROP NOT NULL`);
        break;
      case 'drop-reference':
        await dropReference(client, change.table, change.column);
        break;
      default:
        break;
    }
  }
  for (const change of changes) {
    if (change.kind !== 'add-index') continue;
    const layout = layouts.get(change.table);
    if (!layout) throw new Error(`The migration plan indexes table ${change.table} but does not lay it out.`);
    await run(indexDdl(layout, change.index));
  }
  // Also lays out indexes a database made by an older version may lack; each is a no-op when present.
  for (const table of schema.tables) for (const index of table.indexes) await run(indexDdl(table, index));
}

async function addColumn(
  client: pg.PoolClient,
  change: Extract<SchemaChange, { kind: 'add-column' | 'recreate-column' }>,
): Promise<void> {
  const { column, fill } = change;
  const table = q(change.table);
  const needsFill = fill !== null && fill !== column.default;
  await client.query(
    `ALTER TABLE ${table} ADD COLUMN ${columnDdl({ ...column, notNull: column.notNull && !needsFill })}`,
  );
  if (needsFill) {
    await client.query(`UPDATE ${table} SET ${q(column.name)} = ${sqlLiteral(fill)}`);
    if (column.notNull) await client.query(`ALTER TABLE ${table} ALTER COLUMN ${q(column.name)} SET NOT NULL`);
  }
}

/** Drops the foreign key of one column: a kept column must not keep its target's rows from being deleted. */
async function dropReference(client: pg.PoolClient, table: string, column: string): Promise<void> {
  const { rows } = await client.query<{ conname: string }>(
    `SELECT c.conname FROM pg_constraint c
     JOIN pg_class t ON t.oid = c.conrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = current_schema()
     JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY (c.conkey)
     WHERE c.contype = 'f' AND t.relname = $1 AND a.attname = $2`,
    [pgName(table), column],
  );
  for (const row of rows) await client.query(`ALTER TABLE ${q(table)} DROP CONSTRAINT ${q(row.conname)}`);
}
