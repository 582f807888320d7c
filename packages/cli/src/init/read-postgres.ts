import pg from 'pg';
import {
  holdsText,
  type SourceColumn,
  SourceError,
  type SourceRows,
  type SourceSchema,
  type SourceTable,
} from './source-schema.ts';

const TABLES = `
  SELECT c.oid, c.relname AS name
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT c.relispartition
  ORDER BY c.relname`;

const COLUMNS = `
  SELECT a.attrelid AS table_oid, a.attname AS name, a.attnotnull AS not_null,
         format_type(a.atttypid, NULL) AS type, t.typtype, t.typcategory,
         CASE WHEN a.atttypmod > 0 AND t.typname IN ('varchar', 'bpchar') THEN a.atttypmod - 4 END AS max_length,
         CASE WHEN a.atttypmod > 0 AND t.typname = 'numeric' THEN (a.atttypmod - 4) & 65535 END AS scale,
         pg_get_expr(d.adbin, d.adrelid) AS default,
         a.attidentity <> '' OR a.attgenerated <> ''
           OR coalesce(pg_get_expr(d.adbin, d.adrelid) LIKE 'nextval(%'
             OR pg_get_expr(d.adbin, d.adrelid) IN ('gen_random_uuid()', 'uuid_generate_v4()', 'uuid_generate_v1()'), false) AS generated,
         CASE WHEN t.typtype = 'e' THEN
           (SELECT array_agg(e.enumlabel::text ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid)
         END AS enum_values
  FROM pg_attribute a
  JOIN pg_type t ON t.oid = a.atttypid
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
  WHERE a.attrelid = ANY($1::oid[]) AND a.attnum > 0 AND NOT a.attisdropped
  ORDER BY a.attrelid, a.attnum`;

const CONSTRAINTS = `
  SELECT con.conrelid AS table_oid, con.contype AS kind,
         ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(num, pos)
               JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.pos) AS columns,
         ref.relname AS ref_table, refn.nspname AS ref_schema,
         ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(num, pos)
               JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num ORDER BY k.pos) AS ref_columns,
         CASE WHEN con.contype = 'c' THEN pg_get_expr(con.conbin, con.conrelid) END AS check
  FROM pg_constraint con
  LEFT JOIN pg_class ref ON ref.oid = con.confrelid
  LEFT JOIN pg_namespace refn ON refn.oid = ref.relnamespace
  WHERE con.conrelid = ANY($1::oid[]) AND con.contype IN ('p', 'f', 'c')
  ORDER BY con.conrelid, con.conname`;

/** Unique constraints and plain unique indexes (no expression, no predicate) alike. */
const UNIQUES = `
  SELECT i.indrelid AS table_oid,
         ARRAY(SELECT a.attname::text FROM unnest(i.indkey) WITH ORDINALITY k(num, pos)
               JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.num ORDER BY k.pos) AS columns
  FROM pg_index i
  JOIN pg_class ic ON ic.oid = i.indexrelid
  WHERE i.indrelid = ANY($1::oid[]) AND i.indisunique AND NOT i.indisprimary
    AND i.indexprs IS NULL AND i.indpred IS NULL
  ORDER BY i.indrelid, ic.relname`;

/**
 * Connects to PostgreSQL and reads one schema's tables from pg_catalog (partitions are read as
 * their partitioned table). An unreachable server, a refused login or a missing schema is a `SourceError`.
 */
