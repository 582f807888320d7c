import { decimalLimit } from './decimals.ts';
import { type FieldTypeOf, kindFacts } from './field-kinds.ts';
import type { Field, FieldKind } from './model.ts';

/**
 * A JSON Schema (the subset shared by draft-07, which Ajv and Fastify use, and 2020-12, which
 * OpenAPI 3.1 uses). Kept as plain data: the same object validates requests and documents them.
 */
export interface JsonSchema {
  type?: JsonType | JsonType[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: readonly (string | number | boolean | null)[];
  $ref?: string;
  [keyword: string]: unknown;
}

export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'null';

/** Ids are UUIDs (version 7, time-ordered). */
export const ID_SCHEMA: JsonSchema = { type: 'string', format: 'uuid' };
/** JSON numbers beyond ±2^53 lose precision, and `1e300` passes as an "integer": bound every integer. */
const SAFE_INTEGER = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };

const range = (field: Field): JsonSchema => ({
  ...(field.min ? { minimum: field.min.value } : {}),
  ...(field.max ? { maximum: field.max.value } : {}),
});

/**
 * White space only (`""` included), spelled out as JavaScript's `\s` reads it: RE2's `\s`, which
 * the server's patterns run on, is ASCII only, so `^\s*$` would call a title of no-break spaces
 * blank in the browser and not on the server. Both engines read this class alike.
 */
export const BLANK_PATTERN = '^[\\t\\n\\v\\f\\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]*$';

/**
 * Refuses a blank text (`BLANK_PATTERN`): what `required` means for text (REQUIRED).
 * `not` keeps it apart from the field's own `pattern`.
 */
export const NOT_BLANK: JsonSchema = Object.freeze({ not: { type: 'string', pattern: BLANK_PATTERN } }) as JsonSchema;

const BLANK = new RegExp(BLANK_PATTERN, 'u');

/** Whether a text counts as blank for a required field: empty, or white space only. */
export function isBlank(text: string): boolean {
  return BLANK.test(text);
}

/**
 * A text's length and pattern; a text the spec gives no length is bounded by its kind's default
 * (`DEFAULT_TEXT_LENGTH`; for an address, the longest that can be used), never below the least
 * length it asks for. A required text may not be blank.
 */
const textual = (field: Field): JsonSchema => {
  const defaultMax = kindFacts(field.type).maxLength;
  const least = field.minLength?.value ?? 0;
  return {
    ...(field.minLength ? { minLength: field.minLength.value } : {}),
    ...(field.maxLength
      ? { maxLength: field.maxLength.value }
      : defaultMax !== null
        ? { maxLength: Math.max(defaultMax, least) }
        : {}),
    ...(field.pattern !== null ? { pattern: field.pattern } : {}),
    ...(field.required ? NOT_BLANK : {}),
  };
};

/**
 * The JSON Schema of each field type's values, with the field's own rules (range, length,
 * pattern), one row a kind: the server validates request bodies and documents the API with it,
 * and the web app checks a form's values against the same schema before sending.
 */
export const FIELD_SCHEMAS: { readonly [K in FieldKind]: (type: FieldTypeOf<K>, field: Field) => JsonSchema } = {
  text: (_, field) => ({ type: 'string', ...textual(field) }),
  longText: (_, field) => ({ type: 'string', ...textual(field) }),
  email: (_, field) => ({ type: 'string', format: 'email', ...textual(field) }),
  // `format: uri` alone admits javascript: and data: links; a url field is shown as a link.
  url: (_, field) => ({
    type: 'string',
    format: 'uri',
    ...textual(field),
    pattern: '^https?://',
    ...(field.pattern !== null ? { allOf: [{ pattern: field.pattern }] } : {}),
  }),
  integer: (_, field) => ({ type: 'integer', ...SAFE_INTEGER, ...range(field) }),
  decimal: (type, field) => {
    if (type.scale === null) return { type: 'number', ...range(field) };
    // `multipleOf` is decided in decimal (DECIMAL_MULTIPLE_OF). Beyond `decimalLimit` a JSON number
    // is not read as written, so it could not come back as sent: bound it as integers are.
    const limit = decimalLimit(type.scale);
    return {
      type: 'number',
      minimum: Math.max(field.min?.value ?? -limit, -limit),
      maximum: Math.min(field.max?.value ?? limit, limit),
      multipleOf: 10 ** -type.scale,
    };
  },
  boolean: () => ({ type: 'boolean' }),
  date: () => ({ type: 'string', format: 'date' }),
  datetime: () => ({ type: 'string', format: 'date-time' }),
  choice: (type) => ({ type: 'string', enum: [...type.values] }),
  reference: (type) => ({ ...ID_SCHEMA, description: `The id of a ${type.entity}.` }),
  // Set by uploads (multipart/form-data); a JSON write may only empty it or keep some of its files.
  file: (type) =>
    type.maxFiles > 1
      ? {
          type: 'string',
          pattern: FILE_IDS_PATTERN,
          description: `The ids of up to ${type.maxFiles} uploaded files, joined by commas (GET /api/files/{id}).`,
        }
      : { ...ID_SCHEMA, description: 'The id of an uploaded file (GET /api/files/{id}).' },
};

/** Several files' ids, joined by commas. */
export const FILE_IDS_PATTERN =
  '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(,[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})*$';

/** The JSON Schema of a field's values, before its doc, default and nullability. */
export function fieldValueSchema(field: Field): JsonSchema {
  // One cast for the table: TypeScript cannot see that a type's kind and its row agree.
  const schema = FIELD_SCHEMAS[field.type.kind] as (type: Field['type'], field: Field) => JsonSchema;
  return schema(field.type, field);
}
