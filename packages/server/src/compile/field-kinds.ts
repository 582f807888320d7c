import { decimalLimit, type Field, type FieldKind, type FieldTypeOf, kindFacts } from '@ninepoint/spec';
import type { JsonSchema } from './json-schema.ts';

/**
 * What the server does with each field type, in one table: how its column is stored and the JSON
 * Schema its values must match. The facts the browser shares (the list API's filter, whether `q`
 * searches it, a dashboard's sums and groups, INVALID_TYPE's words) are the spec's `FIELD_KINDS`.
 * A kind missing here is a compile error. See docs/architecture.md, "Adding a field type".
 */
export interface ServerKindFacts<K extends FieldKind> {
  /**
   * The column's storage class: a word each dialect maps to a column type of its own
   * (`store/sqlite/sqlite-ddl.ts`, `store/postgres/pg-ddl.ts`). A new word is a compile error there.
   */
  storage: SqlType;
  /**
   * What a field's values must be once it becomes this kind, where text of any kind would not
   * do (`an email address`): a migration lists it among the narrowed rules. Null when the storage
   * word or the kind's own rules (a choice's values, a decimal's places) already say it.
   */
  demands: string | null;
  /** The JSON Schema of a value, with the field's own rules (range, length, pattern). */
  schema(type: FieldTypeOf<K>, field: Field): JsonSchema;
}

/**
 * A column's storage class: each dialect maps it to a column type of its own
 * (`store/sqlite/sqlite-ddl.ts`, `store/postgres/pg-ddl.ts`).
 */
export type SqlType = 'text' | 'integer' | 'decimal' | 'boolean' | 'date' | 'datetime';

/** Ids are UUIDs (version 7, time-ordered). */
export const ID_SCHEMA: JsonSchema = { type: 'string', format: 'uuid' };
/** JSON numbers beyond ±2^53 lose precision, and `1e300` passes as an "integer": bound every integer. */
const SAFE_INTEGER = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

const range = (field: Field): JsonSchema => ({
  ...(field.min ? { minimum: field.min.value } : {}),
  ...(field.max ? { maximum: field.max.value } : {}),
});

/** A text's length and pattern; an address is bounded by its kind's own limit when the spec gives none. */
const textual = (field: Field): JsonSchema => {
  const defaultMax = kindFacts(field.type).maxLength;
  return {
    ...(field.minLength ? { minLength: field.minLength.value } : {}),
    ...(field.maxLength ? { maxLength: field.maxLength.value } : defaultMax !== null ? { maxLength: defaultMax } : {}),
    ...(field.pattern !== null ? { pattern: field.pattern } : {}),
  };
};

export const SERVER_FIELD_KINDS: { readonly [K in FieldKind]: ServerKindFacts<K> } = {
  text: { storage: 'text', demands: null, schema: (_, field) => ({ type: 'string', ...textual(field) }) },
  longText: { storage: 'text', demands: null, schema: (_, field) => ({ type: 'string', ...textual(field) }) },
  email: {
    storage: 'text',
    demands: 'an email address',
    schema: (_, field) => ({ type: 'string', format: 'email', ...textual(field) }),
  },
  url: {
    storage: 'text',
    demands: 'a web address',
    // `format: uri` alone admits javascript: and data: links; a url field is shown as a link.
    schema: (_, field) => ({
      type: 'string',
      format: 'uri',
      ...textual(field),
      pattern: '^https?://',
      ...(field.pattern !== null ? { allOf: [{ pattern: field.pattern }] } : {}),
    }),
  },
  integer: {
    storage: 'integer',
    demands: null,
    schema: (_, field) => ({ type: 'integer', ...SAFE_INTEGER, ...range(field) }),
  },
  decimal: {
    storage: 'decimal',
    demands: null,
    schema: (type, field) => {
      if (type.scale === null) return { type: 'number', ...range(field) };
      // `multipleOf` is decided in decimal (compile/ajv.ts). Beyond `decimalLimit` a JSON number
      // is not read as written, so it could not come back as sent: bound it as integers are.
      const limit = decimalLimit(type.scale);
      return {
        type: 'number',
        minimum: Math.max(field.min?.value ?? -limit, -limit),
        maximum: Math.min(field.max?.value ?? limit, limit),
        multipleOf: 10 ** -type.scale,
      };
    },
  },
  boolean: { storage: 'boolean', demands: null, schema: () => ({ type: 'boolean' }) },
  date: { storage: 'date', demands: null, schema: () => ({ type: 'string', format: 'date' }) },
  datetime: { storage: 'datetime', demands: null, schema: () => ({ type: 'string', format: 'date-time' }) },
  choice: { storage: 'text', demands: null, schema: (type) => ({ type: 'string', enum: [...type.values] }) },
  reference: {
    storage: 'text',
    demands: null,
    schema: (type) => ({ ...ID_SCHEMA, description: `The id of a ${type.entity}.` }),
  },
};

/** The server's facts for a type of any kind. */
export function serverKind(kind: FieldKind): ServerKindFacts<FieldKind> {
  // One cast for the table: TypeScript cannot see that a type's kind and its row agree.
  return SERVER_FIELD_KINDS[kind] as ServerKindFacts<FieldKind>;
}

/** The JSON Schema of a field's values, before its doc, default and nullability. */
export function valueSchema(field: Field): JsonSchema {
  return serverKind(field.type.kind).schema(field.type as never, field);
}
