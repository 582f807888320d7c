import { ALLOW_DESTRUCTIVE_FLAG } from '../migration-contract.ts';
import { plural } from '../migration-report.ts';
import type { SqlColumn } from '../sql-schema.ts';
import { makeStep, showValue, verb } from './step-words.ts';
import type { ColumnPlan, TablePlan } from './table-plan.ts';

/**
 * A column that now refuses empty values: the rows without one get the fill, or stay empty with
 * the flag (the column then keeps accepting empty values until they are all set).
 */
export function planRequiredColumn(plan: TablePlan, c: ColumnPlan): void {
  const { entity, table, layout } = plan;
  const { column, field, fill, before, where } = c;
  const nulls = plan.scan.count((row) => row[column.name] == null);
  if (fill !== null) plan.fills.set(column.name, fill);
  // Required already, and left accepting empty values by an earlier migration with the flag: the
  // rows it allowed to stay empty are not asked about again; once none is left, NOT NULL is added.
  const allowedEarlier = before !== null && !before.notNull && c.beforeField?.required === true && !c.kept;
  plan.later(() => {
    if (allowedEarlier && nulls.n > 0 && fill === null) {
      layout[c.index] = { ...(layout[c.index] as SqlColumn), notNull: false };
      return null;
    }
    const name = field ? `${entity.name}.${field.name}` : `Column ${table.name}.${column.name}`;
    const becomes = field ? `${name} is now required` : `${name} is now always set`;
    if (nulls.n === 0) {
      const said = allowedEarlier
        ? `Every row has a value for ${name} now, so column ${table.name}.${column.name} refuses empty values again.`
        : `${becomes}; every row has a value.`;
      const step = makeStep(where, 'require-column', 'safe', 0, said);
      step.changes.push({ kind: 'set-not-null', table: table.name, column: column.name });
      return step;
    }
    if (fill !== null) {
      const step = makeStep(
        where,
        'require-column',
        'safe',
        nulls.n,
        `${becomes}; the ${plural(nulls.n, 'row')} without a value ${verb(nulls.n, 'gets', 'get')} ${showValue(fill)}.`,
      );
      step.changes.push(
        { kind: 'fill-nulls', table: table.name, column: column.name, value: fill },
        { kind: 'set-not-null', table: table.name, column: column.name },
      );
      return step;
    }
    layout[c.index] = { ...(layout[c.index] as SqlColumn), notNull: false };
    const step = makeStep(
      where,
      'require-column',
      'needs-flag',
      nulls.n,
      `${becomes}, but ${plural(nulls.n, 'row')} ${verb(nulls.n, 'has', 'have')} no value for it.`,
    );
    step.advice =
      `With ${ALLOW_DESTRUCTIVE_FLAG} those rows stay empty (the column keeps accepting empty values) until they are ` +
      'edited, when a value is required. Or give the field a default, which fills them.';
    return step;
  });
}

/** A column that now accepts empty values (a field made optional): always safe. */
export function planRelaxedColumn(plan: TablePlan, c: ColumnPlan): void {
  const { entity, table } = plan;
  const { column, field } = c;
  const step = makeStep(
    c.where,
    'relax-column',
    'safe',
    0,
    field
      ? `${entity.name}.${field.name} is now optional: column ${table.name}.${column.name} accepts empty values.`
      : `Column ${table.name}.${column.name} accepts empty values.`,
  );
  step.changes.push({ kind: 'drop-not-null', table: table.name, column: column.name });
  plan.later(() => step);
}
