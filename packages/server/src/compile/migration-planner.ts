import type { MigrationPlan, MigrationStep, PlanInput } from './migration-contract.ts';
import { planAddedColumn } from './migration-planners/added-column.ts';
import { planChangedRules } from './migration-planners/changed-rules.ts';
import { planAddedIndexes, planDroppedIndexes } from './migration-planners/indexes.ts';
import { planKeptColumn } from './migration-planners/kept-column.ts';
import { planKeptTable } from './migration-planners/kept-table.ts';
import { planNarrowedField } from './migration-planners/narrowed-field.ts';
import { planNewTable } from './migration-planners/new-table.ts';
import { PlanContext } from './migration-planners/plan-context.ts';
import { planRelaxedColumn, planRequiredColumn } from './migration-planners/required-column.ts';
import { planRestoredColumn } from './migration-planners/restored-column.ts';
import { planRestoredTable } from './migration-planners/restored-table.ts';
import { findEntity, isUnique } from './migration-planners/table-facts.ts';
import { type ColumnPlan, type PlannedTable, TablePlan } from './migration-planners/table-plan.ts';
import { planTypeChange, typeChanged } from './migration-planners/type-change.ts';
import { planUniqueColumn } from './migration-planners/unique-column.ts';
import type { SqlColumn, SqlTable } from './sql-schema.ts';

/**
 * Diffs the spec against what the database was last migrated to, reading the rows each step
 * concerns through the probe. It changes nothing. Each kind of change has its planner in
 * `migration-planners/`; this file only decides which apply.
 *
 * @example
 * const plan = await planMigration({ previous, model, schema: compileSqlSchema(model), probe });
 * console.log(formatMigrationPlan(plan, { allowDestructive: false, mode: 'plan' }));
 */
export async function planMigration(input: PlanInput): Promise<MigrationPlan> {
  const context = new PlanContext(input);
  const steps: MigrationStep[] = [];
  const tables: SqlTable[] = [];
  for (const table of input.schema.tables) {
    const planned = await planLiveTable(context, table);
    steps.push(...planned.steps);
    tables.push(planned.layout);
  }
  const live = new Set(input.schema.tables.map((t) => t.name));
  for (const previous of input.previous?.tables ?? []) {
    if (live.has(previous.name)) continue;
    const planned = await planKeptTable(context, previous);
    if (!planned) continue;
    steps.push(...planned.steps);
    tables.push(planned.layout);
  }
  return { steps, tables };
}

/** A table of the spec's: created when the database lacks it, else each of its changes planned. */
async function planLiveTable(context: PlanContext, table: SqlTable): Promise<PlannedTable> {
  const entity = findEntity(context.model, table.entity);
  if (!entity) throw new Error(`The schema's table ${table.name} belongs to ${table.entity}, which the model lacks.`);
  const actual = await context.probe.columns(
    table.name,
    table.columns.map((c) => c.name),
  );
  if (actual === null) return planNewTable(entity, table);
  const plan = await TablePlan.open(context, table, entity, actual);
  if (plan.restored) planRestoredTable(plan);
  for (const [index, column] of table.columns.entries()) {
    const planned = plan.column(index, column);
    if (planned.existing === null) planAddedColumn(plan, planned);
    else planStoredColumn(plan, planned, planned.existing.notNull);
  }
  // Columns the database has and the spec does not: removed fields (kept, never dropped), or kept earlier.
  for (const existing of actual) {
    if (!table.columns.some((c) => c.name === existing.name)) planKeptColumn(plan, existing);
  }
  if (plan.previous) {
    planAddedIndexes(plan, plan.previous);
    planDroppedIndexes(plan, plan.previous);
  }
  if (plan.previousModel && plan.rows > 0) planChangedRules(plan, plan.previousModel);
  return plan.finish();
}

/** A column of the spec's that the database has: the ways it changed since it was laid out. */
function planStoredColumn(plan: TablePlan, c: ColumnPlan, storedNotNull: boolean): void {
  const { column, field, before, beforeField } = c;
  plan.stored.push(before ?? column);
  if (before && !before.references?.table && column.references?.table) {
    // A kept column lost its foreign key; the runtime checks references on every write, so it is not re-added.
    plan.layout[c.index] = { ...(plan.layout[c.index] as SqlColumn), references: null };
  }
  if (before && typeChanged(before, column, beforeField, field)) {
    planTypeChange(plan, c, before);
    return;
  }
  if (c.kept) planRestoredColumn(plan, c);
  if (column.notNull && !storedNotNull) planRequiredColumn(plan, c);
  else if (!column.notNull && storedNotNull) planRelaxedColumn(plan, c);
  if (field && beforeField && plan.rows > 0) planNarrowedField(plan, c, field, beforeField);
  const uniqueBefore = plan.previous ? isUnique(plan.previous, column.name) : c.unique;
  if (c.unique && !uniqueBefore && plan.rows > 0) planUniqueColumn(plan, c);
}
