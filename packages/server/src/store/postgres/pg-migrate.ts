import type pg from 'pg';
import type { MigrationPlan, SchemaChange } from '../../compile/migration-contract.ts';
import type { SqlSchema, SqlTable } from '../../compile/sql-schema.ts';
import { columnDdl, indexDdl, pgName, quoteIdentifier as q, sqlLiteral, tableDdl } from './pg-ddl.ts';

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
  await createTables(
    run,
    changes.flatMap((c) => (c.kind === 'create-table' ? [c.table] : [])),
  );
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

/**
 * Creates new tables in the plan's order. PostgreSQL checks a foreign key's table when it is
 * declared, so a reference to a table this plan creates later (an entity that refers to one
 * written after it, or two that refer to each other) is left out of its CREATE TABLE and added
 * once every table is there.
 */
async function createTables(run: (sql: string) => Promise<unknown>, tables: readonly SqlTable[]): Promise<void> {
  const notYet = new Set(tables.map((t) => t.name));
  const later: { table: string; column: string; target: string }[] = [];
  for (const table of tables) {
    const columns = table.columns.map((column) => {
      const target = column.references?.table;
      if (!target || target === table.name || !notYet.has(target)) return column;
      later.push({ table: table.name, column: column.name, target });
      return { ...column, references: null };
    });
    for (const statement of tableDdl({ ...table, columns })) await run(statement);
    notYet.delete(table.name);
  }
  for (const { table, column, target } of later) {
    await run(`ALTER TABLE ${q(table)} ADD FOREIGN KEY (${q(column)}) REFERENCES ${q(target)} ("id")`);
  }
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
