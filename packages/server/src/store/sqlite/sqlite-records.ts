import { USER_ENTITY } from '@ninepoint/spec';
import type Database from 'better-sqlite3';
import type { ApiRecord, CountQuery, TxReader, Value } from '../../compile/record-types.ts';
import {
  DEFAULT_SORT_COLUMNS,
  HISTORY_TABLE,
  type SqlColumn,
  type SqlTable,
  VERSION_COLUMN,
} from '../../compile/sql-schema.ts';
import { valuesBefore } from '../history.ts';
import {
  countConditions,
  keysetCondition,
  lastValues,
  listConditions,
  plannedWrite,
  summaryOf,
  summarySql,
} from '../record-logic.ts';
import type {
  ConditionalWrite,
  DeleteCheck,
  DeleteOutcome,
  EntityRecords,
  HistoryEntry,
  ListPage,
  ListQuery,
  Refusal,
  StoredRecord,
  Summary,
  SummaryQuery,
  TransitionWrite,
  WriteCheck,
  WriteContext,
  WriteOutcome,
} from '../store.ts';
import type { GroupCommit } from './group-commit.ts';
import { quoteIdentifier as q } from './sqlite-ddl.ts';

/** What SQLite stores and binds: booleans are 0 or 1. */
type DbValue = string | number | null;
type Row = Record<string, DbValue>;

/** A table that refers to this one, and the statement that finds whether a given record is referred to. */
interface Referrer {
  entity: string;
  field: string;
  /** True when the table refers to itself: the statement then takes the id twice. */
  self: boolean;
  statement: Database.Statement<DbValue[], unknown>;
}

/** What every entity's records share: the history statements and other tables' existence checks. */
export interface SharedStatements {
  insertHistory: Database.Statement<DbValue[]>;
  selectHistory: Database.Statement<[string, string], HistoryRow>;
  /** `SELECT 1 FROM <table> WHERE id = ?`, by table name. */
  exists: ReadonlyMap<string, Database.Statement<[string], unknown>>;
  /** Statements of list queries, by SQL text: there are more shapes than are worth preparing up front. */
  cache: StatementCache;
  /** Reads of any table, for the checks that run inside a write. */
  reader: TxReader;
  /** The connection's writes: each runs in the next group commit. */
  commits: GroupCommit;
}

export interface HistoryRow {
  at: string;
  by: string | null;
  action: HistoryEntry['action'];
  transition: string | null;
  from_state: string | null;
  to_state: string | null;
  changes: string;
  before: string | null;
}

