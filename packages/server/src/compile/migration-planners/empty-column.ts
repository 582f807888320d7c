import type { Field } from '@ninepoint/spec';
import { ALLOW_DESTRUCTIVE_FLAG, type StepSafety } from '../migration-contract.ts';
import { plural } from '../migration-report.ts';
import type { Value } from '../record-types.ts';
import { type SqlColumn, STATE_SINCE_COLUMN } from '../sql-schema.ts';
import type { PlanContext } from './plan-context.ts';
import { showValue, verb } from './step-words.ts';

/** How a column that is empty in every existing row (new, or recreated) can be laid out. */
export function emptyColumn(
  column: SqlColumn,
  fill: Value,
  rows: number,
  unique: boolean,
): { column: SqlColumn; fill: Value; safety: StepSafety; rows: number; note: string; advice: string | null } {
  if (rows === 0) return { column, fill: null, safety: 'safe', rows: 0, note: '', advice: null };
  if (fill !== null) {
    if (unique && rows > 1) {
      return {
        column,
        fill,
        safety: 'refused',
        rows,
        note: ` It is unique, and its default ${showValue(fill)} would give the ${plural(rows, 'existing row')} the same value.`,
        advice:
          'Add it as optional without a default first, give the rows distinct values, then make it required or give it a default.',
      };
    }
    return {
      column,
      fill,
      safety: 'safe',
      rows,
      note: ` The ${plural(rows, 'existing row')} ${verb(rows, 'gets', 'get')} ${showValue(fill)}.`,
      advice: null,
    };
  }
  if (!column.notNull) return { column, fill: null, safety: 'safe', rows: 0, note: '', advice: null };
  return {
    column: { ...column, notNull: false },
    fill: null,
    safety: 'needs-flag',
    rows,
    note: ` It is required and has no default, so the ${plural(rows, 'existing row')} would have no value.`,
    advice:
      `With ${ALLOW_DESTRUCTIVE_FLAG} it is added accepting empty values, and those rows stay empty until they are ` +
      'edited, when a value is required. Or give the field a default, or add it as optional first.',
  };
}

/** What existing rows get in a column they have no value in: a default, or the state machine's initial state. */
export function fillOf(
  context: PlanContext,
  column: SqlColumn,
  field: Field | null,
  initialState: string | null,
): Value {
  if (field === null) {
    if (column.name === 'state' && initialState !== null) return initialState;
    // When existing records entered their states is unknown: their time counts from the upgrade.
    if (column.name === STATE_SINCE_COLUMN) return context.now.toISOString();
    return column.default;
  }
  const value = field.default;
  if (value === null) return null;
  if ('literal' in value) return value.literal;
  switch (value.dynamic) {
    case 'now':
      return context.now.toISOString();
    case 'today':
      return context.now.toISOString().slice(0, 10);
    case 'me':
      return null;
  }
}
