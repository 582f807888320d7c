import type { Entity } from '@ninepoint/spec';
import type { SqlTable } from '../sql-schema.ts';
import { makeStep } from './step-words.ts';
import type { PlannedTable } from './table-plan.ts';

/** A new entity: its table, created whole. */
export function planNewTable(entity: Entity, table: SqlTable): PlannedTable {
  const at = { entity: entity.name, table: table.name };
  const step = makeStep(at, 'create-table', 'safe', 0, `Create table ${table.name} for the new entity ${entity.name}.`);
  step.changes.push({ kind: 'create-table', table });
  return { steps: [step], layout: table };
}
