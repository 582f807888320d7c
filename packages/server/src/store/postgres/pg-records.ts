import { createHash } from 'node:crypto';
import { USER_ENTITY } from '@ninepoint/spec';
import type pg from 'pg';
import type { ApiRecord, CountQuery, PendingRead, TxReader, Value } from '../../compile/record-types.ts';
import { ReadPending } from '../../compile/record-types.ts';
import { HISTORY_TABLE, type SqlColumn, type SqlTable, VERSION_COLUMN } from '../../compile/sql-schema.ts';
import { USER_FOR_EXPRESSIONS_SQL } from '../auth-store.ts';
import { valuesBefore } from '../history.ts';
import {
  countConditions,
  countGroupKey,
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
  Position,
  StoredRecord,
  Summary,
  SummaryQuery,
  TransitionWrite,
  WriteCheck,
  WriteContext,
  WriteOutcome,
} from '../store.ts';

const USER_FOR_EXPRESSIONS = USER_FOR_EXPRESSIONS_SQL.replace('?', '$1');

import { pgName, quoteIdentifier as q } from './pg-ddl.ts';

type Row = Record<string, unknown>;

/** A query prepared once per connection under a name derived from its text. */
interface Named {
  name: string;
  text: string;
}

/** What every entity's records share: the pool and the other entities' records, for checks. */
export interface PgShared {
  pool: pg.Pool;
  records(entity: string): PgRecords | undefined;
  /** The records whose table is `table`. */
  recordsOfTable(table: string): PgRecords | undefined;
}

/** Errors PostgreSQL may raise for a transaction that would succeed if run again. */
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 5;
/** A check may read this many records and counts; more means it never settles. */
const MAX_READS = 1000;

const names = new Map<string, string>();

