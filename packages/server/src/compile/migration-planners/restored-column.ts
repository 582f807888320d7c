import { plural } from '../migration-report.ts';
import { brokenRowsAdvice, makeStep, verb } from './step-words.ts';
import type { ColumnPlan, TablePlan } from './table-plan.ts';

/** A field removed earlier, its column kept, and now back: its values are served again, flagged if they break its rules. */
export function planRestoredColumn(plan: TablePlan, c: ColumnPlan): void {
  const { entity, table, scan } = plan;
  const { column, field, where } = c;
  const values = scan.count((row) => row[column.name] != null);
  const check = field ? plan.context.validator(field) : null;
  const invalid = scan.count((row) => {
    const value = row[column.name];
    return check !== null && value != null && !check(value);
  });
  plan.later(() => {
    const name = field ? `Field ${entity.name}.${field.name}` : `Column ${table.name}.${column.name}`;
    const back = `${name} is back: the ${plural(values.n, 'value')} kept in ${table.name}.${column.name} since it was removed ${verb(values.n, 'is', 'are')} served again`;
    if (invalid.n === 0) return makeStep(where, 'restore-column', 'safe', values.n, `${back}.`);
    const step = makeStep(
      where,
      'restore-column',
      'needs-flag',
      invalid.n,
      `${back}, but ${invalid.n} of them ${verb(invalid.n, 'breaks', 'break')} the field's rules.`,
    );
    step.advice = brokenRowsAdvice();
    return step;
  });
}
