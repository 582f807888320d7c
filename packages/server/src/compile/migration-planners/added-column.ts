import { emptyColumn } from './empty-column.ts';
import { makeStep } from './step-words.ts';
import type { ColumnPlan, TablePlan } from './table-plan.ts';

/** A new field or system column: added, its default filling existing rows (or flagged when required without one). */
export function planAddedColumn(plan: TablePlan, c: ColumnPlan): void {
  const { entity, table, rows } = plan;
  const { column, field, fill } = c;
  if (fill !== null) plan.fills.set(column.name, fill);
  plan.later(() => {
    const empty = emptyColumn(column, fill, rows, c.unique);
    plan.layout[c.index] = empty.column;
    const what = field ? `the new field ${entity.name}.${field.name}` : `the system column ${column.name}`;
    const kind = empty.safety === 'needs-flag' ? 'add-required-column' : 'add-column';
    const step = makeStep(
      c.where,
      kind,
      empty.safety,
      empty.rows,
      `Add column ${table.name}.${column.name} for ${what}.`,
    );
    step.summary += empty.note;
    step.advice = empty.advice;
    step.changes.push({ kind: 'add-column', table: table.name, column: empty.column, fill: empty.fill });
    return step;
  });
}