/** The statement as pg prepares it: once per connection, then reused by name. */
export function named(text: string): Named {
  let name = names.get(text);
  if (!name) {
    name = `np_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return { name, text };
}

/** Runs `work` in one transaction on a connection of its own, again when PostgreSQL asks for it. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
      if (attempt < MAX_ATTEMPTS && RETRYABLE.has(pgCode(error))) continue;
      throw error;
    } finally {
      // A connection that could not roll back is closed, not given to the next request.
      client.release(broken);
    }
  }
}

/**
 * One entity's records in PostgreSQL: the same behaviour as `SqliteRecords`, with PostgreSQL's
 * own guards for concurrency. A write reads the record `FOR UPDATE`; a limit's count takes a
 * transaction-scoped advisory lock on the group it counts (table, equal columns and values,
 * period) first, so two writers that could both pass the limit count one after the other, each
 * seeing the other's committed row.
 */
export class PgRecords implements EntityRecords {
  readonly entity: string;
  readonly #table: SqlTable;
  readonly #shared: PgShared;
  readonly #columns: ReadonlyMap<string, SqlColumn>;
  readonly #apiColumns: readonly SqlColumn[];
  readonly #fieldColumns: readonly SqlColumn[];
  readonly #references: readonly { field: string; table: string }[];
  /** Fields referring to `User`: their users live in the runtime's users table. */
  readonly #userReferences: readonly string[];
  /** Every reference field, in the order a refusal names them. */
  readonly #referenceOrder: readonly string[];
  /** Unique index names as PostgreSQL reports them, and their column. */
  readonly #unique: ReadonlyMap<string, string>;
  readonly #hasState: boolean;
  readonly #select: string;
  readonly #get: Named;
  readonly #getForUpdate: Named;
  readonly #exists: Named;
  readonly #insert: Named;
  readonly #update: Named;
  readonly #updateState: Named | null;
  readonly #delete: Named;
  readonly #insertHistory: Named;
  readonly #selectHistory: Named;
  readonly #referrers: readonly { entity: string; field: string; self: boolean; query: Named }[];

  constructor(table: SqlTable, referrers: readonly { table: SqlTable; column: SqlColumn }[], shared: PgShared) {
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
    this.#unique = new Map([
      [pgName(`${table.name}_pkey`), 'id'],
      ...table.indexes
        .filter((i) => i.unique && i.columns.length === 1)
        .map((i) => [pgName(i.name), i.columns[0]] as const),
    ] as [string, string][]);
    this.#hasState = this.#columns.has('state');

    const t = q(table.name);
    this.#select = `SELECT ${table.columns.map((c) => q(c.name)).join(', ')} FROM ${t}`;
    this.#get = named(`${this.#select} WHERE "id" = $1`);
    this.#getForUpdate = named(`${this.#select} WHERE "id" = $1 FOR UPDATE`);
    this.#exists = named(`SELECT 1 FROM ${t} WHERE "id" = $1`);
    const inserted = table.columns.map((c) => c.name);
    this.#insert = named(
      `INSERT INTO ${t} (${inserted.map(q).join(', ')}) VALUES (${inserted.map((_, i) => `$${i + 1}`).join(', ')})`,
    );
    const set = this.#fieldColumns.map((c, i) => `${q(c.name)} = $${i + 1}`);
    const n = this.#fieldColumns.length;
    const bump = `${q(VERSION_COLUMN)} = ${q(VERSION_COLUMN)} + 1`;
    this.#update = named(
      `UPDATE ${t} SET ${[...set, `"updated_at" = $${n + 1}`, bump].join(', ')} WHERE "id" = $${n + 2} AND ${q(VERSION_COLUMN)} = $${n + 3}`,
    );
    this.#updateState = this.#hasState
      ? named(
          `UPDATE ${t} SET ${[...set, `"state" = $${n + 1}`, `"updated_at" = $${n + 2}`, bump].join(', ')} WHERE "id" = $${n + 3} AND ${q(VERSION_COLUMN)} = $${n + 4}`,
        )
      : null;
    this.#delete = named(`DELETE FROM ${t} WHERE "id" = $1`);
    this.#insertHistory = named(
      `INSERT INTO ${q(HISTORY_TABLE)} ("entity", "record_id", "at", "by", "action", "transition", "from_state", "to_state", "changes", "before") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    );
    this.#selectHistory = named(
      `SELECT "at", "by", "action", "transition", "from_state", "to_state", "changes", "before" FROM ${q(HISTORY_TABLE)} WHERE "entity" = $1 AND "record_id" = $2 ORDER BY "id"`,
    );
    this.#referrers = referrers.map(({ table: other, column }) => ({
      entity: other.entity,
      field: column.name,
      self: other.name === table.name,
      // A record referring to itself does not keep itself from being deleted.
      query: named(
        `SELECT 1 FROM ${q(other.name)} WHERE ${q(column.name)} = $1${other.name === table.name ? ' AND "id" <> $1' : ''} LIMIT 1`,
      ),
    }));
  }

  async get(id: string): Promise<StoredRecord | undefined> {
    const { rows } = await this.#shared.pool.query<Row>({ ...this.#get, values: [id] });
    const row = rows[0];
    return row ? this.#stored(row) : undefined;
  }

  /** A record by id, read by `client` (inside a transaction, it sees the transaction's writes). */
  async readIn(client: pg.PoolClient, id: string): Promise<ApiRecord | undefined> {
    const { rows } = await client.query<Row>({ ...this.#get, values: [id] });
    const row = rows[0];
    return row ? this.#record(row) : undefined;
  }

  /**
   * See `TxReader.count`. Takes the advisory lock of the counted group (`countGroupKey`: table,
   * equal columns and values, period) for the rest of the transaction first; under READ COMMITTED
   * the count that follows sees every row committed by a writer that held it before.
   */
  async countIn(client: pg.PoolClient, query: CountQuery): Promise<number> {
    const params: unknown[] = [];
    const bind = (value: unknown): string => {
      params.push(value);
      return `$${params.length}`;
    };
    const where = countConditions(
      query,
      (name) => this.#column(name),
      { quote: q, bind, toDb: (column, value) => this.#toDb(column, value) },
      (states) => {
        if (!this.#hasState) throw new Error(`${this.#table.name} has no state column`);
        return `"state" = ANY(${bind([...states])})`;
      },
    );
    await client.query({
      ...named('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))'),
      values: [countGroupKey(this.#table.name, query)],
    });
    const sql = `SELECT count(*) AS "n" FROM ${q(this.#table.name)}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
    const { rows } = await client.query<{ n: number }>({ ...named(sql), values: params });
    return Number(rows[0]?.n ?? 0);
  }

  async create(record: ApiRecord, context: WriteContext, check?: WriteCheck): Promise<WriteOutcome> {
    return this.#write(record, (client) => this.#create(client, record, context, check));
  }

  async update(
    id: string,
    values: Record<string, Value>,
    context: ConditionalWrite,
    check?: WriteCheck,
  ): Promise<WriteOutcome> {
    return this.#write(values, (client) => this.#updateRecord(client, id, values, context, check, null));
  }

  async transition(
    id: string,
    transition: TransitionWrite,
    values: Record<string, Value>,
    context: ConditionalWrite,
    check?: WriteCheck,
  ): Promise<WriteOutcome> {
    if (!this.#hasState) throw new Error(`${this.entity} has no state machine`);
    return this.#write(values, (client) => this.#updateRecord(client, id, values, context, check, transition));
  }

  async delete(id: string, context: ConditionalWrite, check?: DeleteCheck): Promise<DeleteOutcome> {
    try {
      return await inTransaction(this.#shared.pool, (client) => this.#deleteRecord(client, id, context, check));
    } catch (error) {
      // Checked before deleting; this is the database's own guard answering a racing insert.
      if (pgCode(error) === '23503') {
        const first = this.#referrers[0];
        return { ok: false, refusal: { kind: 'referenced', entity: first?.entity ?? '', field: first?.field ?? '' } };
      }
      throw error;
    }
  }

  async list(query: ListQuery): Promise<ListPage> {
    const plan = this.#plan(query);
    const { pool } = this.#shared;
    const sort = this.#column(query.sort.column);
    const { rows } = await pool.query<Row>({ ...named(plan.sql), values: [...plan.params, query.limit + 1] });
    const more = rows.length > query.limit;
    const page = more ? rows.slice(0, query.limit) : rows;
    const last = page.at(-1);
    const result: ListPage = {
      records: page.map((row) => this.#record(row)),
      next: more && last ? { value: positionValue(sort, last[sort.name]), id: String(last.id) } : null,
    };
    if (query.count) {
      const counted = await pool.query<{ n: number }>({ ...named(plan.countSql), values: plan.countParams });
      result.total = Number(counted.rows[0]?.n ?? 0);
    }
    return result;
  }

  async summary(query: SummaryQuery): Promise<Summary> {
    const params: unknown[] = [];
    const sql = summarySql(this.#table.name, query, (name) => this.#column(name), {
      quote: q,
      bind: (value) => {
        params.push(value);
        return `$${params.length}`;
      },
      toDb: (column, value) => this.#toDb(column, value),
      like: 'ILIKE',
    });
    const { rows } = await this.#shared.pool.query<Record<string, unknown>>({ ...named(sql), values: params });
    return summaryOf(query, rows, (v) => v as Value);
  }

  /** The SQL of a list query (its last parameter is the limit), for tests that look at how PostgreSQL plans it. */
  listSql(query: ListQuery): { sql: string; params: unknown[] } {
    const plan = this.#plan(query);
    return { sql: plan.sql, params: [...plan.params, query.limit + 1] };
  }

  #plan(query: ListQuery): { sql: string; params: unknown[]; countSql: string; countParams: unknown[] } {
    const sort = this.#column(query.sort.column);
    const where: string[] = [];
    const params: unknown[] = [];
    const bind = (value: unknown): string => {
      params.push(value);
      return `$${params.length}`;
    };
    where.push(
      ...listConditions(query, (name) => this.#column(name), {
        quote: q,
        bind,
        toDb: (column, value) => this.#toDb(column, value),
        like: 'ILIKE',
      }),
    );
    const countSql = `SELECT count(*) AS "n" FROM ${q(this.#table.name)}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
    const countParams = [...params];
    if (query.after) {
      const after = { ...query.after, value: this.#toDb(sort, query.after.value) as Position['value'] };
      where.push(keysetCondition(sort, query.sort.descending, after, q, bind));
    }
    const whereSql = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
    const order = orderBy(sort, query.sort.descending);
    return {
      sql: `${this.#select}${whereSql} ORDER BY ${order} LIMIT $${params.length + 1}`,
      params,
      countSql,
      countParams,
    };
  }

  async history(id: string): Promise<HistoryEntry[]> {
    const { rows } = await this.#shared.pool.query<Row>({ ...this.#selectHistory, values: [this.entity, id] });
    return rows.map((row) => ({
      at: String(row.at),
      by: (row.by as string | null) ?? null,
      action: row.action as HistoryEntry['action'],
      transition: (row.transition as string | null) ?? null,
      from: (row.from_state as string | null) ?? null,
      to: (row.to_state as string | null) ?? null,
      changes: row.changes as Record<string, Value>,
      before: (row.before ?? {}) as Record<string, Value>,
    }));
  }

  async #create(
    client: pg.PoolClient,
    record: ApiRecord,
    context: WriteContext,
    check: WriteCheck | undefined,
  ): Promise<WriteOutcome> {
    const missing = await this.#unknownReferences(client, record, context);
    if (missing.length > 0) return { ok: false, refusal: { kind: 'unknown-reference', fields: missing } };
    if (check) await this.#runCheck(client, check, this.#pick(record), null);
    await client.query({
      ...this.#insert,
      values: this.#table.columns.map((c) => (c.name === VERSION_COLUMN ? 1 : this.#toDb(c, record[c.name] ?? null))),
    });
    const changes = Object.fromEntries(this.#fieldColumns.map((c) => [c.name, record[c.name] ?? null]));
    const state = this.#hasState ? (record.state as string) : null;
    await this.#history(client, String(record.id), context, 'create', null, null, state, changes, {});
    return { ok: true, stored: { record: this.#pick(record), version: 1 }, changed: true };
  }

  async #updateRecord(
    client: pg.PoolClient,
    id: string,
    values: Record<string, Value>,
    context: ConditionalWrite,
    check: WriteCheck | undefined,
    transition: TransitionWrite | null,
  ): Promise<WriteOutcome> {
    const { rows } = await client.query<Row>({ ...this.#getForUpdate, values: [id] });
    const row = rows[0];
    if (!row) return { ok: false, refusal: { kind: 'not-found' } };
    const current = this.#stored(row);
    const { changes, record } = plannedWrite(this.#fieldColumns, current.record, values, transition, context.at);
    const { authorize } = context;
    if (authorize) await this.#runCheck(client, (n, c, reader) => authorize(c ?? n, n, reader), record, current.record);
    if (context.ifVersions !== null && !context.ifVersions.includes(current.version)) {
      return { ok: false, refusal: { kind: 'stale' } };
    }
    // A transition is written even when no field changes: its history entry is the point.
    if (Object.keys(changes).length === 0 && transition === null) return { ok: true, stored: current, changed: false };
    const missing = await this.#unknownReferences(client, changes, context);
    if (missing.length > 0) return { ok: false, refusal: { kind: 'unknown-reference', fields: missing } };
    if (check) await this.#runCheck(client, check, record, current.record);
    const fields = this.#fieldColumns.map((c) => this.#toDb(c, record[c.name] ?? null));
    const result =
      transition && this.#updateState
        ? await client.query({
            ...this.#updateState,
            values: [...fields, transition.to, context.at, id, current.version],
          })
        : await client.query({ ...this.#update, values: [...fields, context.at, id, current.version] });
    if (result.rowCount !== 1) return { ok: false, refusal: { kind: 'stale' } };
    if (transition) {
      const from = current.record.state;
      await this.#history(
        client,
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
      await this.#history(
        client,
        id,
        context,
        'update',
        null,
        null,
        null,
        changes,
        valuesBefore(changes, current.record),
      );
    }
    return { ok: true, stored: { record, version: current.version + 1 }, changed: true };
  }

  async #deleteRecord(
    client: pg.PoolClient,
    id: string,
    context: ConditionalWrite,
    check: DeleteCheck | undefined,
  ): Promise<DeleteOutcome> {
    const { rows } = await client.query<Row>({ ...this.#getForUpdate, values: [id] });
    const row = rows[0];
    if (!row) return { ok: false, refusal: { kind: 'not-found' } };
    const stored = this.#record(row);
    if (check) await this.#runCheck(client, (_next, _current, reader) => check(stored, reader), stored, stored);
    if (context.ifVersions !== null && !context.ifVersions.includes(Number(row[VERSION_COLUMN]))) {
      return { ok: false, refusal: { kind: 'stale' } };
    }
    for (const referrer of this.#referrers) {
      const found = await client.query({ ...referrer.query, values: [id] });
      if ((found.rowCount ?? 0) > 0) {
        return { ok: false, refusal: { kind: 'referenced', entity: referrer.entity, field: referrer.field } };
      }
    }
    await client.query({ ...this.#delete, values: [id] });
    const before = lastValues(this.#fieldColumns, this.#hasState, stored);
    await this.#history(client, id, context, 'delete', null, null, null, {}, before);
    return { ok: true };
  }

  /**
   * Runs a check with the reads it asks for. The check is synchronous: each time it needs a read
   * not made yet it throws `ReadPending`; the read is made in this transaction and the check runs
   * again, until it answers or refuses.
   */
  async #runCheck(client: pg.PoolClient, check: WriteCheck, next: ApiRecord, current: ApiRecord | null): Promise<void> {
    const made = new Map<string, ApiRecord | undefined | number>();
    const keyOf = (read: PendingRead): string => JSON.stringify(read);
    const reader: TxReader = {
      get: (entity, id) => {
        const read: PendingRead = { kind: 'get', entity, id };
        const key = keyOf(read);
        if (!made.has(key)) throw new ReadPending(read);
        return made.get(key) as ApiRecord | undefined;
      },
      count: (query) => {
        const read: PendingRead = { kind: 'count', query };
        const key = keyOf(read);
        if (!made.has(key)) throw new ReadPending(read);
        return made.get(key) as number;
      },
    };
    for (;;) {
      try {
        check(next, current, reader);
        return;
      } catch (error) {
        if (!(error instanceof ReadPending)) throw error;
        if (made.size >= MAX_READS)
          throw new Error(`A check of ${this.entity} asked for more than ${MAX_READS} reads.`);
        const { read } = error;
        if (read.kind === 'get' && read.entity === USER_ENTITY) {
          const { rows } = await client.query<ApiRecord>({ ...named(USER_FOR_EXPRESSIONS), values: [read.id] });
          made.set(keyOf(read), rows[0]);
          continue;
        }
        const entity = read.kind === 'get' ? read.entity : read.query.entity;
        const records = this.#shared.records(entity);
        if (!records) throw new Error(`The table of ${entity} is not ready.`);
        made.set(
          keyOf(read),
          read.kind === 'get' ? await records.readIn(client, read.id) : await records.countIn(client, read.query),
        );
      }
    }
  }

  /** Runs a write, turning the database's unique and foreign-key guards into refusals. */
  async #write(
    values: Record<string, Value>,
    run: (client: pg.PoolClient) => Promise<WriteOutcome>,
  ): Promise<WriteOutcome> {
    try {
      return await inTransaction(this.#shared.pool, run);
    } catch (error) {
      const code = pgCode(error);
      if (code === '23505') {
        const constraint = (error as { constraint?: string }).constraint ?? '';
        return { ok: false, refusal: { kind: 'not-unique', field: this.#unique.get(constraint) ?? 'id' } };
      }
      if (code === '23503') {
        const fields = this.#references.filter((r) => values[r.field] != null).map((r) => r.field);
        return { ok: false, refusal: { kind: 'unknown-reference', fields } };
      }
      throw error;
    }
  }

  /**
   * The reference fields among `values` naming a record that does not exist or that the actor may
   * not read (`WriteContext.unreadableReferences`): one answer for both, in the table's order.
   */
  async #unknownReferences(
    client: pg.PoolClient,
    values: Record<string, Value>,
    context: WriteContext,
  ): Promise<string[]> {
    const missing = await this.#missingReferences(client, values);
    const find = context.unreadableReferences;
    if (!find) return missing;
    let unreadable: readonly string[] = [];
    await this.#runCheck(
      client,
      (next, _current, reader) => {
        unreadable = find(next, reader);
      },
      values,
      null,
    );
    if (unreadable.length === 0) return missing;
    const unknown = new Set([...missing, ...unreadable]);
    return this.#referenceOrder.filter((field) => unknown.has(field));
  }

  async #missingReferences(client: pg.PoolClient, values: Record<string, Value>): Promise<string[]> {
    const missing: string[] = [];
    for (const { field, table } of this.#references) {
      const value = values[field];
      if (typeof value !== 'string') continue;
      const found = await this.#shared.recordsOfTable(table)?.existsIn(client, value);
      if (!found) missing.push(field);
    }
    for (const field of this.#userReferences) {
      const value = values[field];
      if (typeof value !== 'string') continue;
      const { rowCount } = await client.query({ ...named(USER_FOR_EXPRESSIONS), values: [value] });
      if ((rowCount ?? 0) === 0) missing.push(field);
    }
    return missing;
  }

  async #history(
    client: pg.PoolClient,
    id: string,
    context: WriteContext,
    action: HistoryEntry['action'],
    transition: string | null,
    from: string | null,
    to: string | null,
    changes: Record<string, Value>,
    before: Record<string, Value>,
  ): Promise<void> {
    await client.query({
      ...this.#insertHistory,
      values: [
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
      ],
    });
  }

  /** Whether a record with this id exists, as `client` sees it. */
  async existsIn(client: pg.PoolClient, id: string): Promise<boolean> {
    const { rowCount } = await client.query({ ...this.#exists, values: [id] });
    return (rowCount ?? 0) > 0;
  }

  #column(name: string): SqlColumn {
    const column = this.#columns.get(name);
    if (!column || name === VERSION_COLUMN) throw new Error(`${this.#table.name} has no column ${name}`);
    return column;
  }

  /** Cursors carry booleans as 0 and 1, as SQLite stores them: turn them back for a boolean column. */
  #toDb(column: SqlColumn, value: Value): unknown {
    if (column.type === 'boolean' && typeof value === 'number') return value !== 0;
    return value;
  }

  #stored(row: Row): StoredRecord {
    return { record: this.#record(row), version: Number(row[VERSION_COLUMN]) };
  }

  #record(row: Row): ApiRecord {
    const record: ApiRecord = {};
    for (const column of this.#apiColumns) record[column.name] = (row[column.name] ?? null) as Value;
    return record;
  }

  /** The API's columns of a record, in table order. */
  #pick(record: ApiRecord): ApiRecord {
    const picked: ApiRecord = {};
    for (const column of this.#apiColumns) picked[column.name] = record[column.name] ?? null;
    return picked;
  }
}

/**
 * `ORDER BY` in SQLite's order: nulls first ascending, last descending. For a NOT NULL column the
 * default order is the same, and is what its indexes are built in; nullable columns are indexed
 * NULLS FIRST (see `pg-ddl.ts`), which a backward scan turns into DESC NULLS LAST.
 */
function orderBy(sort: SqlColumn, descending: boolean): string {
  const direction = descending ? 'DESC' : 'ASC';
  const nulls = sort.notNull ? '' : descending ? ' NULLS LAST' : ' NULLS FIRST';
  const first = `${q(sort.name)} ${direction}${nulls}`;
  return sort.name === 'id' ? first : `${first}, "id" ${direction}`;
}

/** A cursor's value as SQLite would give it: booleans as 0 or 1. */
function positionValue(column: SqlColumn, value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (column.type === 'boolean') return value === true ? 1 : 0;
  return value as string | number;
}

/** PostgreSQL's SQLSTATE of an error, or ''. */
export function pgCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
}
