import { USER_ENTITY } from '@ninepoint/spec';
import {
  type ApiRecord,
  type CountQuery,
  type PendingRead,
  ReadPending,
  type TxReader,
  type Value,
  type WriteEffects,
} from '../compile/record-types.ts';
import {
  DEFAULT_SORT_COLUMNS,
  HISTORY_TABLE,
  type SqlColumn,
  type SqlSchema,
  type SqlTable,
  STATE_SINCE_COLUMN,
  VERSION_COLUMN,
} from '../compile/sql-schema.ts';
import { valuesBefore } from './history.ts';
import {
  countConditions,
  countGroupKey,
  keysetCondition,
  lastValues,
  listConditions,
  plannedWrite,
  summaryOf,
  summarySql,
} from './record-logic.ts';
import { compileRecordReader, type RecordReader } from './record-reader.ts';
import type { Prepared, RecordsDialect, Row } from './records-dialect.ts';
import { type MaybePromise, runSync, type Step, wait } from './step.ts';
import type {
  BatchCreate,
  BatchOptions,
  BatchOutcome,
  BatchRefusal,
  ConditionalWrite,
  DeleteCheck,
  DeleteOutcome,
  DueQuery,
  EntityRecords,
  FollowedWrite,
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
  WriteFollower,
  WriteOutcome,
} from './store.ts';

/** A check may read this many records and counts; more means it never settles. */
const MAX_READS = 1000;

const DEFAULT_LIST: ListQuery = {
  sort: { column: DEFAULT_SORT_COLUMNS[0], descending: false },
  filters: [],
  search: null,
  owner: null,
  after: null,
  limit: 1,
  count: false,
};

/** The history table's columns as a write fills them (see `Ddl.historyTable`). */
const HISTORY_COLUMNS = [
  'entity',
  'record_id',
  'at',
  'by',
  'action',
  'transition',
  'from_state',
  'to_state',
  'changes',
  'before',
  'how',
] as const;

/**
 * A list page's statement for one sort and one kind of position, for a query with no conditions
 * (no filter, search or owner): the everyday list, built once per table instead of per call.
 */
interface PagePlan<C> {
  statement: Prepared<C>;
  /** Which of the position's parts each parameter before the limit is. */
  takes: readonly ('id' | 'value')[];
}

/** A history entry's empty `before` (a create's), and its JSON, made once. */
const NO_VALUES: Record<string, Value> = Object.freeze({});
const EMPTY_JSON = '{}';

/** A history entry's values, in `HISTORY_COLUMNS`' order. */
function historyRow(
  entity: string,
  id: string,
  context: WriteContext,
  action: HistoryEntry['action'],
  transition: string | null,
  from: string | null,
  to: string | null,
  changes: Record<string, Value>,
  before: Record<string, Value>,
): unknown[] {
  const beforeJson = before === NO_VALUES ? EMPTY_JSON : JSON.stringify(before);
  return [
    entity,
    id,
    context.at,
    context.by,
    action,
    transition,
    from,
    to,
    JSON.stringify(changes),
    beforeJson,
    context.how ?? null,
  ];
}

/** Stand-ins for a position's parts while a page plan is built, to find where each is bound. */
const PLANNED_ID = Symbol('position id');
const PLANNED_VALUE = Symbol('position value');

/** What an update or a transition would write, planned before it is checked (see `Records.#change`). */
interface ChangePlan {
  id: string;
  /** The record and its version as read, for update, at the start of the transaction. */
  current: StoredRecord;
  transition: TransitionWrite | null;
  /** The fields the write changes (given and different from `current`). */
  changes: Record<string, Value>;
  /** The record as the write would leave it. */
  record: ApiRecord;
  /** When the record entered its state, where the table keeps it (`STATE_SINCE_COLUMN`). */
  stateSince: string | null;
}

/** A table that refers to this one, and the statement that finds whether a record is referred to. */
interface Referrer<C> {
  entity: string;
  field: string;
  /** True when the table refers to itself: the statement then takes the id twice. */
  self: boolean;
  statement: Prepared<C>;
}

/**
 * What every entity's records share: the dialect, the history statements, and the other
 * entities' records, for the reads a check makes and for reference checks.
 */
class Shared<C> {
  readonly dialect: RecordsDialect<C>;
  readonly insertHistory: Prepared<C>;
  readonly selectHistory: Prepared<C>;
  readonly byEntity = new Map<string, Records<C>>();
  readonly byTable = new Map<string, Records<C>>();
  /** A synchronous dialect's reader: every read answered at once, in the running transaction. */
  readonly directReader: TxReader | null;
  /** The rows every write adds in its transaction (the outbox), with their prepared insert. */
  follower: { rowsFor: WriteFollower['rowsFor']; insert: Prepared<C> } | null = null;

  constructor(dialect: RecordsDialect<C>) {
    this.dialect = dialect;
    const q = (name: string) => dialect.quote(name);
    const p = (n: number) => dialect.placeholder(n);
    const insert = HISTORY_COLUMNS.map(q).join(', ');
    const values = HISTORY_COLUMNS.map((_, i) => p(i + 1)).join(', ');
    this.insertHistory = dialect.prepare(`INSERT INTO ${q(HISTORY_TABLE)} (${insert}) VALUES (${values})`);
    const select = HISTORY_COLUMNS.slice(2).map(q).join(', ');
    const where = `"entity" = ${p(1)} AND "record_id" = ${p(2)}`;
    this.selectHistory = dialect.prepare(`SELECT ${select} FROM ${q(HISTORY_TABLE)} WHERE ${where} ORDER BY "id"`);
    const conn = dialect.idle;
    this.directReader = dialect.sync
      ? {
          get: (entity, id) => runSync(this.read(conn, { kind: 'get', entity, id })) as ApiRecord | undefined,
          count: (query) => runSync(this.read(conn, { kind: 'count', query })) as number,
        }
      : null;
  }

