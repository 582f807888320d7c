import type { Field, FieldType } from '@ninepoint/spec';
import { ALLOW_DESTRUCTIVE_FLAG } from '../migration-contract.ts';
import { plural } from '../migration-report.ts';
import type { SqlColumn } from '../sql-schema.ts';
import { emptyColumn } from './empty-column.ts';
import { makeStep, typeLabel, verb } from './step-words.ts';
import type { ColumnPlan, TablePlan } from './table-plan.ts';

/** True when the stored values could not be read as the new type: another storage type, or another referenced entity. */
export function typeChanged(
  before: SqlColumn,
  after: SqlColumn,
  beforeField: Field | null,
  afterField: Field | null,
): boolean {
  if (before.type !== after.type) return true;
  if (!beforeField || !afterField) return false;
  const target = (t: FieldType) => (t.kind === 'reference' ? t.entity : null);
  return target(beforeField.type) !== target(afterField.type);
}

/**
 * A column whose type changed (`typeChanged`): recreated when no row holds a value, else refused
 * even with the flag, as the values could not all be kept.
 */
export function planTypeChange(plan: TablePlan, c: ColumnPlan, before: SqlColumn): void {
  const { entity, table, rows, layout } = plan;
  const { column, field, fill, beforeField, where } = c;
  const values = plan.scan.count((row) => row[column.name] != null);
  if (fill !== null) plan.fills.set(column.name, fill);
  plan.later(() => {
    const change = `${field ? `${entity.name}.${field.name}` : `Column ${table.name}.${column.name}`} changes type from ${typeLabel(before, beforeField)} to ${typeLabel(column, field)}`;
    if (values.n > 0) {
      const step = makeStep(
        where,
        'change-type',
        'refused',
        values.n,
        `${change}; ${plural(values.n, 'row')} ${verb(values.n, 'holds', 'hold')} a value.`,
      );
      step.advice =
        `A type change is refused even with ${ALLOW_DESTRUCTIVE_FLAG}, as the values could not all be kept. To change it ` +
        'safely: add a new field of the new type, copy the values into it (through the API), then remove the old field.';
      layout[c.index] = { ...before, references: null };
      return step;
    }
    const empty = emptyColumn(column, fill, rows, c.unique);
    layout[c.index] = { ...empty.column, references: (layout[c.index] as SqlColumn).references };
    const step = makeStep(
      where,
      'change-type',
      empty.safety,
      empty.rows,
      `${change}; no row holds a value, so the column is recreated.`,
    );
    step.summary += empty.note;
    step.advice = empty.advice;
    step.changes.push({
      kind: 'recreate-column',
      table: table.name,
      column: layout[c.index] as SqlColumn,
      fill: empty.fill,
    });
    return step;
  });
}
