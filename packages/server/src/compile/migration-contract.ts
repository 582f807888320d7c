import type { Model } from '@ninepoint/spec';
import type { Value } from './record-types.ts';
import type { SqlColumn, SqlIndex, SqlSchema, SqlTable } from './sql-schema.ts';

/**
 * Migrations: the spec a database was last laid out for, diffed against the spec being applied,
 * as a plan of steps that each say what they change, whether that is safe, and how many rows
 * they concern. The planner is pure and dialect-neutral: it reads the database only through a
 * `MigrationProbe`, and each store renders the plan's `SchemaChange`s in its own SQL
 * (`store/sqlite/sqlite-migrate.ts`). docs/migrations.md describes the rules for users.
 *
 * The principle: nothing a user stored is ever dropped, and nothing stored is silently made
 * invalid. A step is safe when no existing row can lose or break anything; otherwise it needs
 * the explicit flag (`--allow-destructive`), or cannot be applied at all when even the flag
 * could not keep the data intact (a type change of a column holding values, uniqueness over
 * duplicates).
 */

/** The state a database was last migrated to, as its newest `_ninepoint_schema` row records it. */
export interface AppliedState {
  /** The model applied; null when the row's model cannot be read. */
  model: Model | null;
  /**
   * The tables as the database holds them: the model's tables, plus the columns and tables kept
   * for fields and entities removed since (their `field` and `entity` name what they held).
   */
  tables: SqlTable[];
}

/** A column as the database has it. */
export interface ProbedColumn {
  name: string;
  notNull: boolean;
}

/** One row's values by column name, as the API reads them: booleans as booleans, dates as ISO 8601 text. */
export type ProbedRow = Readonly<Record<string, Value>>;

/** What the planner needs to know about the data; each store answers it from its own database. */
export interface MigrationProbe {
  /**
   * The columns of a table in the database, in order, or null when there is no such table. A
   * column the database keeps under a shortened name (PostgreSQL's 63 bytes) is answered by the
   * name in `names` it stands for.
   */
  columns(table: string, names: readonly string[]): Promise<ProbedColumn[] | null>;
  rowCount(table: string): Promise<number>;
  /**
   * Every row of a table, with the values of these columns (converted by their logical type), in
   * any order. The planner reads one table at a time and asks nothing else while it iterates.
   */
  rows(table: string, columns: readonly SqlColumn[]): AsyncIterable<ProbedRow>;
}

export interface PlanInput {
  /** Null for a database nothing was applied to yet. */
  previous: AppliedState | null;
  model: Model;
  /** The compiled schema of `model`. */
  schema: SqlSchema;
  probe: MigrationProbe;
  /** What a `now` or `today` default fills existing rows with. Default: the current time. */
  now?: Date;
}

export type MigrationStepKind =
  /** A new entity: its table and indexes. */
  | 'create-table'
  /** A new field (or system column): a column, filled with the default in existing rows. */
  | 'add-column'
  /** A new required field without a default, on a table with rows: they would have no value. */
  | 'add-required-column'
  | 'add-index'
  /** An index the spec no longer asks for (a field no longer unique, a removed filter): no data is lost. */
  | 'drop-index'
  /** A field became optional: its column stops refusing empty values. */
  | 'relax-column'
  /** A field became required: its column refuses empty values from now on. */
  | 'require-column'
  /** A field removed from the spec: its column and values are kept, no longer served. */
  | 'keep-column'
  /** An entity removed from the spec: its table and rows are kept, no longer served. */
  | 'keep-table'
  /** A field back in the spec whose column was kept: its values are served again. */
  | 'restore-column'
  /** An entity back in the spec whose table was kept: its rows are served again. */
  | 'restore-table'
  /** A field's type changed (as stored, or what a reference points to). */
  | 'change-type'
  /** A field's value rules narrowed: a range, a length, a pattern, its choices, its format. */
  | 'tighten-field'
  /** A field became unique. */
  | 'make-unique'
  /** A new or changed validation rule (a condition or a limit), checked against the rows. */
  | 'check-rule';

/**
 * `safe`: applied on every start. `needs-flag`: could lose or invalidate data; applied only with
 * `allowDestructive` (`--allow-destructive`). `refused`: cannot be applied without losing data,
 * even with the flag; the step's advice says what to do instead.
 */
export type StepSafety = 'safe' | 'needs-flag' | 'refused';

/** One change to the database's layout; each store renders these in its own SQL. */
export type SchemaChange =
  /** The table with its indexes. */
  | { kind: 'create-table'; table: SqlTable }
  /**
   * A new column, as `column` says (its `notNull` already relaxed when rows would lack a value).
   * Existing rows get `fill` (null: no value); `fill` may differ from `column.default` (a `now`
   * default, a state machine's initial state).
   */
  | { kind: 'add-column'; table: string; column: SqlColumn; fill: Value }
  /** A column holding no value, dropped and added again with a new type; existing rows get `fill`. */
  | { kind: 'recreate-column'; table: string; column: SqlColumn; fill: Value }
  /** Rows whose column is empty get `value` (always followed by `set-not-null`). */
  | { kind: 'fill-nulls'; table: string; column: string; value: string | number | boolean }
  | { kind: 'set-not-null'; table: string; column: string }
  | { kind: 'drop-not-null'; table: string; column: string }
  /** The column's foreign key goes (the column and its values stay): a kept column must not block deletes. */
  | { kind: 'drop-reference'; table: string; column: string }
  | { kind: 'add-index'; table: string; index: SqlIndex }
  | { kind: 'drop-index'; table: string; index: string };

export interface MigrationStep {
  kind: MigrationStepKind;
  safety: StepSafety;
  entity: string;
  table: string;
  /** The field concerned, or null (a table, an index, a system column, an entity rule). */
  field: string | null;
  column: string | null;
  /**
   * The rows the step concerns: those that hold a value it would hide or recreate, lack a value,
   * break a rule, share a value, or get a default. 0 when it concerns none.
   */
  rows: number;
  /** One sentence saying what the step does and what it found. */
  summary: string;
  /** For a step that is not safe: what the flag would do, or how to make the change safely. */
  advice: string | null;
  /** What the step changes in the database: empty for a check that changes nothing. */
  changes: SchemaChange[];
}

export interface MigrationPlan {
  /** In order: each live table's steps in the schema's order, then the kept tables', then rules. */
  steps: MigrationStep[];
  /**
   * The tables as the database holds them once the plan is applied: what the store records
   * with the model, so the next start diffs against it.
   */
  tables: SqlTable[];
}

/** The flag that allows the steps marked `needs-flag`, as the CLI spells it. */
export const ALLOW_DESTRUCTIVE_FLAG = '--allow-destructive';

/** The steps that keep a plan from being applied: refused ones, and those needing the flag when it is not given. */
export function blockingSteps(plan: MigrationPlan, allowDestructive: boolean): MigrationStep[] {
  return plan.steps.filter((s) => s.safety === 'refused' || (s.safety === 'needs-flag' && !allowDestructive));
}

/** True when applying the plan changes the database's layout (a plan of checks only changes nothing). */
export function changesSchema(plan: MigrationPlan): boolean {
  return plan.steps.some((s) => s.changes.length > 0);
}