  follow(follower: WriteFollower): void {
    const d = this.dialect;
    const columns = follower.columns.map((c) => d.quote(c)).join(', ');
    const values = follower.columns.map((_, i) => d.placeholder(i + 1)).join(', ');
    const insert = d.prepare(`INSERT INTO ${d.quote(follower.table)} (${columns}) VALUES (${values})`);
    this.follower = { rowsFor: follower.rowsFor, insert };
  }

  /** The follower's rows for a write, inserted on the write's connection (see `Store.follow`). */
  *followed(conn: C, write: FollowedWrite): Step<void> {
    const follower = this.follower;
    if (!follower) return;
    const rows = follower.rowsFor(write);
    if (!rows) return;
    for (const row of rows) yield* wait(follower.insert.run(conn, row as unknown[]));
  }

  records(entity: string): Records<C> {
    const records = this.byEntity.get(entity);
    if (!records) throw new Error(`The table of ${entity} is not ready.`);
    return records;
  }

  /** One read a check asked for, made on `conn`. */
  *read(conn: C, read: PendingRead): Step<ApiRecord | undefined | number> {
    if (read.kind === 'count') return yield* this.records(read.query.entity).countIn(conn, read.query);
    if (read.entity === USER_ENTITY) return yield* wait(this.dialect.user(conn, read.id));
    return yield* this.records(read.entity).readIn(conn, read.id);
  }

  /**
   * Runs a synchronous decision (a check, an authorization) that reads records. A synchronous
   * dialect's reader answers each read at once. Otherwise each read not made yet throws
   * `ReadPending`: it is made on `conn` and the decision runs again, until it answers or refuses.
   */
  *decide<T>(conn: C, decision: (reader: TxReader) => T): Step<T> {
    if (this.directReader) return decision(this.directReader);
    const made = new Map<string, ApiRecord | undefined | number>();
    const keyOf = (read: PendingRead): string => JSON.stringify(read);
    const answer = (read: PendingRead) => {
      const key = keyOf(read);
      if (!made.has(key)) throw new ReadPending(read);
      return made.get(key);
    };
    const reader: TxReader = {
      get: (entity, id) => answer({ kind: 'get', entity, id }) as ApiRecord | undefined,
      count: (query) => answer({ kind: 'count', query }) as number,
    };
    for (;;) {
      try {
        return decision(reader);
      } catch (error) {
        if (!(error instanceof ReadPending)) throw error;
        if (made.size >= MAX_READS) throw new Error(`A check asked for more than ${MAX_READS} reads.`);
        made.set(keyOf(error.read), yield* this.read(conn, error.read));
      }
    }
  }
}

/**
 * The tables a schema serves, as the migration left them: a column the migration left accepting
 * empty values (a required field some rows lack) is known to be nullable, for list paging.
 */
export function servedTables(tables: readonly SqlTable[], layout: readonly SqlTable[]): SqlTable[] {
  return tables.map((table): SqlTable => {
    const stored = layout.find((t) => t.name === table.name);
    const columns = table.columns.map((c) => {
      const notNull = stored?.columns.find((s) => s.name === c.name)?.notNull ?? c.notNull;
      return notNull === c.notNull ? c : { ...c, notNull };
    });
    return { ...table, columns };
  });
}

/** Every table's records on one database, by entity. */
export function recordsOf<C>(
  dialect: RecordsDialect<C>,
  tables: readonly SqlTable[],
  follower: WriteFollower | null = null,
): Map<string, Records<C>> {
  const shared = new Shared(dialect);
  if (follower) shared.follow(follower);
  for (const table of tables) {
    const referrers = tables.flatMap((other) =>
      other.columns.filter((c) => c.references?.table === table.name).map((column) => ({ table: other, column })),
    );
    const records = new Records(table, referrers, shared);
    shared.byEntity.set(table.entity, records);
    shared.byTable.set(table.name, records);
  }
  return shared.byEntity;
}

/** The records a store serves: none until a schema is applied, then every table of the newest. */
export class ServedRecords<C> {
  #records = new Map<string, Records<C>>();
  #follower: WriteFollower | null = null;
  #dialect: RecordsDialect<C> | null = null;

  /** Serves every table of `schema` as the migration left it (`layout`, see `servedTables`). */
  serve(dialect: RecordsDialect<C>, schema: SqlSchema, layout: readonly SqlTable[]): void {
    this.#dialect = dialect;
    this.#records = recordsOf(dialect, servedTables(schema.tables, layout), this.#follower);
  }

