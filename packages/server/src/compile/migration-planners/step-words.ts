import { describeType, type Field, type FieldType } from '@ninepoint/spec';
import {
  ALLOW_DESTRUCTIVE_FLAG,
  type MigrationStep,
  type MigrationStepKind,
  type StepSafety,
} from '../migration-contract.ts';
import type { Value } from '../record-types.ts';
import type { SqlColumn } from '../sql-schema.ts';

/** Where a step applies: its entity and table, and the field and column when it is about one. */
export interface StepPlace {
  entity: string;
  table: string;
  field?: string | null;
  column?: string | null;
}

/** A step with no changes and no advice yet: its planner adds them. */
export function makeStep(
  where: StepPlace,
  kind: MigrationStepKind,
  safety: StepSafety,
  rows: number,
  summary: string,
): MigrationStep {
  return {
    kind,
    safety,
    entity: where.entity,
    table: where.table,
    field: where.field ?? null,
    column: where.column ?? null,
    rows,
    summary,
    advice: null,
    changes: [],
  };
}

export function brokenRowsAdvice(): string {
  return (
    `Correct those rows first (with the current spec), or pass ${ALLOW_DESTRUCTIVE_FLAG} to keep them as they are: ` +
    'they stay readable, and values written from now on must satisfy it.'
  );
}

export function typeLabel(column: SqlColumn, field: Field | null): string {
  return field ? kindLabel(field.type) : column.type;
}

export function kindLabel(type: FieldType): string {
  return type.kind === 'reference' ? `reference to ${type.entity}` : describeType(type);
}

export function showValue(value: Value): string {
  return typeof value === 'string' ? `"${value}"` : String(value);
}

export function verb(n: number, singular: string, pluralForm: string): string {
  return n === 1 ? singular : pluralForm;
}
