import type { SqlTable } from '../sql-schema.ts';
import { makeStep } from './step-words.ts';
import type { TablePlan } from './table-plan.ts';

/** Indexes the spec asks for that the last layout lacked, but for those another planner adds. */
export function planAddedIndexes(plan: TablePlan, previous: SqlTable): void {
  const { at, table } = plan;
  const before = new Set(previous.indexes.map((i) => i.name));
  for (const index of table.indexes) {
    if (before.has(index.name) || plan.handledIndexes.has(index.name)) continue;
    const step = makeStep(
      at,
      'add-index',
      'safe',
      0,
      `Add ${index.unique ? 'unique ' : ''}index ${index.name} on ${table.name} (${index.columns.join(', ')}).`,
    );
    step.changes.push({ kind: 'add-index', table: table.name, index });
    plan.later(() => step);
  }
}

/** Indexes the spec no longer asks for: dropped, as an index holds no data. */
export function planDroppedIndexes(plan: TablePlan, previous: SqlTable): void {
  const { at, table } = plan;
  const after = new Set(table.indexes.map((i) => i.name));
  for (const index of previous.indexes) {
    if (after.has(index.name)) continue;
    const step = makeStep(
      at,
      'drop-index',
      'safe',
      0,
      `Drop index ${index.name}: the spec no longer needs it (an index holds no data).`,
    );
    step.changes.push({ kind: 'drop-index', table: table.name, index: index.name });
    plan.later(() => step);
  }
}
