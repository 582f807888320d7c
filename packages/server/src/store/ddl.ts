import {
  HISTORY_TABLE,
  SCHEMA_TABLE,
  type SqlColumn,
  type SqlIndex,
  type SqlTable,
  type SqlType,
} from '../compile/sql-schema.ts';

/**
 * The words a database's DDL differs in; `sqlite/sqlite-ddl.ts` and `postgres/pg-ddl.ts` give
 * theirs, and the statements are put together here, once.
 */
export interface DdlWords {
  /** The column type of each of the schema's types. */
  types: Record<SqlType, string>;
  /** `"name"`, as the database keeps the name. */
  quote(name: string): string;
  /** `true` and `false` as literals. */
  booleans: readonly [string, string];
}

/** A database's DDL statements, put together from its words. */
export class Ddl {
  readonly #words: DdlWords;

  constructor(words: DdlWords) {
    this.#words = words;
  }

  /** A literal for DDL, where parameters cannot be bound. */
  literal(value: string | number | boolean): string {
    if (typeof value === 'boolean') return value ? this.#words.booleans[0] : this.#words.booleans[1];
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new RangeError(`${value} cannot be stored.`);
      return String(value);
    }
    return `'${value.replaceAll("'", "''")}'`;
  }

  /** A column's definition inside `CREATE TABLE` or `ALTER TABLE … ADD COLUMN`. */
  column(column: SqlColumn): string {
    const parts = [this.#words.quote(column.name), this.#words.types[column.type]];
    if (column.primaryKey) parts.push('PRIMARY KEY');
    if (column.notNull) parts.push('NOT NULL');
    if (column.default !== null) parts.push(`DEFAULT ${this.literal(column.default)}`);
    // Users live outside the spec's tables; their references are checked by the runtime.
    if (column.references?.table) parts.push(`REFERENCES ${this.#words.quote(column.references.table)} ("id")`);
    return parts.join(' ');
  }

  /** `CREATE TABLE IF NOT EXISTS …` with its columns; the indexes come apart. */
  table(table: SqlTable): string {
    const columns = table.columns.map((c) => `  ${this.column(c)}`).join(',\n');
    return `CREATE TABLE IF NOT EXISTS ${this.#words.quote(table.name)} (\n${columns}\n)`;
  }

  /** `CREATE [UNIQUE] INDEX IF NOT EXISTS …`; `column` writes each indexed column (its order). */
  index(table: string, index: SqlIndex, column: (name: string) => string = (name) => this.#words.quote(name)): string {
    const unique = index.unique ? 'UNIQUE ' : '';
    const columns = index.columns.map(column).join(', ');
    return `CREATE ${unique}INDEX IF NOT EXISTS ${this.#words.quote(index.name)} ON ${this.#words.quote(table)} (${columns})`;
  }

  /** One row per applied model: a later start diffs the spec against the newest. `id` is the database's counter. */
  schemaTable(id: string): string {
    return `CREATE TABLE IF NOT EXISTS ${this.#words.quote(SCHEMA_TABLE)} (
  "id" ${id},
  "applied_at" TEXT NOT NULL,
  "model_version" INTEGER NOT NULL,
  "product" TEXT NOT NULL,
  "model" TEXT NOT NULL,
  "tables" TEXT NOT NULL
)`;
  }

  /**
   * One row per change of a record, written in the transaction that makes the change. `changes` is
   * a JSON object (`json`: the database's type for it) of the fields that changed, with their new
   * values, and `before` of their old ones (on delete, every field's last value), so a record's
   * history replays to any of its versions and shows who changed what from what. Rows are never
   * deleted: the history of a deleted record stays readable. `id` orders a record's entries oldest
   * first.
   */
  historyTable(id: string, json: string): string {
    return `CREATE TABLE IF NOT EXISTS ${this.#words.quote(HISTORY_TABLE)} (
  "id" ${id},
  "entity" TEXT NOT NULL,
  "record_id" TEXT NOT NULL,
  "at" ${this.#words.types.datetime} NOT NULL,
  "by" TEXT,
  "action" TEXT NOT NULL,
  "transition" TEXT,
  "from_state" TEXT,
  "to_state" TEXT,
  "changes" ${json} NOT NULL,
  "before" ${json},
  "how" TEXT
)`;
  }
}
