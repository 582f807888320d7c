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
