import type Database from 'better-sqlite3';
import type { MigrationPlan, SchemaChange } from '../../compile/migration-contract.ts';
import type { SqlSchema, SqlTable } from '../../compile/sql-schema.ts';
import { columnDdl, indexDdl, quoteIdentifier as q, sqlLiteral, tableDdl } from './sqlite-ddl.ts';
import { toSqlite } from './sqlite-dialect.ts';
import { type TableInfo, tableInfo } from './sqlite-probe.ts';

const REBUILD_TABLE = '_ninepoint_rebuild';

/**
 * Makes the plan's changes, inside the caller's transaction and with foreign keys off (SQLite
 * ignores that pragma inside a transaction, so the caller sets it first). What SQLite can alter in
 * place (new columns that may be empty or have a constant default, indexes) is altered; a table
 * whose columns' constraints change is rebuilt. Every index of the schema's tables is made sure of
 * afterwards. Throws when a rebuild would not keep every row, or a foreign key no longer holds.
 */
export function applySqlitePlan(db: Database.Database, plan: MigrationPlan, schema: SqlSchema): void {
  const changes = plan.steps.flatMap((s) => s.changes);
  const layouts = new Map(plan.tables.map((t) => [t.name, t]));
  for (const change of changes) if (change.kind === 'drop-index') db.exec(`DROP INDEX IF EXISTS ${q(change.index)}`);
  for (const change of changes) {
    if (change.kind === 'create-table') for (const statement of tableDdl(change.table)) db.exec(statement);
  }
  const byTable = new Map<string, SchemaChange[]>();
  for (const change of changes) {
    if (change.kind === 'create-table' || change.kind === 'drop-index' || change.kind === 'add-index') continue;
    byTable.set(change.table, [...(byTable.get(change.table) ?? []), change]);
  }
  for (const [name, list] of byTable) {
    const layout = layouts.get(name);
    if (!layout) throw new Error(`The migration plan changes table ${name} but does not lay it out.`);
    if (list.some(needsRebuild)) {
      rebuildTable(db, layout, list, schema.tables.find((t) => t.name === name) ?? null);
      continue;
    }
    for (const change of list) {
      if (change.kind === 'add-column') {
        db.exec(`ALTER TABLE ${q(name)} ADD COLUMN ${columnDdl(change.column)}`);
        if (change.fill !== null && change.fill !== change.column.default) {
          db.prepare(`UPDATE ${q(name)} SET ${q(change.column.name)} = ?`).run(toSqlite(change.fill));
        }
      } else if (change.kind === 'fill-nulls') {
        db.prepare(`UPDATE ${q(name)} SET ${q(change.column)} = ? WHERE ${q(change.column)} IS NULL`).run(
          toSqlite(change.value),
        );
      }
    }
  }
  for (const change of changes) if (change.kind === 'add-index') db.exec(indexDdl(change.table, change.index));
  // Also lays out indexes a database made by an older version may lack; each is a no-op when present.
  for (const table of schema.tables) for (const index of table.indexes) db.exec(indexDdl(table.name, index));
  const broken = db.prepare<[], { table: string; parent: string }>('PRAGMA foreign_key_check').all();
  if (broken.length > 0) {
    const first = broken[0];
    throw new Error(
      `The migration would leave ${broken.length} row(s) referring to records that do not exist (first: a row of ${first?.table} referring to ${first?.parent}); nothing was changed.`,
    );
  }
}

/**
 * SQLite alters little in place: it cannot change a column's NOT NULL or foreign key, nor add a
 * NOT NULL column without a constant default.
 */
function needsRebuild(change: SchemaChange): boolean {
  switch (change.kind) {
    case 'set-not-null':
    case 'drop-not-null':
    case 'drop-reference':
    case 'recreate-column':
      return true;
    case 'add-column':
      return (
        change.column.notNull &&
        (change.column.default === null || (change.fill !== null && change.fill !== change.column.default))
      );
    default:
      return false;
  }
}

/**
 * SQLite's documented way to change a table's definition (https://www.sqlite.org/lang_altertable.html,
 * "Making Other Kinds Of Table Schema Changes"): create the new table, copy every row, drop the old
 * one, rename the new one, lay out the indexes again. Columns the schema does not describe (kept
 * ones) keep their stored type and default, lose their foreign key and, in a live table, NOT NULL.
 */
function rebuildTable(db: Database.Database, layout: SqlTable, changes: SchemaChange[], schema: SqlTable | null): void {
  const actual = tableInfo(db, layout.name);
  const source = new Map<string, string>(actual.map((c) => [c.name, q(c.name)]));
  for (const change of changes) {
    if (change.kind === 'add-column' || change.kind === 'recreate-column') {
      source.set(change.column.name, change.fill === null ? 'NULL' : sqlLiteral(change.fill));
    } else if (change.kind === 'fill-nulls') {
      source.set(change.column, `COALESCE(${q(change.column)}, ${sqlLiteral(change.value)})`);
    }
  }
  const described = new Set(schema?.columns.map((c) => c.name) ?? []);
  const columns: string[] = [];
  const definitions: string[] = [];
  for (const column of layout.columns) {
    if (!source.has(column.name)) continue;
    columns.push(column.name);
    const stored = actual.find((c) => c.name === column.name);
    definitions.push(
      described.has(column.name) || !stored ? columnDdl(column) : storedColumnDdl(stored, column.notNull, actual),
    );
  }
  // A column the layout does not know is kept all the same: a rebuild never drops data.
  for (const stored of actual) {
    if (columns.includes(stored.name)) continue;
    columns.push(stored.name);
    definitions.push(storedColumnDdl(stored, false, actual));
  }
  const before = Number(db.prepare<[], { n: number }>(`SELECT count(*) AS "n" FROM ${q(layout.name)}`).get()?.n ?? 0);
  db.exec(`DROP TABLE IF EXISTS ${q(REBUILD_TABLE)}`);
  db.exec(`CREATE TABLE ${q(REBUILD_TABLE)} (\n  ${definitions.join(',\n  ')}\n)`);
  const copied = db
    .prepare(
      `INSERT INTO ${q(REBUILD_TABLE)} (${columns.map(q).join(', ')}) SELECT ${columns.map((c) => source.get(c) ?? 'NULL').join(', ')} FROM ${q(layout.name)}`,
    )
    .run().changes;
  if (copied !== before) {
    throw new Error(`Rebuilding table ${layout.name} copied ${copied} of its ${before} rows; nothing was changed.`);
  }
  db.exec(`DROP TABLE ${q(layout.name)}`);
  db.exec(`ALTER TABLE ${q(REBUILD_TABLE)} RENAME TO ${q(layout.name)}`);
  const kept = new Set(columns);
  for (const index of layout.indexes) {
    if (index.columns.every((c) => kept.has(c))) db.exec(indexDdl(layout.name, index));
  }
}

/** A column as it is stored (its declared type and default), without a foreign key. */
function storedColumnDdl(column: TableInfo, notNull: boolean, all: readonly TableInfo[]): string {
  const parts = [q(column.name)];
  if (column.type) parts.push(column.type);
  if (column.pk === 1 && all.filter((c) => c.pk > 0).length === 1) parts.push('PRIMARY KEY');
  if (notNull) parts.push('NOT NULL');
  if (column.dflt_value !== null) parts.push(`DEFAULT ${column.dflt_value}`);
  return parts.join(' ');
}