  /** See `Store.follow`: every served entity's writes, and those of a later `serve`. */
  follow(follower: WriteFollower): void {
    this.#follower = follower;
    const first = this.#records.values().next().value;
    if (first && this.#dialect) first.shared.follow(follower);
  }

  of(entity: string): Records<C> {
    const records = this.#records.get(entity);
    if (!records) throw new Error(`The table of ${entity} is not ready: apply the schema first.`);
    return records;
  }
}

/**
 * One entity's records, on any database: the order of a write's steps, its checks and its history
 * entry, list and summary planning, rows to records and database guards to refusals. Its SQL is
 * generated from the table's compiled schema only: identifiers come from the schema and are quoted,
 * every value is a bound parameter. Point reads and writes are prepared once, here.
 *
 * A write runs in one transaction of the dialect's (`RecordsDialect.transaction`) as a sequence of
 * steps (`step.ts`): to the end at once on SQLite, awaiting each call on PostgreSQL, where a write
 * reads its record `FOR UPDATE` and a limit's count takes an advisory lock on the group it counts.
 */
export class Records<C> implements EntityRecords {
  readonly entity: string;
  readonly #table: SqlTable;
  readonly #shared: Shared<C>;
  /** What every entity's records of this database share (for `ServedRecords.follow`). */
  get shared(): Shared<C> {
    return this.#shared;
  }
  readonly #d: RecordsDialect<C>;
  readonly #columns: ReadonlyMap<string, SqlColumn>;
  /** Columns the API shows: all but the version. */
  readonly #apiColumns: readonly SqlColumn[];
  readonly #fieldColumns: readonly SqlColumn[];
  readonly #references: readonly { field: string; table: string }[];
  /** Fields referring to `User`: their users live in the runtime's users table. */
  readonly #userReferences: readonly string[];
  /** Every reference field, in the order a refusal names them. */
  readonly #referenceOrder: readonly string[];
  readonly #hasState: boolean;
  /** Whether the table keeps when each record entered its state (`STATE_SINCE_COLUMN`). */
  readonly #timed: boolean;
  readonly #select: string;
  /** The API's columns only: a list's rows are its records as they come (`#records`). */
  readonly #listSelect: string;
  /** Boolean columns, which SQLite answers as 0 or 1. */
  readonly #booleans: readonly string[];
  /** A row read with the version (`#select`) as the API shows it. */
  readonly #record: RecordReader;
  /** A record's API columns, in table order: `#record` unless the database shortened a name. */
  readonly #pick: RecordReader;
  /** Whether a row holds a column under another name than its field's (PostgreSQL, a long name). */
  readonly #renamed: boolean;
  /** Page plans by sort column, each an array by `pageKind` (see `#pagePlan`). */
  readonly #pagePlans = new Map<string, (PagePlan<C> | undefined)[]>();
  readonly #countAll: Prepared<C>;
  readonly #get: Prepared<C>;
  readonly #getForUpdate: Prepared<C>;
  readonly #exists: Prepared<C>;
  readonly #insert: Prepared<C>;
  /**
   * A database reached over the network (PostgreSQL): the record's insert and its history entry
   * in one statement (a data-modifying `WITH`), one round trip fewer per create; null on SQLite,
   * where a statement costs no round trip.
   */
  readonly #insertWithHistory: Prepared<C> | null;
  readonly #update: Prepared<C>;
  /** The same, setting the state too: a transition. */
  readonly #updateState: Prepared<C> | null;
  readonly #delete: Prepared<C>;
  readonly #referrers: readonly Referrer<C>[];
  /** The dialect's quoting and value conversion, bound once: list planning passes them on. */
  readonly #quote: (name: string) => string;
  readonly #toDb: (column: SqlColumn, value: Value) => unknown;

  constructor(table: SqlTable, referrers: readonly { table: SqlTable; column: SqlColumn }[], shared: Shared<C>) {
    const d = shared.dialect;
    this.entity = table.entity;
    this.#table = table;
    this.#shared = shared;
    this.#d = d;
    this.#quote = (name) => d.quote(name);
    this.#toDb = (column, value) => d.toDb(column, value);
    this.#columns = new Map(table.columns.map((c) => [c.name, c]));
    this.#apiColumns = table.columns.filter((c) => c.name !== VERSION_COLUMN && c.name !== STATE_SINCE_COLUMN);
    this.#timed = this.#columns.has(STATE_SINCE_COLUMN);
    this.#fieldColumns = table.columns.filter((c) => c.field !== null);
    this.#userReferences = this.#fieldColumns.filter((c) => c.references?.entity === USER_ENTITY).map((c) => c.name);
    this.#references = this.#fieldColumns.flatMap((c) =>
      c.references?.table ? [{ field: c.name, table: c.references.table }] : [],
    );
    this.#referenceOrder = [...this.#references.map((r) => r.field), ...this.#userReferences];
    this.#hasState = this.#columns.has('state');

