// A JSON Schema is the spec package's type: it builds each field's (`fieldValueSchema`), which the
// server validates with and the web app checks forms against.
export type { JsonSchema, JsonType } from '@ninepoint/spec';