export async function openPostgres(url: string, schema: string): Promise<SourceSchema & SourceRows> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // An error after connecting (the server going away) must not crash the process: queries fail instead.
  client.on('error', () => {});
  const where = describeUrl(url);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw new SourceError(`cannot connect to PostgreSQL at ${where}: ${messageOf(error)}`);
  }
  try {
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (exists.rowCount === 0) throw new SourceError(`PostgreSQL at ${where} has no schema "${schema}"`);
    const tables = await readTables(client, schema);
    return {
      description: `the PostgreSQL database ${where}, schema ${schema}`,
      tables,
      async *rows(table) {
        // Every value as PostgreSQL prints it, so that numbers, dates and JSON keep their text.
        const columns = table.columns.map((c) => `${quote(c.name)}::text`).join(', ');
        const cursorName = 'ninepoint_init_rows';
        await client.query('BEGIN');
        try {
          await client.query(
            `DECLARE ${cursorName} NO SCROLL CURSOR FOR SELECT ${columns} FROM ${quote(schema)}.${quote(table.name)}`,
          );
          for (;;) {
            const batch = await client.query({ text: `FETCH 1000 FROM ${cursorName}`, rowMode: 'array' });
            if (batch.rows.length === 0) break;
            for (const row of batch.rows as (string | null)[][]) yield row;
          }
        } finally {
          await client.query('ROLLBACK');
        }
      },
      async close() {
        await client.end();
      },
    };
  } catch (error) {
    await client.end().catch(() => {});
    if (error instanceof SourceError) throw error;
    throw new SourceError(`cannot read PostgreSQL at ${where}: ${messageOf(error)}`);
  }
}

async function readTables(client: pg.Client, schema: string): Promise<SourceTable[]> {
  const list = (await client.query(TABLES, [schema])).rows as { oid: number; name: string }[];
  const oids = list.map((t) => t.oid);
  const byOid = new Map<number, SourceTable>();
  for (const t of list) {
    byOid.set(t.oid, { name: t.name, columns: [], primaryKey: [], foreignKeys: [], uniques: [], checks: [] });
  }
  for (const row of (await client.query(COLUMNS, [oids])).rows) {
    const column: SourceColumn = {
      name: row.name,
      type: row.typtype === 'e' ? 'enum' : String(row.type).replace(/^.*\./, ''),
      maxLength: row.max_length,
      scale: row.scale,
      notNull: row.not_null,
      default: row.default,
      enumValues: row.enum_values,
      generated: row.generated,
      stats: null,
    };
    byOid.get(row.table_oid)?.columns.push(column);
  }
  for (const row of (await client.query(CONSTRAINTS, [oids])).rows) {
    const table = byOid.get(row.table_oid);
    if (!table) continue;
    if (row.kind === 'p') table.primaryKey = row.columns;
    else if (row.kind === 'c') table.checks.push(row.check);
    else if (row.ref_schema === schema) {
      table.foreignKeys.push({ columns: row.columns, table: row.ref_table, refColumns: row.ref_columns });
    } else {
      // A key into another schema names a table this spec does not have: kept as plain columns.
      table.checks.push(`FOREIGN KEY (${row.columns.join(', ')}) REFERENCES ${row.ref_schema}.${row.ref_table}`);
    }
  }
  for (const row of (await client.query(UNIQUES, [oids])).rows) {
    const table = byOid.get(row.table_oid);
    if (table && !sameColumns(row.columns, table.primaryKey)) table.uniques.push(row.columns);
  }
  for (const table of byOid.values()) await measure(client, schema, table);
  return [...byOid.values()];
}

/** The longest value and the blank values of each text column, in one pass over the table. */
async function measure(client: pg.Client, schema: string, table: SourceTable): Promise<void> {
  const texts = table.columns.filter((c) => holdsText(c.type));
  if (texts.length === 0) return;
  const parts = texts.flatMap((c) => [
    `max(char_length(${quote(c.name)}::text))`,
    `count(*) FILTER (WHERE trim(${quote(c.name)}::text) = '')`,
  ]);
  const result = await client.query({
    text: `SELECT ${parts.join(', ')} FROM ${quote(schema)}.${quote(table.name)}`,
    rowMode: 'array',
  });
  const row = (result.rows[0] ?? []) as (string | number | null)[];
  texts.forEach((c, i) => {
    c.stats = { longest: Number(row[2 * i] ?? 0), blanks: Number(row[2 * i + 1] ?? 0) };
  });
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((c, i) => c === b[i]);
}

/** host/database, never the password. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`;
  } catch {
    return 'the given URL';
  }
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return messageOf(error.errors[0]);
  return error instanceof Error ? error.message || String(error) : String(error);
}
