import type { Model, SpecLine } from '@ninepoint/spec';
import type { MigrationPlan } from '../compile/migration-contract.ts';
import type { ApiRecord, TxReader, Value, WriteEffects } from '../compile/record-types.ts';
import type { RowPath, RowScope } from '../compile/row-access.ts';
import type { SqlSchema } from '../compile/sql-schema.ts';
import type { SqlRunner } from './sql-runner.ts';
import type { MaybePromise } from './step.ts';

/**
 * Where an app's records live. One implementation per database (`sqlite/…`, later `postgres/…`);
 * the HTTP layer talks only to this interface.
 */
export interface Store {
  readonly dialect: 'sqlite' | 'postgres';
  /** Where the data is, for messages and logs: a file path, never a password. */
  readonly location: string;
  /**
   * Migrates the database to the schema (see `compile/migration-planner.ts` and docs/migrations.md):
   *
   * 1. In one write transaction (SQLite: `BEGIN IMMEDIATE`; PostgreSQL: a transaction holding a
   *    lock that keeps a second server from migrating at the same time), read the newest
   *    `_ninepoint_schema` row (none: an empty database) as an `AppliedState`.
   * 2. Plan with `planMigration({ previous, model, schema, probe })`, the probe reading this
   *    database inside the same transaction.
   * 3. With `dryRun`, end the transaction without changing anything and return the plan
   *    (`applied: false`), even when it would be refused.
   * 4. When `blockingSteps(plan, allowDestructive)` is not empty, roll back and throw
   *    `MigrationRefusedError` (carrying the plan): nothing is changed, not even the bookkeeping tables.
   * 5. Otherwise create the bookkeeping tables if missing, make every `SchemaChange` of the
   *    steps, make sure every index of `schema` exists, and record `model` with `plan.tables`
   *    (the layout as it now is, kept columns and tables included) when either differs from the
   *    newest row. Commit. Anything failing rolls the whole migration back.
   * 6. Afterwards `records` serves every table of `schema`.
   *
   * A store never drops a column or table that holds data; the only column it recreates is one
   * holding no value (`recreate-column`).
   */
  applySchema(schema: SqlSchema, model: Model, options?: ApplyOptions): Promise<AppliedSchema>;
  /** The records of an entity; throws when `applySchema` has not laid out its table. */
  records(entity: string): EntityRecords;
  /**
   * Adds the follower's rows in the transaction of every create, update, transition and delete
   * from now on (one follower; a second replaces it). Survives a later `applySchema`.
   */
  follow(follower: WriteFollower): void;
  /**
   * Runs `work` in one write transaction held open across its awaits (a `before` hook and the
   * write it is on, `code/`): every record read and write made from within `work`'s async context
   * (the in-process API calls it makes included) is this transaction's, each write in a savepoint
   * of it, so a write refused inside `work` undoes itself alone. Commits when `work` resolves; rolls
   * back everything when it throws. A `hold` inside another joins it. The caller bounds its time.
   * Holds of the same `turn` (a before hook's: the entity written) take turns, across servers
   * too, so that each sees what the one before it committed (SQLite: every hold takes turns).
   */
  hold<T>(work: () => Promise<T>, turn?: string): Promise<T>;
  /**
   * Runs `fn` once the caller's write is committed: at once outside a held transaction, after its
   * COMMIT inside one (never, if it rolls back), and outside it either way.
   */
  afterCommit(fn: () => void): void;
  /**
   * Whether another connection (another process: the `ninepoint` CLI) committed to the database
   * since the last ask, for what a server must hear of at once (a user deactivated at the
   * terminal). SQLite only (`PRAGMA data_version`, no I/O); PostgreSQL's servers and CLI tell each
   * other through LISTEN/NOTIFY instead.
   */
  changedElsewhere?(): boolean;
  /** Statements on the runtime's own tables (users, sessions, tokens, rate limits). */
  readonly sql: SqlRunner;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A committed-with-the-write change, as a `WriteFollower` sees it inside the write's transaction:
 * the record after it (before it, for a delete).
 */
export interface FollowedWrite {
  entity: string;
  action: 'create' | 'update' | 'transition' | 'delete';
  transition: string | null;
  id: string;
  record: ApiRecord;
  /** ISO 8601 in UTC, and the acting user's id: the write's `WriteContext`. */
  at: string;
  by: string | null;
}

/**
 * Rows a write adds to one table of the runtime's, in the write's own transaction, so they are
 * committed with it or not at all (the outbox, `outbox/`). The table must exist before `follow`.
 */
export interface WriteFollower {
  table: string;
  columns: readonly string[];
  /** The rows (one value per column, in order) this write adds; null or none for a write it ignores. */
  rowsFor(write: FollowedWrite): readonly (readonly unknown[])[] | null;
}

export interface ApplyOptions {
  /** Also apply the steps that need the flag (`--allow-destructive`). Default false. */
  allowDestructive?: boolean;
  /** Plan only: change nothing and serve nothing (`ninepoint migrate --plan`). Default false. */
  dryRun?: boolean;
}

export interface AppliedSchema {
  /** What was done, or in a dry run what would be done, step by step. */
  plan: MigrationPlan;
  /** False in a dry run. */
  applied: boolean;
  /** True when this model or layout differs from the last one recorded, and was recorded. */
  recorded: boolean;
}

/** A record and the counter its ETag is made from. */
export interface StoredRecord {
  record: ApiRecord;
  version: number;
}

/** Who makes a change and when, for the record's system fields and its history. */
export interface WriteContext {
  /** ISO 8601 in UTC. */
  at: string;
  /** The acting user's id; null until sign-in exists, and for signed-out visitors. */
  by: string | null;
  /**
   * Which of the reference fields the write sets name a record the actor may not read. They are
   * refused as `unknown-reference`, exactly as references to records that do not exist, before
   * any check runs: a rule following them would tell the record's existence and values. Asked
   * only of references whose records exist (`reader.get` finds them); it may read further (an
   * `own via` chain), so it must have no effect but its answer.
   */
  unreadableReferences?: (values: Record<string, Value>, reader: TxReader) => readonly string[];
  /** How the change was made when not by a call on the record (a row of an import); kept in its history entry. */
  how?: 'import';
}

/** A write that may be made only if the record is at one of some versions (`If-Match`). */
export interface ConditionalWrite extends WriteContext {
  /** The versions the record may be at, or null for any; an empty list matches none. */
  ifVersions: readonly number[] | null;
  /**
   * Whether the actor may make this write, decided on the record as stored (`current`) and as the
   * write would leave it (`next`), first thing in the transaction: before the version, before
   * "nothing changed", before references and rules. It refuses by throwing. It may read
   * (following `own via` chains), so, like a `WriteCheck`, it must have no effect but its answer.
   */
  authorize?: (current: ApiRecord, next: ApiRecord, reader: TxReader) => void;
}

/** Why a write was refused; nothing was written. */
export type Refusal =
  | { kind: 'not-found' }
  /** `ifVersions` was given and the record has moved on. */
  | { kind: 'stale' }
  /** Reference fields naming a record that does not exist. */
  | { kind: 'unknown-reference'; fields: string[] }
  /** A unique field whose value another record has. */
  | { kind: 'not-unique'; field: string }
  /** The record cannot be deleted while another refers to it. */
  | { kind: 'referenced'; entity: string; field: string };

/**
 * A write's outcome. `fields` names the fields a change wrote (its history entry's `changes`), so
 * that those who do not see them are not told of it (live updates).
 */
export type WriteOutcome =
  | { ok: true; stored: StoredRecord; changed: boolean; fields?: readonly string[] }
  | { ok: false; refusal: Refusal };
export type DeleteOutcome = { ok: true } | { ok: false; refusal: Refusal };

/**
 * One condition of a list query: equality (a filter through references, `doctor.account`, carries
 * its chain of columns in `path`), one of several values, none of them (or empty), text containing
 * some text (ignoring the case of ASCII letters), a bound of a range (`from`/`to` include it,
 * `after`/`before` do not), empty or not, or a group of which any one condition holds.
 */
export type ListFilter =
  | { op?: 'equal'; column: string; value: Value; path?: RowPath }
  | { op: 'among'; column: string; values: Value[] }
  | { op: 'notAmong'; column: string; values: Value[] }
  | { op: 'contains'; column: string; text: string }
  | { op: 'from' | 'to' | 'after' | 'before'; column: string; value: string | number }
  | { op: 'empty'; column: string; empty: boolean }
  | { op: 'any'; filters: ListFilter[] };

/** A list query whose column names are the model's; the store checks them again against its table. */
export interface ListQuery {
  /** The sort column, with `id` as the tie-breaker in the same direction. */
  sort: { column: string; descending: boolean };
  /** Conditions on columns, all of which must hold. */
  filters: ListFilter[];
  /** Records any of whose `columns` contains `text` (case-insensitive for ASCII letters). */
  search: { columns: string[]; text: string } | null;
  /** Only the records one of the grants covers for the user (`own`, `via`, `while`); null for all. */
  owner: RowScope | null;
  /** Records after this position in the sort order. */
  after: Position | null;
  limit: number;
  /** Also count every record the filters and search match. */
  count: boolean;
}

/**
 * The count and sums of the records a list with these filters and owner would hold (a dashboard's
 * figures), in all and, with `by`, per value of one column. Column names are the model's.
 */
export interface SummaryQuery {
  filters: ListQuery['filters'];
  /** A list's text search (`q`); absent or null for none. */
  search?: ListQuery['search'];
  owner: RowScope | null;
  /** Group per value of this column (the state, a choice or a boolean field), or null. */
  by: string | null;
  /** Number columns to total (integer or decimal). */
  sums: readonly string[];
}

/** One group of a summary: a value of the `by` column (null: records without one), and its figures. */
export interface SummaryGroup {
  value: Value;
  count: number;
  /** By summed column; 0 when no record of the group has a value. */
  sums: Record<string, number>;
}

export interface Summary {
  count: number;
  sums: Record<string, number>;
  /** Largest count first, then by value; null without `by`. */
  groups: SummaryGroup[] | null;
}

/** A place in a sort order: the sort column's stored value, and the id. */
export interface Position {
  value: string | number | null;
  id: string;
}

export interface ListPage {
  records: ApiRecord[];
  /** The position of the last record, when more records follow it. */
  next: Position | null;
  total?: number;
}

/** One entry of a record's history, oldest first. */
export interface HistoryEntry {
  at: string;
  by: string | null;
  action: 'create' | 'update' | 'delete' | 'transition';
  transition: string | null;
  from: string | null;
  to: string | null;
  /** The fields that changed, with their new values (on create, every field; on delete, none). */
  changes: Record<string, Value>;
  /** The same fields' values before the change; on delete, every field's last value. */
  before: Record<string, Value>;
  /** Present when the change was made otherwise than by a call on the record: `import`. */
  how?: 'import';
  /**
   * Added by the history call, never stored: the line of the transition as the spec the server
   * runs declares it (a renamed or removed transition has none).
   */
  spec?: SpecLine;
}

/**
 * Runs inside a write's transaction on the record as it would be written (`next`) and as it is
 * (`current`, null on create), before anything is written. It refuses by throwing: the
 * transaction rolls back and the error reaches the caller unchanged. A transition's check may
 * answer the fields the transition sets (point 4's `sets`, worked out after its guard): they are
 * written with the payload's and recorded in its history entry as its changes. It must not
 * change `next`: on PostgreSQL it may run again once a read it asked for is made.
 */
export type WriteCheck = (next: ApiRecord, current: ApiRecord | null, reader: TxReader) => WriteEffects | undefined;

/**
 * Runs inside a delete's transaction on the record about to be deleted; refuses by throwing. Like
 * a `WriteCheck` it may read (a chain of `own via`), so it must have no effect but its answer.
 */
export type DeleteCheck = (current: ApiRecord, reader: TxReader) => void;

/** A state change: the transition taken and the state it leads to. */
export interface TransitionWrite {
  name: string;
  to: string;
  /**
   * For a transition due after a time in a state: the record must have entered its state at or
   * before this instant (ISO 8601), else the write is refused as `stale` (it re-entered since).
   */
  enteredBy?: string;
}

/**
 * Records a transition the system takes may be due for (`timers/`): in one of `states`, with
 * `column` (a date or date-time field, a system time, or `_state_since`) at or before `before`
 * when given, ids after `after`, in id order, at most `limit`.
 */
export interface DueQuery {
  states: readonly string[];
  column: string | null;
  before: string | null;
  after: string | null;
  limit: number;
}

/** One record of `EntityRecords.createAll`, as `create` takes it. */
export interface BatchCreate {
  record: ApiRecord;
  context: WriteContext;
  check?: WriteCheck;
}

export interface BatchOptions {
  /** Commit once every record was created; false rolls back whatever happens (a dry run). */
  commit: boolean;
  /**
   * Whether an error a record's check threw refuses that record only (the others go on being
   * checked, so that every refusal is reported); any other error ends the batch, rolled back.
   */
  refuses: (error: unknown) => boolean;
  /** Told after each record, with how many are done (called inside the transaction: it must be quick). */
  progress?: (done: number) => void;
}

/** A record of a batch that was refused: by the store (`refusal`) or by its check (`error`). */
export type BatchRefusal = { index: number; refusal: Refusal } | { index: number; error: unknown };

export interface BatchOutcome {
  /** Records created (in a dry run, or when another was refused: that would have been, then rolled back). */
  created: number;
  committed: boolean;
  refused: BatchRefusal[];
}

/**
 * The records of one entity. Every write happens in one transaction with its checks and its
 * history entry: it is made whole or not at all.
 */
export interface EntityRecords {
  readonly entity: string;
  /** At once where the database answers at once (SQLite), else a promise. */
  get(id: string): MaybePromise<StoredRecord | undefined>;
  /** Inserts a record complete with its system fields and its state. */
  create(record: ApiRecord, context: WriteContext, check?: WriteCheck): Promise<WriteOutcome>;
  /**
   * Creates many records in one transaction, each exactly as `create` would (references, check,
   * row, history entry, followers), all or none: every record is tried, and when one is refused
   * (or `options.commit` is false) the whole transaction is rolled back. `rows` is called again
   * when the transaction has to run again (PostgreSQL retries serialization failures), so it must
   * give the same records each time; it is read synchronously, one record at a time.
   */
  createAll(rows: () => Iterable<BatchCreate>, options: BatchOptions): Promise<BatchOutcome>;
  /**
   * Sets some declared fields. Writes nothing when they already hold these values; otherwise
   * bumps the version and `updated_at`.
   */
  update(
    id: string,
    values: Record<string, Value>,
    context: ConditionalWrite,
    check?: WriteCheck,
  ): Promise<WriteOutcome>;
  /**
   * Takes a transition: sets some declared fields and the state, bumps the version and writes a
   * history entry naming the transition, its from-state and its to-state, even when nothing else
   * changes. `check` sees the current record (to check the from-state and the guard).
   */
  transition(
    id: string,
    transition: TransitionWrite,
    values: Record<string, Value>,
    context: ConditionalWrite,
    check?: WriteCheck,
  ): Promise<WriteOutcome>;
  /** Deletes a record; `check` sees it first, inside the transaction, and refuses by throwing. */
  delete(id: string, context: ConditionalWrite, check?: DeleteCheck): Promise<DeleteOutcome>;
  list(query: ListQuery): Promise<ListPage>;
  /** Counts and sums in the database, over the rows `query` covers (`summarySql`). */
  summary(query: SummaryQuery): Promise<Summary>;
  /** The record's history, oldest first; kept after the record is deleted. */
  history(id: string): Promise<HistoryEntry[]>;
  /** The ids of records a system transition may be due for, one page of them (see `DueQuery`). */
  dueIds(query: DueQuery): Promise<string[]>;
}

/** SQLite's durability choice: see `store/sqlite/sqlite-store.ts`. */
/** SQLite's `synchronous` setting as Ninepoint offers it (docs/reliability.md). */
export const SYNCHRONOUS_MODES = ['normal', 'full'] as const;
export type Synchronous = (typeof SYNCHRONOUS_MODES)[number];

/** Thrown for a database Ninepoint cannot use (yet): the message says what to do instead. */
export class UnsupportedDatabaseError extends Error {
  override name = 'UnsupportedDatabaseError';
}
