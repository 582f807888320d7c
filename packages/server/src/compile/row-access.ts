import { type Entity, type Model, USER_ENTITY } from '@ninepoint/spec';
import type { ApiRecord } from './record-types.ts';
import { tableName } from './sql-schema.ts';

/** A step of a chain after its first column: the entity (and table) it reads, and the column that leads on. */
export interface PathStep {
  readonly entity: string;
  readonly table: string;
  readonly column: string;
}

/**
 * A chain of columns through references that ends at a user's id: `borrower` alone, or `doctor`
 * then Doctor's `account` (`doctor.account`).
 */
export interface RowPath {
  /** The column of the entity's own table the chain starts at. */
  readonly column: string;
  readonly through: readonly PathStep[];
}

/**
 * What one role row grants an actor for one operation: every record or the records one of
 * `paths` leads from to the actor (`own`), in any state or only in `states` (`while`).
 */
export interface Grant {
  readonly paths: readonly RowPath[] | null;
  readonly states: readonly string[] | null;
}

/** A grant of every record in every state. */
export const EVERY_RECORD: Grant = Object.freeze({ paths: null, states: null });

/** The rows an actor may reach: none, every one, or those some grant covers. */
export type RowScope = { userId: string; grants: readonly Grant[] };

/** Resolves a chain of field names (checked by the spec package) into columns and tables. */
export function rowPath(model: Pick<Model, 'entities'>, entity: Entity, fields: readonly string[]): RowPath {
  const [first, ...rest] = fields;
  if (first === undefined) throw new Error(`An empty chain on ${entity.name}.`);
  const through: PathStep[] = [];
  let current = entity;
  let name = first;
  for (const next of rest) {
    const field = current.fields.find((f) => f.name === name);
    if (field?.type.kind !== 'reference' || field.type.entity === USER_ENTITY) {
      throw new Error(`${current.name}.${name} does not refer to an entity, so .${next} cannot follow it.`);
    }
    const target = model.entities.find((e) => e.name === (field.type as { entity: string }).entity);
    if (!target) throw new Error(`${current.name}.${name} refers to an unknown entity.`);
    through.push({ entity: target.name, table: tableName(target.name), column: next });
    current = target;
    name = next;
  }
  return { column: first, through };
}

/** Reads a record of an entity by id, inside a write's transaction or before a read (see `settle`). */
export type RowLoader = (entity: string, id: string) => ApiRecord | undefined;

/** Whether a chain leads from the record to the user. */
function leadsTo(path: RowPath, record: ApiRecord, userId: string, load: RowLoader): boolean {
  let value = record[path.column] ?? null;
  for (const step of path.through) {
    if (value === null) return false;
    value = load(step.entity, String(value))?.[step.column] ?? null;
  }
  return value === userId;
}

/** Whether some grant covers the record for the user (null: a signed-out visitor, who owns nothing). */
export function covers(grants: readonly Grant[], record: ApiRecord, userId: string | null, load: RowLoader): boolean {
  return grants.some(
    (grant) =>
      (grant.states === null || grant.states.includes(String(record.state ?? ''))) &&
      (grant.paths === null || (userId !== null && grant.paths.some((p) => leadsTo(p, record, userId, load)))),
  );
}

/** Whether a grant list reaches every record: then no row needs looking at. */
export function coversEveryRecord(grants: readonly Grant[]): boolean {
  return grants.some((g) => g.paths === null && g.states === null);
}