    const q = (name: string) => d.quote(name);
    const p = (n: number) => d.placeholder(n);
    const t = q(table.name);
    this.#select = `SELECT ${table.columns.map((c) => q(c.name)).join(', ')} FROM ${t}`;
    this.#listSelect = `SELECT ${this.#apiColumns.map((c) => q(c.name)).join(', ')} FROM ${t}`;
    this.#booleans = this.#apiColumns.filter((c) => c.type === 'boolean').map((c) => c.name);
    const apiNames = this.#apiColumns.map((c) => c.name);
    this.#renamed = apiNames.some((name) => d.columnKey(name) !== name);
    this.#pick = compileRecordReader(apiNames, this.#booleans);
    this.#record = this.#renamed ? compileRecordReader(apiNames, this.#booleans, (n) => d.columnKey(n)) : this.#pick;
    this.#countAll = d.prepare(this.#countOf([]));
    this.#get = d.prepare(`${this.#select} WHERE "id" = ${p(1)}`);
    this.#getForUpdate = d.forUpdate ? d.prepare(`${this.#select} WHERE "id" = ${p(1)}${d.forUpdate}`) : this.#get;
    this.#exists = d.prepare(`SELECT 1 FROM ${t} WHERE "id" = ${p(1)}`);
    const inserted = table.columns.map((c) => c.name);
    const insertRecord = `INSERT INTO ${t} (${inserted.map(q).join(', ')}) VALUES (${inserted.map((_, i) => p(i + 1)).join(', ')})`;
    this.#insert = d.prepare(insertRecord);
    const historyValues = HISTORY_COLUMNS.map((_, i) => p(inserted.length + i + 1)).join(', ');
    this.#insertWithHistory = d.sync
      ? null
      : d.prepare(
          `WITH "np_record" AS (${insertRecord}) INSERT INTO ${q(HISTORY_TABLE)} (${HISTORY_COLUMNS.map(q).join(', ')}) VALUES (${historyValues})`,
        );
    const version = q(VERSION_COLUMN);
    const update = (setState: boolean) => {
      const set = this.#fieldColumns.map((c, i) => `${q(c.name)} = ${p(i + 1)}`);
      let n = set.length;
      if (setState) set.push(`"state" = ${p(++n)}`);
      set.push(`"updated_at" = ${p(++n)}`, `${version} = ${version} + 1`);
      // Entering another state restarts its time; a transition back into the same state does not.
      if (setState && this.#timed) set.push(`${q(STATE_SINCE_COLUMN)} = ${p(++n)}`);
      return d.prepare(`UPDATE ${t} SET ${set.join(', ')} WHERE "id" = ${p(n + 1)} AND ${version} = ${p(n + 2)}`);
    };
    this.#update = update(false);
    this.#updateState = this.#hasState ? update(true) : null;
    this.#delete = d.prepare(`DELETE FROM ${t} WHERE "id" = ${p(1)}`);
    this.#referrers = referrers.map(({ table: other, column }) => {
      const self = other.name === table.name;
      // A record referring to itself does not keep itself from being deleted.
      const notItself = self ? ` AND "id" <> ${p(2)}` : '';
      const sql = `SELECT 1 FROM ${q(other.name)} WHERE ${q(column.name)} = ${p(1)}${notItself} LIMIT 1`;
      return { entity: other.entity, field: column.name, self, statement: d.prepare(sql) };
    });
    // The default list's pages, prepared now like the point reads; other sorts and filters on first use.
    for (const after of [null, { value: '', id: '' }]) this.#pagePlan({ ...DEFAULT_LIST, after });
  }

  /** The hot read: one prepared statement and the row made a record, with no sequence to run. */
  get(id: string): MaybePromise<StoredRecord | undefined> {
    const gate = this.#d.gate?.();
    if (gate) return gate.then(() => this.get(id));
    const row = this.#get.byId(this.#d.idle, id);
    if (row instanceof Promise) return row.then((r) => (r ? this.#stored(r) : undefined));
    return row ? this.#stored(row) : undefined;
  }

  /** A record by id, read on `conn` (inside a transaction, it sees the transaction's writes). */
  *readIn(conn: C, id: string): Step<ApiRecord | undefined> {
    const row = yield* wait(this.#get.byId(conn, id));
    return row ? this.#record(row) : undefined;
  }

  /** Whether a record with this id exists, as `conn` sees it. */
  *existsIn(conn: C, id: string): Step<boolean> {
    return (yield* wait(this.#exists.byId(conn, id))) !== undefined;
  }

  /**
   * See `TxReader.count`. Where the dialect locks a count (PostgreSQL), the lock of the counted
   * group is taken for the rest of the transaction first; under READ COMMITTED the count that
   * follows sees every row committed by a writer that held it before.
   */
  *countIn(conn: C, query: CountQuery): Step<number> {
    const { sql, params } = this.countSql(query);
    if (this.#d.lockCount) yield* wait(this.#d.lockCount(conn, countGroupKey(this.#table.name, query)));
    const row = yield* wait(this.#d.cached(sql).one(conn, params));
    return Number(row?.n ?? 0);
  }

  /** A count outside a write, for tests and tools. */
  async count(query: CountQuery): Promise<number> {
    await this.#d.gate?.();
    const { sql, params } = this.countSql(query);
    const row = await this.#d.cached(sql).one(this.#d.idle, params);
    return Number(row?.n ?? 0);
  }

  /** The statement a count runs, for tests that look at its plan. Columns are checked; values are bound. */
  countSql(query: CountQuery): { sql: string; params: unknown[] } {
    const params: unknown[] = [];
    const bind = this.#binder(params);
    const where = countConditions(
      query,
      (name) => this.#column(name),
      { quote: this.#quote, bind, toDb: this.#toDb },
      (states) => {
        if (!this.#hasState) throw new Error(`${this.#table.name} has no state column`);
        return this.#d.stateAmong(states, bind);
      },
    );
    return { sql: this.#countOf(where), params };
  }

  async dueIds(query: DueQuery): Promise<string[]> {
    await this.#d.gate?.();
    if (!this.#hasState) throw new Error(`${this.entity} has no state machine`);
    const params: unknown[] = [];
    const bind = this.#binder(params);
    const where = [this.#d.stateAmong(query.states, bind)];
    if (query.column !== null && query.before !== null) {
      const column = this.#columns.get(query.column);
      if (!column) throw new Error(`${this.#table.name} has no column ${query.column}`);
      const bound = column.type === 'date' ? query.before.slice(0, 10) : query.before;
      where.push(`${this.#quote(column.name)} <= ${bind(this.#toDb(column, bound))}`);
    }
    if (query.after !== null) where.push(`"id" > ${bind(query.after)}`);
    const sql = `SELECT "id" FROM ${this.#quote(this.#table.name)} WHERE ${where.join(' AND ')} ORDER BY "id" LIMIT ${bind(query.limit)}`;
    const rows = await this.#d.cached(sql).all(this.#d.idle, params);
    return rows.map((row) => String(row.id));
  }

  async create(record: ApiRecord, context: WriteContext, check?: WriteCheck): Promise<WriteOutcome> {
    try {
      return await this.#d.transaction((conn) => this.#create(conn, record, context, check));
    } catch (error) {
      return this.#writeRefused(error, record);
    }
  }

  async createAll(rows: () => Iterable<BatchCreate>, options: BatchOptions): Promise<BatchOutcome> {
    try {
      return await this.#d.transaction((conn) => this.#createAll(conn, rows(), options));
    } catch (error) {
      if (error instanceof BatchRolledBack) return error.outcome;
      throw error;
    }
  }

  /**
   * Every record of a batch created as `#create` does, in one transaction. A record refused is
   * noted and the next one tried; at the end a refusal (or a dry run) rolls everything back by
   * throwing `BatchRolledBack`. On PostgreSQL a failed statement (a unique index) would abort the
   * whole transaction, so each record runs in a savepoint; SQLite undoes only the failed statement.
   */
  *#createAll(conn: C, rows: Iterable<BatchCreate>, options: BatchOptions): Step<BatchOutcome> {
    const savepoints = !this.#d.sync;
    const begin = savepoints ? this.#d.cached('SAVEPOINT ninepoint_batch_row') : null;
    const release = savepoints ? this.#d.cached('RELEASE SAVEPOINT ninepoint_batch_row') : null;
    const undo = savepoints ? this.#d.cached('ROLLBACK TO SAVEPOINT ninepoint_batch_row') : null;
    const refused: BatchRefusal[] = [];
    let index = 0;
    let created = 0;
    for (const row of rows) {
      if (begin) yield* wait(begin.run(conn, []));
      let ok = false;
      try {
        const outcome = yield* this.#create(conn, row.record, row.context, row.check);
        if (outcome.ok) {
          ok = true;
          created++;
        } else refused.push({ index, refusal: outcome.refusal });
      } catch (error) {
        if (this.#d.violation(error, this.#table)) {
          const outcome = this.#writeRefused(error, row.record);
          if (!outcome.ok) refused.push({ index, refusal: outcome.refusal });
        } else if (options.refuses(error)) refused.push({ index, error });
        else throw error;
      }
      if (savepoints) yield* wait((ok ? release : undo)?.run(conn, []) ?? 0);
      index++;
      options.progress?.(index);
    }
    const outcome: BatchOutcome = { created, committed: false, refused };
    if (refused.length > 0 || !options.commit) throw new BatchRolledBack(outcome);
    return { ...outcome, committed: true };
  }

  update(id: string, values: Record<string, Value>, context: ConditionalWrite, check?: WriteCheck) {
    return this.#change(id, values, context, check, null);
  }

  async transition(
    id: string,
    transition: TransitionWrite,
    values: Record<string, Value>,
    context: ConditionalWrite,
    check?: WriteCheck,
  ): Promise<WriteOutcome> {
    if (!this.#hasState) throw new Error(`${this.entity} has no state machine`);
    return this.#change(id, values, context, check, transition);
  }

  async delete(id: string, context: ConditionalWrite, check?: DeleteCheck): Promise<DeleteOutcome> {
    try {
      return await this.#d.transaction((conn) => this.#deleteRecord(conn, id, context, check));
    } catch (error) {
      // Checked before deleting; this is the database's own guard answering the same (a racing insert).
      if (this.#d.violation(error, this.#table)?.kind === 'foreign-key') {
        const first = this.#referrers[0];
        return { ok: false, refusal: { kind: 'referenced', entity: first?.entity ?? '', field: first?.field ?? '' } };
      }
      throw error;
    }
  }

  async list(query: ListQuery): Promise<ListPage> {
    await this.#d.gate?.();
    const { idle } = this.#d;
    let rows: Row[];
    let counting: (() => MaybePromise<Row | undefined>) | null = null;
    if (query.filters.length === 0 && query.search === null && query.owner === null) {
      const plan = this.#pagePlan(query);
      const { after } = query;
      const params: unknown[] = [];
      if (after) {
        const sort = this.#column(query.sort.column);
        for (const part of plan.takes) params.push(part === 'id' ? after.id : this.#d.toDb(sort, after.value));
      }
      params.push(query.limit + 1);
      rows = await plan.statement.all(idle, params);
      if (query.count) counting = () => this.#countAll.one(idle, []);
    } else {
      const plan = this.#plan(query);
      plan.params.push(query.limit + 1);
      rows = await this.#d.cached(plan.sql).all(idle, plan.params);
      if (query.count) counting = () => this.#d.cached(plan.countSql).one(idle, plan.countParams);
    }
    const more = rows.length > query.limit;
    const page = this.#records(more ? rows.slice(0, query.limit) : rows);
    const last = page.at(-1);
    const result: ListPage = {
      records: page,
      next: more && last ? { value: positionValue(last[query.sort.column]), id: String(last.id) } : null,
    };
    if (counting) result.total = Number((await counting())?.n ?? 0);
    return result;
  }

  /**
   * The statement of a page with no conditions, for the query's sort and kind of position (none,
   * one with no value, one with a value), built by `#plan` on first use and kept: a table has
   * few sort columns. `takes` is found by planning with stand-ins for the position's parts.
   */
  #pagePlan(query: ListQuery): PagePlan<C> {
    const { column, descending } = query.sort;
    const { after } = query;
    const kind = (descending ? 3 : 0) + (after === null ? 0 : after.value === null ? 1 : 2);
    let plans = this.#pagePlans.get(column);
    const known = plans?.[kind];
    if (known) return known;
    const stand = after && {
      id: PLANNED_ID as unknown as string,
      value: after.value === null ? null : (PLANNED_VALUE as unknown as string),
    };
    const planned = this.#plan({ ...DEFAULT_LIST, sort: { column, descending }, after: stand });
    const takes = planned.params.map((p) => (p === PLANNED_ID ? 'id' : 'value') as 'id' | 'value');
    if (planned.params.some((p) => p !== PLANNED_ID && p !== PLANNED_VALUE)) {
      throw new Error(`A page of ${this.#table.name} binds more than its position.`);
    }
    const plan: PagePlan<C> = { statement: this.#d.prepare(planned.sql), takes };
    if (!plans) {
      plans = [];
      this.#pagePlans.set(column, plans);
    }
    plans[kind] = plan;
    return plan;
  }

  /**
   * A list's rows as records: they hold the API's columns only (`#listSelect`), so each row is its
   * record, with only a boolean stored as 0 or 1 (SQLite) turned into a boolean. Rows holding a
   * shortened name (PostgreSQL) are made records under their fields' names.
   */
  #records(rows: Row[]): ApiRecord[] {
    if (this.#renamed) return rows.map(this.#record);
    const booleans = this.#booleans;
    if (booleans.length > 0) {
      for (const row of rows) {
        for (const name of booleans) {
          const value = row[name];
          if (typeof value === 'number') row[name] = value !== 0;
        }
      }
    }
    return rows as ApiRecord[];
  }

  /** The SQL of a list query (its last parameter is the limit), for tests that look at how a database plans it. */
  listSql(query: ListQuery): { sql: string; params: unknown[] } {
    const plan = this.#plan(query);
    return { sql: plan.sql, params: [...plan.params, query.limit + 1] };
  }

  async summary(query: SummaryQuery): Promise<Summary> {
    await this.#d.gate?.();
    const params: unknown[] = [];
    const d = this.#d;
    const sql = summarySql(this.#table.name, query, (name) => this.#column(name), {
      quote: this.#quote,
      bind: this.#binder(params),
      toDb: this.#toDb,
      like: d.like,
      sum: (column) => d.sum(column),
    });
    const boolean = query.by !== null && this.#column(query.by).type === 'boolean';
    const rows = await d.cached(sql).all(d.idle, params);
    const value = (v: unknown) => (boolean && typeof v === 'number' ? v !== 0 : (v as Value));
    return summaryOf(query, rows, value, (name) => this.#column(name));
  }

  async history(id: string): Promise<HistoryEntry[]> {
    await this.#d.gate?.();
    const d = this.#d;
    const rows = await this.#shared.selectHistory.all(d.idle, [this.entity, id]);
    return rows.map((row) => ({
      at: String(row.at),
      by: (row.by as string | null) ?? null,
      action: row.action as HistoryEntry['action'],
      transition: (row.transition as string | null) ?? null,
      from: (row.from_state as string | null) ?? null,
      to: (row.to_state as string | null) ?? null,
      changes: d.fromJson(row.changes) ?? {},
      before: d.fromJson(row.before) ?? {},
      ...(row.how === 'import' ? { how: 'import' as const } : {}),
    }));
  }

  /**
   * An update or a transition, in one transaction, as four steps: plan (what the write would
   * leave), check (whether it may be made), write (the row) and history (its entry).
   */
  async #change(
    id: string,
    values: Record<string, Value>,
    context: ConditionalWrite,
    check: WriteCheck | undefined,
    transition: TransitionWrite | null,
  ): Promise<WriteOutcome> {
    try {
      return await this.#d.transaction((conn) => this.#changeIn(conn, id, values, context, check, transition));
    } catch (error) {
      return this.#writeRefused(error, values);
    }
  }

  *#changeIn(
    conn: C,
    id: string,
    values: Record<string, Value>,
    context: ConditionalWrite,
    check: WriteCheck | undefined,
    transition: TransitionWrite | null,
  ): Step<WriteOutcome> {
    const plan = yield* this.#planChange(conn, id, values, transition, context.at);
    if (!plan) return { ok: false, refusal: { kind: 'not-found' } };
    const answer = yield* this.#checkChange(conn, plan, context, check);
    if (answer) return answer;
    if (!(yield* this.#writeChange(conn, plan, context.at))) return { ok: false, refusal: { kind: 'stale' } };
    yield* this.#changeHistory(conn, plan, context);
    // Rows that must commit with the change (the outbox of its notifications and calls).
    yield* this.#followed(
      conn,
      plan.transition ? 'transition' : 'update',
      plan.transition?.name ?? null,
      plan.record,
      context,
    );
    return {
      ok: true,
      stored: { record: plan.record, version: plan.current.version + 1 },
      changed: true,
      fields: Object.keys(plan.changes),
    };
  }

  /**
   * Plan: the record read for update and what the write would make of it; no check yet, nothing
   * written. Undefined when there is no such record.
   * A transition's field assignments (its `sets`) are not planned here: they are worked out after
   * its guard, in the check step, and join the plan there (see `#checkChange`).
   */
  *#planChange(
    conn: C,
    id: string,
    values: Record<string, Value>,
    transition: TransitionWrite | null,
    at: string,
  ): Step<ChangePlan | undefined> {
    const row = yield* wait(this.#getForUpdate.byId(conn, id));
    if (!row) return undefined;
    const current = this.#stored(row);
    const { changes, record } = plannedWrite(this.#fieldColumns, current.record, values, transition, at);
    const since = row[STATE_SINCE_COLUMN];
    return { id, current, transition, changes, record, stateSince: typeof since === 'string' ? since : null };
  }

  /**
   * Check: whether the planned write may be made, in this order: the actor may make it
   * (`authorize`), the record is at an expected version, something changes, its references name
   * records the actor may read, and the entity's rules, guard and limits hold (`check`). Answers
   * the outcome when the write is not to be made (a refusal, or nothing to change), else null.
   * A check that refuses by throwing ends the transaction. What a transition sets (its `sets`,
   * worked out by `check` after the guard and before the rules, which see the result) joins the
   * plan's `record` and `changes` here: the row and the history entry carry it. `authorize` ran
   * on what the caller asked, so the fields a transition sets need no permission of theirs.
   */
  *#checkChange(
    conn: C,
    plan: ChangePlan,
    context: ConditionalWrite,
    check: WriteCheck | undefined,
  ): Step<WriteOutcome | null> {
    const { current, record, changes } = plan;
    const { authorize } = context;
    if (authorize) yield* this.#shared.decide(conn, (reader) => authorize(current.record, record, reader));
    if (context.ifVersions !== null && !context.ifVersions.includes(current.version)) {
      return { ok: false, refusal: { kind: 'stale' } };
    }
    // A transition due after a time in a state: the record has re-entered its state since it was found.
    const enteredBy = plan.transition?.enteredBy;
    if (enteredBy !== undefined && (plan.stateSince === null || plan.stateSince > enteredBy)) {
      return { ok: false, refusal: { kind: 'stale' } };
    }
    // A transition is written even when no field changes: its history entry is the point.
    if (Object.keys(changes).length === 0 && plan.transition === null)
      return { ok: true, stored: current, changed: false };
    const missing = yield* this.#unknownReferences(conn, changes, context);
    if (missing.length > 0) return { ok: false, refusal: { kind: 'unknown-reference', fields: missing } };
    if (check) {
      const effects = yield* this.#shared.decide(conn, (reader) => check(record, current.record, reader));
      if (effects) applyEffects(effects, record, changes, current.record);
    }
    return null;
  }

  /**
   * Write: the planned record's row, if it is still at the version read (else false: another
   * write got there first). A transition sets the state too.
   */
  *#writeChange(conn: C, plan: ChangePlan, at: string): Step<boolean> {
    const d = this.#d;
    const { id, record, transition, current } = plan;
    const fields: unknown[] = this.#fieldColumns.map((c) => d.toDb(c, record[c.name] ?? null));
    let updated: number;
    if (transition && this.#updateState) {
      const timing = this.#timed ? [transition.to === current.record.state ? plan.stateSince : at] : [];
      updated = yield* wait(
        this.#updateState.run(conn, [...fields, transition.to, at, ...timing, id, current.version]),
      );
    } else updated = yield* wait(this.#update.run(conn, [...fields, at, id, current.version]));
    return updated === 1;
  }

  /** History: the change's entry, naming the transition and its states when it is one. */
  *#changeHistory(conn: C, plan: ChangePlan, context: WriteContext): Step<void> {
    const { id, changes, transition, current } = plan;
    const before = valuesBefore(changes, current.record);
    if (!transition) {
      yield* this.#history(conn, historyRow(this.entity, id, context, 'update', null, null, null, changes, before));
      return;
    }
    const from = current.record.state;
    const fromState = typeof from === 'string' ? from : null;
    yield* this.#history(
      conn,
      historyRow(this.entity, id, context, 'transition', transition.name, fromState, transition.to, changes, before),
    );
  }

  *#create(conn: C, record: ApiRecord, context: WriteContext, check: WriteCheck | undefined): Step<WriteOutcome> {
    const missing = yield* this.#unknownReferences(conn, record, context);
    if (missing.length > 0) return { ok: false, refusal: { kind: 'unknown-reference', fields: missing } };
    // One copy of the record: what the check reads is what is stored and answered (checks only read).
    const created = this.#pick(record);
    if (check) yield* this.#shared.decide(conn, (reader) => check(created, null, reader));
    const d = this.#d;
    const columns = this.#table.columns;
    const values: unknown[] = new Array(columns.length);
    for (let i = 0; i < columns.length; i++) {
      const column = columns[i] as SqlColumn;
      values[i] =
        column.name === VERSION_COLUMN
          ? 1
          : column.name === STATE_SINCE_COLUMN
            ? context.at
            : d.toDb(column, created[column.name] ?? null);
    }
    const changes: Record<string, Value> = {};
    for (const column of this.#fieldColumns) changes[column.name] = created[column.name] ?? null;
    const state = this.#hasState ? (record.state as string) : null;
    const id = String(record.id);
    if (this.#insertWithHistory) {
      const history = historyRow(this.entity, id, context, 'create', null, null, state, changes, NO_VALUES);
      yield* wait(this.#insertWithHistory.run(conn, [...values, ...history]));
    } else {
      yield* wait(this.#insert.run(conn, values));
      yield* this.#history(conn, historyRow(this.entity, id, context, 'create', null, null, state, changes, NO_VALUES));
    }
    yield* this.#followed(conn, 'create', null, created, context);
    return { ok: true, stored: { record: created, version: 1 }, changed: true };
  }

  *#deleteRecord(conn: C, id: string, context: ConditionalWrite, check: DeleteCheck | undefined): Step<DeleteOutcome> {
    const row = yield* wait(this.#getForUpdate.byId(conn, id));
    if (!row) return { ok: false, refusal: { kind: 'not-found' } };
    const stored = this.#record(row);
    if (check) yield* this.#shared.decide(conn, (reader) => check(stored, reader));
    if (context.ifVersions !== null && !context.ifVersions.includes(Number(row[VERSION_COLUMN]))) {
      return { ok: false, refusal: { kind: 'stale' } };
    }
    for (const referrer of this.#referrers) {
      if ((yield* wait(referrer.statement.one(conn, referrer.self ? [id, id] : [id]))) !== undefined) {
        return { ok: false, refusal: { kind: 'referenced', entity: referrer.entity, field: referrer.field } };
      }
    }
    yield* wait(this.#delete.run(conn, [id]));
    const before = lastValues(this.#fieldColumns, this.#hasState, stored);
    yield* this.#history(conn, historyRow(this.entity, id, context, 'delete', null, null, null, {}, before));
    yield* this.#followed(conn, 'delete', null, stored, context);
    return { ok: true };
  }

  /** A write the database's unique or foreign-key guard stopped, as a refusal; anything else is thrown again. */
  #writeRefused(error: unknown, values: Record<string, Value>): WriteOutcome {
    const violation = this.#d.violation(error, this.#table);
    if (violation?.kind === 'unique') return { ok: false, refusal: { kind: 'not-unique', field: violation.field } };
    if (violation?.kind === 'foreign-key') {
      const fields = this.#references.filter((r) => values[r.field] != null).map((r) => r.field);
      return { ok: false, refusal: { kind: 'unknown-reference', fields } };
    }
    throw error;
  }

  /**
   * The reference fields among `values` naming a record that does not exist or that the actor may
   * not read (`WriteContext.unreadableReferences`): one answer for both, in the table's order.
   */
  *#unknownReferences(conn: C, values: Record<string, Value>, context: WriteContext): Step<string[]> {
    const missing = yield* this.#missingReferences(conn, values);
    const find = context.unreadableReferences;
    if (!find) return missing;
    const unreadable = yield* this.#shared.decide(conn, (reader) => find(values, reader));
    if (unreadable.length === 0) return missing;
    const unknown = new Set([...missing, ...unreadable]);
    return this.#referenceOrder.filter((field) => unknown.has(field));
  }

  *#missingReferences(conn: C, values: Record<string, Value>): Step<string[]> {
    const missing: string[] = [];
    for (const { field, table } of this.#references) {
      const value = values[field];
      if (typeof value !== 'string') continue;
      const records = this.#shared.byTable.get(table);
      if (!records || !(yield* records.existsIn(conn, value))) missing.push(field);
    }
    for (const field of this.#userReferences) {
      const value = values[field];
      if (typeof value !== 'string') continue;
      if ((yield* wait(this.#d.user(conn, value))) === undefined) missing.push(field);
    }
    return missing;
  }

  /** The outbox's rows for this write, in its transaction (`Store.follow`); nothing when none follows. */
  *#followed(
    conn: C,
    action: FollowedWrite['action'],
    transition: string | null,
    record: ApiRecord,
    context: WriteContext,
  ): Step<void> {
    if (!this.#shared.follower) return;
    const id = String(record.id);
    yield* this.#shared.followed(conn, {
      entity: this.entity,
      action,
      transition,
      id,
      record,
      at: context.at,
      by: context.by,
    });
  }

  /** Writes a history entry made by `historyRow`. */
  *#history(conn: C, row: unknown[]): Step<void> {
    yield* wait(this.#shared.insertHistory.run(conn, row));
  }

  #plan(query: ListQuery): { sql: string; params: unknown[]; countSql: string; countParams: unknown[] } {
    const d = this.#d;
    const sort = this.#column(query.sort.column);
    const params: unknown[] = [];
    const bind = this.#binder(params);
    const where = listConditions(query, (name) => this.#column(name), {
      quote: this.#quote,
      bind,
      toDb: this.#toDb,
      like: d.like,
    });
    const countSql = this.#countOf(where);
    const countParams = [...params];
    if (query.after) {
      const after = { ...query.after, value: d.toDb(sort, query.after.value) as Position['value'] };
      where.push(keysetCondition(sort, query.sort.descending, after, this.#quote, bind));
    }
    const whereSql = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
    const direction = query.sort.descending ? 'DESC' : 'ASC';
    const nulls = sort.notNull ? '' : d.nullsOrder(query.sort.descending);
    const first = `${d.quote(sort.name)} ${direction}${nulls}`;
    const order = sort.name === 'id' ? first : `${first}, "id" ${direction}`;
    const limit = d.placeholder(params.length + 1);
    return { sql: `${this.#listSelect}${whereSql} ORDER BY ${order} LIMIT ${limit}`, params, countSql, countParams };
  }

  #countOf(where: readonly string[]): string {
    const whereSql = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
    return `SELECT count(*) AS "n" FROM ${this.#d.quote(this.#table.name)}${whereSql}`;
  }

  /** Adds a value to `params` and answers its placeholder. */
  #binder(params: unknown[]): (value: unknown) => string {
    return (value) => {
      params.push(value);
      return this.#d.placeholder(params.length);
    };
  }

  #column(name: string): SqlColumn {
    const column = this.#columns.get(name);
    if (!column || name === VERSION_COLUMN) throw new Error(`${this.#table.name} has no column ${name}`);
    return column;
  }

  #stored(row: Row): StoredRecord {
    return { record: this.#record(row), version: Number(row[VERSION_COLUMN]) };
  }
}

/**
 * A transition's sets (see `WriteCheck`) put into the record to be written and its history's
 * changes: a field it sets to what it already holds is no change.
 */
function applyEffects(effects: WriteEffects, record: ApiRecord, changes: Record<string, Value>, current: ApiRecord) {
  for (const [name, value] of Object.entries(effects)) {
    record[name] = value;
    if (value === (current[name] ?? null)) delete changes[name];
    else changes[name] = value;
  }
}

/** Ends a batch's transaction with a rollback, carrying what it found (`Records.createAll`). */
class BatchRolledBack extends Error {
  readonly outcome: BatchOutcome;
  constructor(outcome: BatchOutcome) {
    super('The batch was rolled back.');
    this.outcome = outcome;
  }
}

/** A cursor's value as SQLite stores it, whatever the database: booleans as 0 or 1. */
function positionValue(value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value as string | number;
}
