import type { Entity, Field, Model, StateMachine } from '@ninepoint/spec';
import type { MigrationStep, ProbedColumn, ProbedRow } from '../migration-contract.ts';
import type { ApiRecord, Value } from '../record-types.ts';
import type { SqlColumn, SqlTable } from '../sql-schema.ts';
import { fillOf } from './empty-column.ts';
import type { PlanContext } from './plan-context.ts';
import { Scan } from './row-scan.ts';
import type { StepPlace } from './step-words.ts';
import { findEntity, isUnique, liveIn } from './table-facts.ts';

/** A table's steps, and the layout the database has once they are applied. */
export interface PlannedTable {
  steps: MigrationStep[];
  layout: SqlTable;
}

/** One of the spec's columns of a table the database has, with what the planners ask of it. */
export interface ColumnPlan {
  /** Its position in the table, and in `TablePlan.layout`. */
  index: number;
  column: SqlColumn;
  field: Field | null;
  where: StepPlace;
  /** What existing rows get in it where they have no value: a default, or the initial state. */
  fill: Value;
  unique: boolean;
  /** The column as the database has it, or null when it is new. */
  existing: ProbedColumn | null;
  /** The column as the last migration laid it out, if it did. */
  before: SqlColumn | null;
  beforeField: Field | null;
  /** A column kept when its field was removed, and the field is back. */
  kept: boolean;
}

/**
 * The planning of one table the spec and the database both have, which every planner adds to:
 * the table's facts, one scan of its rows, the steps to make once the scan is done (they read its
 * counts) and the layout the plan leaves.
 */
export class TablePlan {
  readonly context: PlanContext;
  readonly table: SqlTable;
  readonly entity: Entity;
  readonly at: { entity: string; table: string };
  readonly previous: SqlTable | null;
  readonly previousModel: Model | null;
  readonly previousEntity: Entity | null;
  /** The entity was removed earlier and its table kept: now it is back. */
  readonly restored: boolean;
  readonly rows: number;
  readonly machine: StateMachine | undefined;
  readonly scan = new Scan();
  /** The spec's columns as the plan leaves them, in the table's order; planners adjust theirs. */
  readonly layout: SqlColumn[];
  /** Columns the database has and the spec does not, laid out after the spec's. */
  readonly keptColumns: SqlColumn[] = [];
  /** What an empty cell of a column reads as once the plan is applied: its fill, for checking rules. */
  readonly fills = new Map<string, Value>();
  /** Indexes a planner adds with its own step (a unique index with its check). */
  readonly handledIndexes = new Set<string>();
  /** The columns as they are stored now, to read them with their stored types. */
  readonly stored: SqlColumn[] = [];
  readonly #have: ReadonlyMap<string, ProbedColumn>;
  /** Steps whose outcome depends on the scan, in order; made once it is done. */
  readonly #later: (() => MigrationStep | null)[] = [];

  static async open(
    context: PlanContext,
    table: SqlTable,
    entity: Entity,
    actual: readonly ProbedColumn[],
  ): Promise<TablePlan> {
    return new TablePlan(context, table, entity, actual, await context.probe.rowCount(table.name));
  }

  private constructor(
    context: PlanContext,
    table: SqlTable,
    entity: Entity,
    actual: readonly ProbedColumn[],
    rows: number,
  ) {
    this.context = context;
    this.table = table;
    this.entity = entity;
    this.at = { entity: entity.name, table: table.name };
    this.previous = context.previousTables.get(table.name) ?? null;
    this.previousModel = context.previousModel;
    this.previousEntity =
      this.previous && this.previousModel ? findEntity(this.previousModel, this.previous.entity) : null;
    this.restored = this.previous !== null && this.previousModel !== null && this.previousEntity === null;
    this.rows = rows;
    this.machine = context.model.machines.find((m) => m.entity === entity.name);
    this.layout = table.columns.map((c) => ({ ...c }));
    this.#have = new Map(actual.map((c) => [c.name, c]));
  }

  /** Adds a step, made once the scan is done; it may answer null for no step after all. */
  later(make: () => MigrationStep | null): void {
    this.#later.push(make);
  }

  /** The facts about the spec's column at `index` that its planners need. */
  column(index: number, column: SqlColumn): ColumnPlan {
    const { entity, previous, previousEntity, previousModel } = this;
    const field = column.field === null ? null : (entity.fields.find((f) => f.name === column.field) ?? null);
    const before = previous?.columns.find((c) => c.name === column.name) ?? null;
    const beforeField =
      before?.field && previousEntity ? (previousEntity.fields.find((f) => f.name === before.field) ?? null) : null;
    return {
      index,
      column,
      field,
      where: { ...this.at, field: column.field, column: column.name },
      fill: fillOf(this.context, column, field, this.machine?.initial ?? null),
      unique: isUnique(this.table, column.name),
      existing: this.#have.get(column.name) ?? null,
      before,
      beforeField,
      kept:
        before !== null &&
        previousModel !== null &&
        !this.restored &&
        !liveIn(previousModel, previous?.entity ?? '', before),
    };
  }

  /** Reads the rows once for every check planned, then makes the steps in the order they were added. */
  async finish(): Promise<PlannedTable> {
    const { table } = this;
    if (this.rows > 0) {
      const toRecord = (row: ProbedRow): ApiRecord => {
        const record: ApiRecord = {};
        for (const column of table.columns)
          record[column.name] = row[column.name] ?? this.fills.get(column.name) ?? null;
        return record;
      };
      await this.scan.run(this.context.probe, table.name, this.stored, toRecord);
    }
    const steps = this.#later.map((make) => make()).filter((s): s is MigrationStep => s !== null);
    return { steps, layout: { ...table, columns: [...this.layout, ...this.keptColumns] } };
  }
}
