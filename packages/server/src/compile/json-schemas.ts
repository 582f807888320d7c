import type { Entity, Field, Model } from '@ninepoint/spec';
import { ID_SCHEMA, valueSchema } from './field-kinds.ts';
import type { JsonSchema, JsonType } from './json-schema.ts';

export type { JsonSchema, JsonType } from './json-schema.ts';

/** The schemas of one entity's payloads and answers. */
export interface EntitySchemas {
  /** A stored record as the API returns it: system fields, then declared fields (null when unset). */
  record: JsonSchema;
  /** The body of a create (POST) or full replace (PUT): system fields are not accepted. */
  create: JsonSchema;
  /** The body of a partial update (PATCH): any subset of the declared fields. */
  update: JsonSchema;
  /** One page of a list. */
  page: JsonSchema;
  /** A record's history, oldest first. */
  history: JsonSchema;
}

/**
 * The schemas of every entity, by entity name. A record holds every field, but those point 6
 * hides from some role (`read except (speaker)`): a record sent to that role lacks them.
 */
export function compileJsonSchemas(
  model: Pick<Model, 'entities' | 'machines'> & Partial<Pick<Model, 'permissions'>>,
): Map<string, EntitySchemas> {
  const schemas = new Map<string, EntitySchemas>();
  for (const entity of model.entities) {
    const states = model.machines.find((m) => m.entity === entity.name)?.states.map((s) => s.name) ?? null;
    const lists = (model.permissions ?? []).filter((p) => p.entity === entity.name && p.read !== 'none');
    const hidable = new Set(
      entity.fields
        .map((f) => f.name)
        .filter((name) => lists.some((p) => p.readFields && !p.readFields.includes(name))),
    );
    // A role kept from seeing authors gets records without `created_by` and history without `by`.
    if (lists.some((p) => p.hidesAuthor === true)) hidable.add('created_by');
    schemas.set(entity.name, entitySchemas(entity, states, hidable));
  }
  return schemas;
}

function entitySchemas(entity: Entity, states: string[] | null, hidable: ReadonlySet<string>): EntitySchemas {
  const system: Record<string, JsonSchema> = {
    id: { ...ID_SCHEMA, readOnly: true },
    created_at: { type: 'string', format: 'date-time', readOnly: true },
    updated_at: { type: 'string', format: 'date-time', readOnly: true },
    created_by: {
      type: ['string', 'null'],
      readOnly: true,
      description: 'The user who created it; null for a visitor.',
    },
    ...(states ? { state: { type: 'string', enum: states, readOnly: true } } : {}),
  };
  const fields = (nullable: (f: Field) => boolean): Record<string, JsonSchema> =>
    Object.fromEntries(entity.fields.map((f) => [f.name, fieldSchema(f, nullable(f))]));
  const described = entity.doc ? { description: entity.doc } : {};

  // A record as stored, not as a write must be: a field that became required over rows without
  // a value (added, or back in the spec, with allowDestructive) is served as null in those rows.
  const record = object({ ...system, ...fields(() => true) }, [
    ...Object.keys(system).filter((name) => !hidable.has(name)),
    ...entity.fields.map((f) => f.name).filter((name) => !hidable.has(name)),
  ]);
  const create = object(
    fields((f) => !f.required),
    entity.fields.filter((f) => f.required && f.default === null).map((f) => f.name),
  );
  const update = object(fields((f) => !f.required));
  const page = object(
    {
      items: { type: 'array', items: record },
      next: { type: ['string', 'null'], description: 'The cursor of the next page; null on the last page.' },
      total: { type: 'integer', minimum: 0, description: 'The number of matching records, when asked for.' },
    },
    ['items', 'next'],
  );
  const history = object({ items: { type: 'array', items: historyEntry(states, hidable.has('created_by')) } }, [
    'items',
  ]);
  return {
    record: { ...record, ...described },
    create: { ...create, ...described },
    update: { ...update, ...described },
    page,
    history,
  };
}

/** Where the spec writes something: its line and that line's words, as the OpenAPI document also shows them. */
export const SPEC_LINE_SCHEMA: JsonSchema = {
  type: 'object',
  description:
    'Where in the spec the rule, guard, limit, field or permission behind this is written: the 1-based line and that line as written.',
  properties: { line: { type: 'integer', minimum: 1 }, text: { type: 'string' } },
  required: ['line', 'text'],
};

function historyEntry(states: string[] | null, anonymous: boolean): JsonSchema {
  const state: JsonSchema = states ? { type: ['string', 'null'], enum: [...states, null] } : { type: 'null' };
  return object(
    {
      at: { type: 'string', format: 'date-time' },
      by: {
        type: ['string', 'null'],
        description: 'Who made the change; left out for a role that does not see who made records.',
      },
      action: { type: 'string', enum: ['create', 'update', 'delete', 'transition'] },
      transition: { type: ['string', 'null'] },
      from: state,
      to: state,
      changes: {
        type: 'object',
        additionalProperties: true,
        description: 'The fields that changed, with their new values.',
      },
      before: {
        type: 'object',
        additionalProperties: true,
        description: 'The same fields before the change; on delete, every field as it was last.',
      },
      how: {
        type: 'string',
        enum: ['import'],
        description: 'How the change was made, when not by a call on the record: `import` for a row of an import.',
      },
      spec: {
        ...SPEC_LINE_SCHEMA,
        description: 'For a transition the spec still has: the line of point 4 that declares it, and its words.',
      },
    },
    ['at', ...(anonymous ? [] : ['by']), 'action', 'transition', 'from', 'to', 'changes'],
  );
}

/** A closed object: properties not listed (system fields included) are refused, never ignored. */
function object(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

/** The schema of one field's value; `nullable` lets an optional field be sent as null to clear it. */
export function fieldSchema(field: Field, nullable: boolean): JsonSchema {
  const schema = valueSchema(field);
  if (field.doc) schema.description = field.doc;
  if (field.default && 'literal' in field.default) schema.default = field.default.literal;
  if (!nullable) return schema;
  const type = schema.type as JsonType;
  return { ...schema, type: [type, 'null'], ...(schema.enum ? { enum: [...schema.enum, null] } : {}) };
}

/** A payload schema limited to some of the entity's fields (a point-7 payload such as `Book (title, isbn)`). */
export function pickFields(schema: JsonSchema, fields: readonly string[]): JsonSchema {
  const { required: all = [], properties: props = {}, ...rest } = schema;
  const properties = Object.fromEntries(Object.entries(props).filter(([k]) => fields.includes(k)));
  const required = all.filter((k) => fields.includes(k));
  return { ...rest, properties, ...(required.length > 0 ? { required } : {}) };
}
