import type { Entity, SpecLine, StateMachine } from '@ninepoint/spec';
import { createAjv } from '../compile/ajv.ts';
import type { EntitySchemas } from '../compile/json-schemas.ts';
import type { ProblemCatalogue } from '../compile/problems.ts';
import type { WriteEffects } from '../compile/record-types.ts';
import type { WriteCheck } from '../store/store.ts';
import { FieldErrors } from './field-errors.ts';

/**
 * What a transition sets (point 4's `sets`) meets its fields' own rules, as a payload would:
 * a required field left empty, a number out of range, text too long, a choice not offered.
 * The entity's update schema decides (every field optional, so only those set are checked);
 * a value that breaks it refuses the transition with VALIDATION_FAILED at that field, and
 * nothing is written. Null for an entity whose transitions set nothing.
 */
export function effectFieldsCheck(
  entity: Entity,
  machine: StateMachine | undefined,
  schemas: EntitySchemas | undefined,
  catalogue: ProblemCatalogue,
  lineOf?: (field: string) => SpecLine | null,
): ((set: WriteEffects) => void) | null {
  if (!schemas || !machine?.transitions.some((t) => (t.sets ?? []).length > 0)) return null;
  const validate = createAjv().compile(schemas.update);
  const errors = new FieldErrors(entity, catalogue, lineOf);
  return (set) => {
    if (!validate(set)) throw errors.problem(validate.errors ?? [], set);
  };
}

/** `check` with what the transition sets checked against the fields' rules (see `effectFieldsCheck`). */
export function withEffectFields(
  check: WriteCheck | undefined,
  fields: ((set: WriteEffects) => void) | null,
): WriteCheck | undefined {
  if (!check || !fields) return check;
  return (next, current, reader) => {
    const set = check(next, current, reader);
    if (set) fields(set);
    return set;
  };
}
