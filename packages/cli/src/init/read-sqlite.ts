import Database from 'better-sqlite3';
import {
  holdsText,
  type SourceColumn,
  SourceError,
  type SourceRows,
  type SourceSchema,
  type SourceTable,
} from './source-schema.ts';

interface ColumnInfo {
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}

interface ForeignKeyInfo {
  id: number;
  seq: number;
  table: string;
  from: string;
  to: string | null;
}

interface IndexInfo {
  name: string;
  unique: number;
  origin: string;
  partial: number;
}

/** Opens a SQLite file read-only; a missing file or one that is not SQLite is a `SourceError`. */
export function openSqlite(path: string, shown: string): SourceSchema & SourceRows {
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new SourceError(`cannot open ${shown}: ${messageOf(error)}`);
  }
  let tables: SourceTable[];
  try {
    const names = db
      .prepare(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
      )
      .all() as { name: string; sql: string | null }[];
    // A virtual table (full-text search, say) is a module's, and so are the tables it keeps its data in.
    const virtual = names.filter((t) => /^\s*create\s+virtual\b/i.test(t.sql ?? '')).map((t) => t.name);
    tables = names
      .filter((t) => !virtual.some((v) => t.name === v || t.name.startsWith(`${v}_`)))
      .map(({ name, sql }) => readTable(db, name, sql ?? ''));
  } catch (error) {
    db.close();
    const code = error instanceof Error && 'code' in error ? error.code : '';
    if (code === 'SQLITE_NOTADB') throw new SourceError(`${shown} is not a SQLite database`);
    throw new SourceError(`cannot read ${shown}: ${messageOf(error)}`);
  }
  return {
    description: `the SQLite file ${shown}`,
    tables,
    async *rows(table) {
      const columns = table.columns.map((c) => quote(c.name)).join(', ');
      const statement = db.prepare(`SELECT ${columns} FROM ${quote(table.name)}`).raw(true);
      for (const row of statement.iterate() as Iterable<unknown[]>) yield row.map(text);
    },
    async close() {
      db.close();
    },
  };
}

function readTable(db: Database.Database, name: string, sql: string): SourceTable {
  const infos = db.prepare(`PRAGMA table_info(${quote(name)})`).all() as ColumnInfo[];
  const primaryKey = infos
    .filter((c) => c.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((c) => c.name);
  const columns = infos.map((info): SourceColumn => {
    const declared = /^\s*([^(]*?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?\s*$/.exec(info.type.toLowerCase());
    const type = declared?.[1] ?? info.type.toLowerCase();
    const first = declared?.[2] === undefined ? null : Number(declared[2]);
    const second = declared?.[3] === undefined ? null : Number(declared[3]);
    const numeric = /numeric|decimal/.test(type);
    return {
      name: info.name,
      type,
      maxLength: numeric ? null : first,
      scale: numeric ? second : null,
      // A primary key column is NOT NULL whatever SQLite's leniency says: a row always has one.
      notNull: info.notnull === 1 || info.pk > 0,
      default: info.dflt_value,
      enumValues: null,
      // INTEGER PRIMARY KEY is the rowid: SQLite numbers the rows itself.
      generated: primaryKey.length === 1 && info.pk === 1 && type === 'integer',
      stats: null,
    };
  });
  const keys = db.prepare(`PRAGMA foreign_key_list(${quote(name)})`).all() as ForeignKeyInfo[];
  const byId = new Map<number, ForeignKeyInfo[]>();
  for (const key of keys) byId.set(key.id, [...(byId.get(key.id) ?? []), key]);
  const foreignKeys = [...byId.values()].map((parts) => {
    parts.sort((a, b) => a.seq - b.seq);
    const table = parts[0]?.table ?? '';
    // A key that names no columns refers to the referenced table's primary key.
    const refColumns = parts.every((p) => p.to !== null)
      ? parts.map((p) => p.to ?? '')
      : (db.prepare(`PRAGMA table_info(${quote(table)})`).all() as ColumnInfo[])
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name);
    return { columns: parts.map((p) => p.from), table, refColumns };
  });
  const uniques = (db.prepare(`PRAGMA index_list(${quote(name)})`).all() as IndexInfo[])
    .filter((index) => index.unique === 1 && index.origin !== 'pk' && index.partial === 0)
    .map((index) =>
      (db.prepare(`PRAGMA index_info(${quote(index.name)})`).all() as { name: string | null }[]).map((c) => c.name),
    )
    .filter((cols): cols is string[] => cols.every((c) => c !== null));
  measure(db, name, columns);
  return { name, columns, primaryKey, foreignKeys, uniques, checks: checkClauses(sql) };
}

/** The longest value and the blank values of each text column, in one pass over the table. */
function measure(db: Database.Database, table: string, columns: SourceColumn[]): void {
  const texts = columns.filter((c) => holdsText(c.type));
  if (texts.length === 0) return;
  const parts = texts.flatMap((c) => [
    `max(length(${quote(c.name)}))`,
    `coalesce(sum(typeof(${quote(c.name)}) = 'text' AND trim(${quote(c.name)}) = ''), 0)`,
  ]);
  const row = db
    .prepare(`SELECT ${parts.join(', ')} FROM ${quote(table)}`)
    .raw(true)
    .get() as (number | null)[];
  texts.forEach((c, i) => {
    c.stats = { longest: row[2 * i] ?? 0, blanks: row[2 * i + 1] ?? 0 };
  });
}

/** The expressions of a CREATE TABLE's CHECK clauses (column and table constraints alike). */
export function checkClauses(sql: string): string[] {
  const found: string[] = [];
  const pattern = /\bcheck\s*\(/gi;
  for (let match = pattern.exec(sql); match; match = pattern.exec(sql)) {
    let depth = 1;
    let i = pattern.lastIndex;
    let quoteChar: string | null = null;
    for (; i < sql.length && depth > 0; i++) {
      const ch = sql[i];
      if (quoteChar) {
        if (ch === quoteChar) quoteChar = null;
      } else if (ch === "'" || ch === '"' || ch === '`') quoteChar = ch;
      else if (ch === '(') depth++;
      else if (ch === ')') depth--;
    }
    found.push(sql.slice(pattern.lastIndex, i - 1).trim());
    pattern.lastIndex = i;
  }
  return found;
}

function text(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return null;
  return String(value);
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
