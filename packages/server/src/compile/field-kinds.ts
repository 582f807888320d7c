import { type Field, type FieldKind, fieldValueSchema, type JsonSchema } from '@ninepoint/spec';

export { ID_SCHEMA } from '@ninepoint/spec';

/**
 * What the server does with each field type, in one table: how its column is stored. The JSON
 * Schema its values must match is the spec's `FIELD_SCHEMAS`, which the web app checks forms
 * against too; the other facts the browser shares (the list API's filter, whether `q` searches
 * it, a dashboard's sums and groups, INVALID_TYPE's words) are the spec's `FIELD_KINDS`.
 * A kind missing here is a compile error. See docs/architecture.md, "Adding a field type".
 */
export interface ServerKindFacts {
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
}

/**
 * A column's storage class: each dialect maps it to a column type of its own
 * (`store/sqlite/sqlite-ddl.ts`, `store/postgres/pg-ddl.ts`).
 */
export type SqlType = 'text' | 'integer' | 'decimal' | 'boolean' | 'date' | 'datetime';

export const SERVER_FIELD_KINDS: { readonly [K in FieldKind]: ServerKindFacts } = {
  text: { storage: 'text', demands: null },
  longText: { storage: 'text', demands: null },
  email: { storage: 'text', demands: 'an email address' },
  url: { storage: 'text', demands: 'a web address' },
  integer: { storage: 'integer', demands: null },
  decimal: { storage: 'decimal', demands: null },
  boolean: { storage: 'boolean', demands: null },
  date: { storage: 'date', demands: null },
  datetime: { storage: 'datetime', demands: null },
  choice: { storage: 'text', demands: null },
  reference: { storage: 'text', demands: null },
  file: { storage: 'text', demands: null },
};

/** The JSON Schema of a field's values, before its doc, default and nullability (the spec's `FIELD_SCHEMAS`). */
export function valueSchema(field: Field): JsonSchema {
  return fieldValueSchema(field);
}
