import { Environment } from '@marcbachmann/cel-js';
import { kindFacts } from './field-kinds.ts';
import type { Constant, Entity, FieldType } from './model.ts';
import { USER_ENTITY } from './names.ts';

/**
 * How spec values are typed in CEL, shared by the checker (type-checking) and the runtime
 * (evaluation), so both see the same names and types.
 */
export const CEL_TIMESTAMP = 'google.protobuf.Timestamp';
export const CEL_DURATION = 'google.protobuf.Duration';

/** Entity types live under their own package, so an entity may be called Int, List or A. */
export const CEL_TYPE_PREFIX = 'ninepoint.';

/** The CEL type name of an entity's records. */
export function celTypeName(entity: string): string {
  return `${CEL_TYPE_PREFIX}${entity}`;
}

/** The fields of the built-in User type in expressions. */
export const CEL_USER_FIELDS = { id: 'string', email: 'string', name: 'string', roles: 'list<string>' } as const;

/** The system fields every record has in expressions (`state` only with a state machine), by CEL type. */
export function celSystemFields(hasState: boolean): Record<string, string> {
  return {
    id: 'string',
    created_at: CEL_TIMESTAMP,
    updated_at: CEL_TIMESTAMP,
    created_by: celTypeName(USER_ENTITY),
    ...(hasState ? { state: 'string' } : {}),
  };
}

/** The CEL type of a field; a reference to an entity not in `known` (not registered yet) is dyn. */
export function celFieldType(type: FieldType, known: ReadonlySet<string>): string {
  const cel = kindFacts(type).cel;
  switch (cel) {
    case 'timestamp':
      return CEL_TIMESTAMP;
    case 'reference':
      return type.kind === 'reference' && known.has(type.entity) ? celTypeName(type.entity) : 'dyn';
    case 'string':
    case 'int':
    case 'double':
    case 'bool':
      return cel;
  }
}

/** The CEL type of a point-9 constant; durations are CEL durations, dates and date-times timestamps. */
export function celConstantType(constant: Constant): string {
  return {
    integer: 'int',
    decimal: 'double',
    boolean: 'bool',
    text: 'string',
    duration: CEL_DURATION,
    date: CEL_TIMESTAMP,
    datetime: CEL_TIMESTAMP,
  }[constant.type];
}

/** A date or date-time constant's value as the instant expressions see: a date is midnight UTC. */
export function constantInstant(constant: Pick<Constant, 'type' | 'value'>): Date {
  const value = String(constant.value);
  return new Date(constant.type === 'date' ? `${value}T00:00:00Z` : value);
}

/**
 * The CEL environment for expressions about `entity`, shared by the checker and the evaluator: the
 * User type and `types` (each after the types its fields refer to), the entity's system fields and
 * fields, `user`, `now`, `today` and `constants`. Returns the entities registered as types: a
 * name cel-js reserves is not, and references to it stay dyn.
 */
export function entityEnvironment(
  entity: Entity,
  types: readonly Entity[],
  constants: readonly Constant[],
  hasState: (entity: string) => boolean,
): { env: Environment; registered: Set<string> } {
  const env = new Environment({ homogeneousAggregateLiterals: false });
  // CEL's identity conversion, which cel-js lacks: `timestamp(DEADLINE)` keeps meaning the deadline
  // now that a date constant is a timestamp rather than text.
  env.registerFunction(`timestamp(${CEL_TIMESTAMP}): ${CEL_TIMESTAMP}`, (value: unknown) => value);
  env.registerType(celTypeName(USER_ENTITY), { fields: CEL_USER_FIELDS });
  const registered = new Set([USER_ENTITY]);
  for (const needed of types) {
    const fields: Record<string, string> = celSystemFields(hasState(needed.name));
    for (const f of needed.fields) fields[f.name] = celFieldType(f.type, registered);
    // A field whose type was already reported: any use of it type-checks, so it is not reported again.
    for (const name of needed.untyped ?? []) fields[name] = 'dyn';
    try {
      env.registerType(celTypeName(needed.name), { fields });
      registered.add(needed.name);
    } catch {
      // A name cel-js reserves: references to it stay dyn.
    }
  }
  for (const [name, type] of Object.entries(celSystemFields(hasState(entity.name)))) env.registerVariable(name, type);
  for (const f of entity.fields) {
    // The checker refuses names CEL declares itself; a model built by hand may still hold one.
    if (!env.hasVariable(f.name)) env.registerVariable(f.name, celFieldType(f.type, registered));
  }
  for (const name of entity.untyped ?? []) if (!env.hasVariable(name)) env.registerVariable(name, 'dyn');
  env
    .registerVariable('user', celTypeName(USER_ENTITY))
    .registerVariable('now', CEL_TIMESTAMP)
    .registerVariable('today', CEL_TIMESTAMP);
  for (const c of constants) {
    if (!env.hasVariable(c.name)) env.registerVariable(c.name, celConstantType(c));
  }
  return { env, registered };
}
