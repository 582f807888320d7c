import { plural } from '../migration-report.ts';
import { makeStep, verb } from './step-words.ts';
import type { TablePlan } from './table-plan.ts';

/** An entity removed earlier, its table kept, and now back: its rows are served again. */
export function planRestoredTable(plan: TablePlan): void {
  const { at, entity, table, rows } = plan;
  plan.later(() =>
    makeStep(
      at,
      'restore-table',
      'safe',
      rows,
      `Entity ${entity.name} is back: the ${plural(rows, 'row')} kept in table ${table.name} since it was removed ${verb(rows, 'is', 'are')} served again.`,
    ),
  );
}
