import type { Entity, FieldType } from './model.ts';
import { USER_ENTITY } from './names.ts';
import { type Cell, cellPart } from './parse-tables.ts';
import type { Scope } from './scope.ts';

/** The type of `created_by`, the system field naming a record's creator. */
const CREATOR: FieldType = { kind: 'reference', entity: USER_ENTITY };

/**
 * Reads a chain of fields through references, `doctor.account`: every step but the last must
 * refer to another entity, whose field the next step names (`created_by` is allowed at every
 * step). Reports the first wrong step and returns null; otherwise the field names and the type of
 * the last one.
 */
export function readReferencePath(
  cell: Cell,
  entity: Entity,
  scope: Scope,
  what: string,
  extra: readonly string[] = [],
): { fields: string[]; type: FieldType | null } | null {
  const steps = cell.text.split('.');
  let current: Entity = entity;
  let offset = 0;
  let type: FieldType | null = null;
  const fields: string[] = [];
  for (const [i, raw] of steps.entries()) {
    const name = raw.trim();
    const part = cellPart(cell, offset + raw.indexOf(name), name.length);
    offset += raw.length + 1;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      scope.bag.report('invalid-reference-path', part.span, `${what}: "${cell.text}" is not a chain of field names.`, {
        hint: 'Write field names joined by dots, each through a reference, e.g. doctor.account.',
      });
      return null;
    }
    if (type !== null) {
      // The previous step must have led to an entity whose fields this step names.
      if (type.kind !== 'reference' || type.entity === USER_ENTITY) {
        scope.bag.report(
          'invalid-reference-path',
          part.span,
          `${what}: "${fields.join('.')}" is not a reference to an entity, so ".${name}" cannot follow it.`,
          { hint: 'Only a field referring to another entity of point 3 may be followed by another field.' },
        );
        return null;
      }
      const next = scope.entities.get(type.entity);
      if (!next) return null;
      current = next;
    }
    const allowed = i === 0 ? ['created_by', ...extra] : ['created_by'];
    if (!scope.field(current, part, what, allowed)) return null;
    type = name === 'created_by' ? CREATOR : (current.fields.find((f) => f.name === name)?.type ?? null);
    fields.push(name);
  }
  return { fields, type };
}
