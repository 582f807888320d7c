import type { Entity, Model } from '@ninepoint/spec';
import type { SqlColumn, SqlIndex, SqlTable } from '../sql-schema.ts';

/** True when the column held one of the entity's live fields (or its state) in that model. */
export function liveIn(model: Model, entity: string, column: SqlColumn): boolean {
  const found = findEntity(model, entity);
  if (!found) return false;
  if (column.field !== null) return found.fields.some((f) => f.name === column.field);
  if (column.name === 'state') return model.machines.some((m) => m.entity === entity);
  return true;
}

export function findEntity(model: Model, name: string): Entity | null {
  return model.entities.find((e) => e.name === name) ?? null;
}

export function isUnique(table: SqlTable, column: string): boolean {
  return uniqueIndex(table, column) !== undefined;
}

export function uniqueIndex(table: SqlTable, column: string): SqlIndex | undefined {
  return table.indexes.find((i) => i.unique && i.columns.length === 1 && i.columns[0] === column);
}