export const INSERT_HISTORY_SQL = `INSERT INTO ${q(HISTORY_TABLE)} ("entity", "record_id", "at", "by", "action", "transition", "from_state", "to_state", "changes", "before") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
export const SELECT_HISTORY_SQL = `SELECT "at", "by", "action", "transition", "from_state", "to_state", "changes", "before" FROM ${q(HISTORY_TABLE)} WHERE "entity" = ? AND "record_id" = ? ORDER BY "id"`;

const DEFAULT_LIST: ListQuery = {
  sort: { column: DEFAULT_SORT_COLUMNS[0], descending: false },
  filters: [],
  search: null,
  owner: null,
  after: null,
  limit: 1,
  count: false,
};

/** Prepared statements by SQL text, keeping the most recently used few hundred. */
export class StatementCache {
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Database.Statement<DbValue[], Row>>();
  readonly #capacity: number;

  constructor(db: Database.Database, capacity = 256) {
    this.#db = db;
    this.#capacity = capacity;
  }

  get(sql: string): Database.Statement<DbValue[], Row> {
    let statement = this.#statements.get(sql);
    if (statement) {
      // Most recently used last, so the first key is the one to evict.
      this.#statements.delete(sql);
    } else {
      statement = this.#db.prepare<DbValue[], Row>(sql);
      if (this.#statements.size >= this.#capacity) {
        const oldest = this.#statements.keys().next().value;
        if (oldest !== undefined) this.#statements.delete(oldest);
      }
    }
    this.#statements.set(sql, statement);
    return statement;
  }

  get size(): number {
    return this.#statements.size;
  }
}

/**
 * One entity's records in SQLite. Its SQL is generated from the table's compiled schema only:
 * identifiers come from the schema and are quoted, every value is a bound parameter. The
 * statements of point reads and writes are prepared once, here; list queries go through the cache.
 */
export class SqliteRecords implements EntityRecords {
  readonly entity: string;
  readonly #table: SqlTable;
  readonly #shared: SharedStatements;
  readonly #columns: ReadonlyMap<string, SqlColumn>;
  /** Columns the API shows: all but the version. */
  readonly #apiColumns: readonly SqlColumn[];
  readonly #fieldColumns: readonly SqlColumn[];
  readonly #references: readonly { field: string; table: string }[];
  /** Fields referring to `User`: their users live in the runtime's users table. */
  readonly #userReferences: readonly string[];
  /** Every reference field, in the order a refusal names them. */
  readonly #referenceOrder: readonly string[];
  readonly #unique: readonly string[];
  readonly #hasState: boolean;
  readonly #select: string;
  readonly #get: Database.Statement<[string], Row>;
  readonly #insert: Database.Statement<DbValue[]>;
  readonly #update: Database.Statement<DbValue[]>;
  /** The same, setting the state too: a transition. */
  readonly #updateState: Database.Statement<DbValue[]> | null;
  readonly #delete: Database.Statement<[string]>;
  readonly #referrers: readonly Referrer[];
  readonly #createTx: (
    record: ApiRecord,
    context: WriteContext,
    check: WriteCheck | undefined,
  ) => Promise<WriteOutcome>;
  readonly #updateTx: (
    id: string,
    values: Record<string, Value>,
    context: ConditionalWrite,
    check: WriteCheck | undefined,
    transition: TransitionWrite | null,
  ) => Promise<WriteOutcome>;
  readonly #deleteTx: (id: string, context: ConditionalWrite, check: DeleteCheck | undefined) => Promise<DeleteOutcome>;

  constructor(
    db: Database.Database,
    table: SqlTable,
    referrers: readonly { table: SqlTable; column: SqlColumn }[],
    shared: SharedStatements,
  ) {
    this.entity = table.entity;
    this.#table = table;
    this.#shared = shared;
    this.#columns = new Map(table.columns.map((c) => [c.name, c]));
    this.#apiColumns = table.columns.filter((c) => c.name !== VERSION_COLUMN);
    this.#fieldColumns = table.columns.filter((c) => c.field !== null);
    this.#userReferences = this.#fieldColumns.filter((c) => c.references?.entity === USER_ENTITY).map((c) => c.name);
    this.#references = this.#fieldColumns.flatMap((c) =>
      c.references?.table ? [{ field: c.name, table: c.references.table }] : [],
    );
    this.#referenceOrder = [...this.#references.map((r) => r.field), ...this.#userReferences];
    this.#unique = table.indexes.filter((i) => i.unique && i.columns.length === 1).map((i) => i.columns[0] as string);
    this.#hasState = this.#columns.has('state');

    const t = q(table.name);
    this.#select = `SELECT ${table.columns.map((c) => q(c.name)).join(', ')} FROM ${t}`;
    this.#get = db.prepare<[string], Row>(`${this.#select} WHERE "id" = ?`);
    const inserted = table.columns.map((c) => c.name);
    this.#insert = db.prepare<DbValue[]>(
      `INSERT INTO ${t} (${inserted.map(q).join(', ')}) VALUES (${inserted.map(() => '?').join(', ')})`,
    );
    const set = this.#fieldColumns.map((c) => `${q(c.name)} = ?`);
    this.#update = db.prepare<DbValue[]>(
      `UPDATE ${t} SET ${[...set, '"updated_at" = ?', `${q(VERSION_COLUMN)} = ${q(VERSION_COLUMN)} + 1`].join(', ')} WHERE "id" = ? AND ${q(VERSION_COLUMN)} = ?`,
    );
    this.#updateState = this.#hasState
      ? db.prepare<DbValue[]>(
          `UPDATE ${t} SET ${[...set, '"state" = ?', '"updated_at" = ?', `${q(VERSION_COLUMN)} = ${q(VERSION_COLUMN)} + 1`].join(', ')} WHERE "id" = ? AND ${q(VERSION_COLUMN)} = ?`,
        )
      : null;
    this.#delete = db.prepare<[string]>(`DELETE FROM ${t} WHERE "id" = ?`);
    this.#referrers = referrers.map(({ table: other, column }) => ({
      entity: other.entity,
      field: column.name,
      self: other.name === table.name,
      // A record referring to itself does not keep itself from being deleted.
      statement: db.prepare<DbValue[], unknown>(
        `SELECT 1 FROM ${q(other.name)} WHERE ${q(column.name)} = ?${other.name === table.name ? ' AND "id" <> ?' : ''} LIMIT 1`,
      ),
    }));

    // The default list's pages, prepared now like the point reads; other sorts and filters on first use.
    for (const after of [null, { value: '', id: '' }]) {
      const plan = this.#plan({ ...DEFAULT_LIST, after });
      shared.cache.get(plan.sql);
    }

    // Each write runs in its own savepoint of the connection's next group commit (group-commit.ts),
    // which takes the write lock at its start (BEGIN IMMEDIATE); the promise settles after the COMMIT.
    const { commits } = shared;
    this.#createTx = (record, context, check) => commits.run(() => this.#create(record, context, check));
    this.#updateTx = (id, values, context, check, transition) =>
      commits.run(() => this.#updateRecord(id, values, context, check, transition));
    this.#deleteTx = (id, context, check) => commits.run(() => this.#deleteRecord(id, context, check));
  }

  async get(id: string): Promise<StoredRecord | undefined> {
    const row = this.#get.get(id);
    return row ? this.#stored(row) : undefined;
  }

  /** A record by id, read at once (inside a transaction, it sees the transaction's writes). */
  read(id: string): ApiRecord | undefined {
    const row = this.#get.get(id);
    return row ? this.#record(row) : undefined;
  }

  /** See `TxReader.count`. Columns are checked against the table; values are bound. */
  count(query: CountQuery): number {
    const { sql, params } = this.countSql(query);
    return Number(this.#shared.cache.get(sql).get(...params)?.n ?? 0);
  }

  /** The statement `count` runs, for tests that look at its plan. */
  countSql(query: CountQuery): { sql: string; params: DbValue[] } {
    const params: DbValue[] = [];
    const bind = (value: unknown) => {
      params.push(value as DbValue);
      return '?';
    };
    const where = countConditions(
      query,
      (name) => this.#column(name),
      { quote: q, bind, toDb: (_column, value) => toDb(value) },
      (states) => {
        if (!this.#hasState) throw new Error(`${this.#table.name} has no state column`);
        return `"state" IN (${states.map(bind).join(', ')})`;
      },
    );
    const sql = `SELECT count(*) AS "n" FROM ${q(this.#table.name)}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
    return { sql, params };
  }

  async create(record: ApiRecord, context: WriteContext, check?: WriteCheck): Promise<WriteOutcome> {
    return this.#write(() => this.#createTx(record, context, check), record);
  }

  async update(
    id: string,
    values: Record<string, Value>,
    context: ConditionalWrite,
    check?: WriteCheck,
  ): Promise<WriteOutcome> {
    return this.#write(() => this.#updateTx(id, values, context, check, null), values);
  }

  async transition(
    id: string,
    transition: TransitionWrite,
    values: Record<string, Value>,
    context: ConditionalWrite,
    check?: WriteCheck,
  ): Promise<WriteOutcome> {
    if (!this.#hasState) throw new Error(`${this.entity} has no state machine`);
    return this.#write(() => this.#updateTx(id, values, context, check, transition), values);
  }

  async delete(id: string, context: ConditionalWrite, check?: DeleteCheck): Promise<DeleteOutcome> {
    try {
      return await this.#deleteTx(id, context, check);
    } catch (error) {
      // Checked before deleting; this is the database's own guard answering the same.
      if (sqliteCode(error) === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
        const first = this.#referrers[0];
        return { ok: false, refusal: { kind: 'referenced', entity: first?.entity ?? '', field: first?.field ?? '' } };
      }
      throw error;
    }
  }

  async list(query: ListQuery): Promise<ListPage> {
    const plan = this.#plan(query);
    const rows = this.#shared.cache.get(plan.sql).all(...plan.params, query.limit + 1);
    const more = rows.length > query.limit;
    const page = more ? rows.slice(0, query.limit) : rows;
    const last = page.at(-1);
    const result: ListPage = {
      records: page.map((row) => this.#record(row)),
      next: more && last ? { value: last[query.sort.column] ?? null, id: String(last.id) } : null,
    };
    if (query.count) {
      result.total = Number(this.#shared.cache.get(plan.countSql).get(...plan.countParams)?.n ?? 0);
    }
    return result;
  }

  async summary(query: SummaryQuery): Promise<Summary> {
    const params: DbValue[] = [];
    const sql = summarySql(this.#table.name, query, (name) => this.#column(name), {
      quote: q,
      bind: (value) => {
        params.push(value as DbValue);
        return '?';
      },
      toDb: (_column, value) => toDb(value),
      like: 'LIKE',
    });
    const boolean = query.by !== null && this.#column(query.by).type === 'boolean';
    const rows = this.#shared.cache.get(sql).all(...params) as Record<string, unknown>[];
    return summaryOf(query, rows, (v) => (boolean && v !== null ? v !== 0 : (v as Value)));
  }

  /** The SQL of a list query (its last parameter is the limit), for tests that look at how SQLite plans it. */
  listSql(query: ListQuery): { sql: string; params: DbValue[] } {
    const plan = this.#plan(query);
    return { sql: plan.sql, params: [...plan.params, query.limit + 1] };
  }

  #plan(query: ListQuery): { sql: string; params: DbValue[]; countSql: string; countParams: DbValue[] } {
    const sort = this.#column(query.sort.column);
    const params: DbValue[] = [];
    const bind = (value: unknown) => {
      params.push(value as DbValue);
      return '?';
    };
    const where = listConditions(query, (name) => this.#column(name), {
      quote: q,
      bind,
      toDb: (_column, value) => toDb(value),
      like: 'LIKE',
    });
    const countSql = `SELECT count(*) AS "n" FROM ${q(this.#table.name)}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
    const countParams = [...params];
    if (query.after) where.push(keysetCondition(sort, query.sort.descending, query.after, q, bind));
    const direction = query.sort.descending ? 'DESC' : 'ASC';
    const order = sort.name === 'id' ? `"id" ${direction}` : `${q(sort.name)} ${direction}, "id" ${direction}`;
    const whereSql = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
    return { sql: `${this.#select}${whereSql} ORDER BY ${order} LIMIT ?`, params, countSql, countParams };
  }

  async history(id: string): Promise<HistoryEntry[]> {
    return this.#shared.selectHistory.all(this.entity, id).map((row) => ({
      at: row.at,
      by: row.by,
      action: row.action,
      transition: row.transition,
      from: row.from_state,
      to: row.to_state,
      changes: JSON.parse(row.changes) as Record<string, Value>,
      before: row.before === null ? {} : (JSON.parse(row.before) as Record<string, Value>),
    }));
  }

  #create(record: ApiRecord, context: WriteContext, check: WriteCheck | undefined): WriteOutcome {
    const missing = this.#unknownReferences(record, context);
    if (missing.length > 0) return { ok: false, refusal: { kind: 'unknown-reference', fields: missing } };
    check?.(this.#pick(record), null, this.#shared.reader);
    this.#insert.run(...this.#table.columns.map((c) => (c.name === VERSION_COLUMN ? 1 : toDb(record[c.name] ?? null))));
    const changes = Object.fromEntries(this.#fieldColumns.map((c) => [c.name, record[c.name] ?? null]));
    const state = this.#hasState ? (record.state as string) : null;
    this.#history(String(record.id), context, 'create', null, null, state, changes, {});
    return { ok: true, stored: { record: this.#pick(record), version: 1 }, changed: true };
  }

  #updateRecord(
    id: string,
    values: Record<string, Value>,
    context: ConditionalWrite,
    check: WriteCheck | undefined,
    transition: TransitionWrite | null,
  ): WriteOutcome {
    const row = this.#get.get(id);
    if (!row) return { ok: false, refusal: { kind: 'not-found' } };
    const current = this.#stored(row);
    const { changes, record } = plannedWrite(this.#fieldColumns, current.record, values, transition, context.at);
    context.authorize?.(current.record, record, this.#shared.reader);
    if (context.ifVersions !== null && !context.ifVersions.includes(current.version)) {
      return { ok: false, refusal: { kind: 'stale' } };
    }
    // A transition is written even when no field changes: its history entry is the point.
    if (Object.keys(changes).length === 0 && transition === null) return { ok: true, stored: current, changed: false };
    const missing = this.#unknownReferences(changes, context);
    if (missing.length > 0) return { ok: false, refusal: { kind: 'unknown-reference', fields: missing } };
    check?.(record, current.record, this.#shared.reader);
    const fields = this.#fieldColumns.map((c) => toDb(record[c.name] ?? null));
    const result =
      transition && this.#updateState
        ? this.#updateState.run(...fields, transition.to, context.at, id, current.version)
        : this.#update.run(...fields, context.at, id, current.version);
    if (result.changes !== 1) return { ok: false, refusal: { kind: 'stale' } };
    if (transition) {
      const from = current.record.state;
      this.#history(
        id,
        context,
        'transition',
        transition.name,
        typeof from === 'string' ? from : null,
        transition.to,
        changes,
        valuesBefore(changes, current.record),
      );
    } else {
      this.#history(id, context, 'update', null, null, null, changes, valuesBefore(changes, current.record));
    }
    return { ok: true, stored: { record, version: current.version + 1 }, changed: true };
  }

  #deleteRecord(id: string, context: ConditionalWrite, check: DeleteCheck | undefined): DeleteOutcome {
    const row = this.#get.get(id);
    if (!row) return { ok: false, refusal: { kind: 'not-found' } };
    check?.(this.#record(row), this.#shared.reader);
    if (context.ifVersions !== null && !context.ifVersions.includes(Number(row[VERSION_COLUMN]))) {
      return { ok: false, refusal: { kind: 'stale' } };
    }
    for (const referrer of this.#referrers) {
      const args = referrer.self ? [id, id] : [id];
      if (referrer.statement.get(...args) !== undefined) {
        return { ok: false, refusal: { kind: 'referenced', entity: referrer.entity, field: referrer.field } };
      }
    }
    this.#delete.run(id);
    this.#history(
      id,
      context,
      'delete',
      null,
      null,
      null,
      {},
      lastValues(this.#fieldColumns, this.#hasState, this.#record(row)),
    );
    return { ok: true };
  }

  /** Runs a write, turning the database's unique and foreign-key guards into refusals. */
  async #write(run: () => Promise<WriteOutcome>, values: Record<string, Value>): Promise<WriteOutcome> {
    try {
      return await run();
    } catch (error) {
      const code = sqliteCode(error);
      if (code === 'SQLITE_CONSTRAINT_UNIQUE') {
        return { ok: false, refusal: this.#uniqueRefusal(error) };
      }
      if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
        const fields = this.#references.filter((r) => values[r.field] != null).map((r) => r.field);
        return { ok: false, refusal: { kind: 'unknown-reference', fields } };
      }
      throw error;
    }
  }

  /** SQLite names the column: `UNIQUE constraint failed: books.isbn`. */
  #uniqueRefusal(error: unknown): Refusal {
    const message = error instanceof Error ? error.message : '';
    const prefix = `${this.#table.name}.`;
    const named = message
      .replace(/^.*constraint failed: /, '')
      .split(', ')
      .map((part) => (part.startsWith(prefix) ? part.slice(prefix.length) : ''))
      .find((column) => this.#unique.includes(column));
    return { kind: 'not-unique', field: named ?? this.#unique[0] ?? 'id' };
  }

  /**
   * The reference fields among `values` naming a record that does not exist or that the actor may
   * not read (`WriteContext.unreadableReferences`): one answer for both, in the table's order.
   */
  #unknownReferences(values: Record<string, Value>, context: WriteContext): string[] {
    const missing = this.#missingReferences(values);
    const unreadable = context.unreadableReferences?.(values, this.#shared.reader) ?? [];
    if (unreadable.length === 0) return missing;
    const unknown = new Set([...missing, ...unreadable]);
    return this.#referenceOrder.filter((field) => unknown.has(field));
  }

  #missingReferences(values: Record<string, Value>): string[] {
    const missing: string[] = [];
    for (const { field, table } of this.#references) {
      const value = values[field];
      if (typeof value !== 'string') continue;
      const exists = this.#shared.exists.get(table);
      if (!exists || exists.get(value) === undefined) missing.push(field);
    }
    for (const field of this.#userReferences) {
      const value = values[field];
      if (typeof value === 'string' && this.#shared.reader.get(USER_ENTITY, value) === undefined) missing.push(field);
    }
    return missing;
  }

  #history(
    id: string,
    context: WriteContext,
    action: HistoryEntry['action'],
    transition: string | null,
    from: string | null,
    to: string | null,
    changes: Record<string, Value>,
    before: Record<string, Value>,
  ): void {
    this.#shared.insertHistory.run(
      this.entity,
      id,
      context.at,
      context.by,
      action,
      transition,
      from,
      to,
      JSON.stringify(changes),
      JSON.stringify(before),
    );
  }

  #column(name: string): SqlColumn {
    const column = this.#columns.get(name);
    if (!column || name === VERSION_COLUMN) throw new Error(`${this.#table.name} has no column ${name}`);
    return column;
  }

  #stored(row: Row): StoredRecord {
    return { record: this.#record(row), version: Number(row[VERSION_COLUMN]) };
  }

  #record(row: Row): ApiRecord {
    const record: ApiRecord = {};
    for (const column of this.#apiColumns) {
      const value = row[column.name] ?? null;
      record[column.name] = column.type === 'boolean' && value !== null ? value !== 0 : value;
    }
    return record;
  }

  /** The API's columns of a record, in table order. */
  #pick(record: ApiRecord): ApiRecord {
    const picked: ApiRecord = {};
    for (const column of this.#apiColumns) picked[column.name] = record[column.name] ?? null;
    return picked;
  }
}

function toDb(value: Value): DbValue {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

function sqliteCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
}
