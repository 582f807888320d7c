import { ALLOW_DESTRUCTIVE_FLAG } from '../migration-contract.ts';
import { makeStep } from './step-words.ts';
import { uniqueIndex } from './table-facts.ts';
import type { ColumnPlan, TablePlan } from './table-plan.ts';

/**
 * A column made unique on a table with rows: its unique index is added when no two rows share a
 * value, and refused even with the flag otherwise.
 */
export function planUniqueColumn(plan: TablePlan, c: ColumnPlan): void {
  const { entity, table } = plan;
  const { column, field, where } = c;
  const index = uniqueIndex(table, column.name);
  if (index) plan.handledIndexes.add(index.name);
  const seen = new Map<string, number>();
  plan.scan.visit((row) => {
    const value = row[column.name];
    if (value == null) return;
    const key = `${typeof value}:${String(value)}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  });
  plan.later(() => {
    let shared = 0;
    for (const n of seen.values()) if (n > 1) shared += n;
    const name = field ? `${entity.name}.${field.name}` : `Column ${table.name}.${column.name}`;
    if (shared === 0) {
      const step = makeStep(where, 'make-unique', 'safe', 0, `${name} is now unique; no two rows share a value.`);
      if (index) step.changes.push({ kind: 'add-index', table: table.name, index });
      return step;
    }
    const step = makeStep(
      where,
      'make-unique',
      'refused',
      shared,
      `${name} is now unique, but ${shared} rows share values with other rows.`,
    );
    step.advice = `Uniqueness cannot be enforced over duplicates, even with ${ALLOW_DESTRUCTIVE_FLAG}: make those values distinct first (with the current spec), then apply this one.`;
    return step;
  });
}
