import { ALLOW_DESTRUCTIVE_FLAG, type ProbedColumn, type SchemaChange } from '../migration-contract.ts';
import { plural } from '../migration-report.ts';
import type { SqlColumn } from '../sql-schema.ts';
import { makeStep, verb } from './step-words.ts';
import { liveIn } from './table-facts.ts';
import type { TablePlan } from './table-plan.ts';

/**
 * A column the database has and the spec does not: a removed field's, kept with its values and
 * no longer served (flagged when it holds any), or one kept earlier, which stops refusing rows.
 */
export function planKeptColumn(plan: TablePlan, existing: ProbedColumn): void {
  const { at, table, previous, previousModel } = plan;
  const before = previous?.columns.find((c) => c.name === existing.name) ?? null;
  const column: SqlColumn = before
    ? {
        ...before,
        primaryKey: false,
        notNull: false,
        references: before.references?.table ? null : before.references,
      }
    : unknownColumn(existing.name);
  plan.keptColumns.push(column);
  plan.stored.push(before ?? column);
  const changes: SchemaChange[] = [];
  if (existing.notNull) changes.push({ kind: 'drop-not-null', table: table.name, column: existing.name });
  if (before?.references?.table) changes.push({ kind: 'drop-reference', table: table.name, column: existing.name });
  const keptEarlier =
    before !== null && previousModel !== null && !liveIn(previousModel, previous?.entity ?? '', before);
  const where = { ...at, field: before?.field ?? null, column: existing.name };
  if (keptEarlier) {
    if (changes.length > 0) {
      const step = makeStep(
        where,
        'keep-column',
        'safe',
        0,
        `Kept column ${table.name}.${existing.name} no longer blocks new rows.`,
      );
      step.changes.push(...changes);
      plan.later(() => step);
    }
    return;
  }
  const values = plan.scan.count((row) => row[existing.name] != null);
  plan.later(() => {
    const what = keptColumnLabel(before, plan.entity.name, table.name, existing.name, plan.machine !== undefined);
    const step = makeStep(
      where,
      'keep-column',
      values.n > 0 ? 'needs-flag' : 'safe',
      values.n,
      values.n > 0
        ? `${what}; ${plural(values.n, 'row')} ${verb(values.n, 'holds', 'hold')} a value in ${table.name}.${existing.name}.`
        : `${what}; no row holds a value. Column ${table.name}.${existing.name} is kept, no longer served.`,
    );
    step.changes.push(...changes);
    if (values.n > 0) {
      step.advice =
        `With ${ALLOW_DESTRUCTIVE_FLAG} the column and its values are kept in the database (never dropped) but no ` +
        'longer served; putting the field back in the spec serves them again.';
    }
    return step;
  });
}

/** A column the database has that no recorded layout describes (a database laid out by an older version). */
function unknownColumn(name: string): SqlColumn {
  return { name, field: null, type: 'text', primaryKey: false, notNull: false, default: null, references: null };
}

function keptColumnLabel(
  before: SqlColumn | null,
  entity: string,
  table: string,
  column: string,
  hasMachine: boolean,
): string {
  if (before?.field) return `Field ${entity}.${before.field} was removed`;
  if (column === 'state' && !hasMachine) return `${entity} no longer has states`;
  return `Column ${table}.${column} is not in the spec`;
}
