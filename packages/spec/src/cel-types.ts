import type { Constant, FieldType } from './model.ts';

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

/** The CEL type of a field; a reference to an entity not in `known` (not registered yet) is dyn. */
export function celFieldType(type: FieldType, known: ReadonlySet<string>): string {
  switch (type.kind) {
    case 'integer':
      return 'int';
    case 'decimal':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'date':
    case 'datetime':
      return CEL_TIMESTAMP;
    case 'reference':
      return known.has(type.entity) ? celTypeName(type.entity) : 'dyn';
    default:
      return 'string';
  }
}

/** The CEL type of a point-9 constant; durations are CEL durations. */
export function celConstantType(constant: Constant): string {
  return { integer: 'int', decimal: 'double', boolean: 'bool', text: 'string', duration: CEL_DURATION }[constant.type];
}
