import {
  type Entity,
  type Field,
  type FilterKind,
  isRangedFilter,
  isTextLike,
  kindFacts,
  type Model,
  type RuntimeSettings,
  type StateMachine,
} from '@ninepoint/spec';
import { SERVER_FIELD_KINDS } from './field-kinds.ts';
import type { JsonSchema } from './json-schemas.ts';
import { type RowPath, rowPath } from './row-access.ts';
import { DEFAULT_SORT_COLUMNS, type SqlType } from './sql-schema.ts';

/**
 * What a list call of an entity accepts in its query string: the fields it may be sorted and
 * filtered by and the fields its text search reads. The server parses queries with it
 * (`records/list-query.ts`) and the OpenAPI document describes it, so the two cannot disagree.
 */
export interface ListParams {
  /** Sortable fields: the declared fields and the system fields. */
  sortable: ReadonlyMap<string, SortKey>;
  /**
   * Fields `filter[field]=value` may name, with how a value is read; text fields also take
   * `filter[field][contains]`, numbers and moments `[from]` and `[to]`, choices several values.
   */
  filterable: ReadonlyMap<string, FilterType>;
  /** Text-like fields `q` searches; empty when the entity has none (then `q` is refused). */
  searchable: readonly string[];
  /** Filters through references that point-2 screens use (`doctor.account`), with their chains of columns. */
  paths: ReadonlyMap<string, RowPath>;
}

/** How a sort field's values are stored: a cursor carries one, and is checked against this. */
export interface SortKey {
  stored: 'text' | 'number';
  nullable: boolean;
  /** Text that must be a date or a date-time: PostgreSQL refuses any other text for such a column. */
  format?: 'date' | 'datetime';
}

/** A filter's kind (the spec's `FIELD_KINDS` decides a field's), with a choice's values. */
export type FilterType = { kind: Exclude<FilterKind, 'choice'> } | { kind: 'choice'; values: readonly string[] };

/** The default sort: oldest first, `id` breaking ties; an index serves it. */
export const DEFAULT_SORT = DEFAULT_SORT_COLUMNS[0];

/** The query parameters of a list call, by name; `filter[field]` are one each. */
export const LIST_PARAMETERS = ['limit', 'cursor', 'sort', 'q', 'count'] as const;

/** Most `or[n]` groups one list call takes: more is a mistake, not a filter. */
export const MAX_OR_GROUPS = 10;

export function compileListParams(
  entity: Entity,
  machine: StateMachine | undefined,
  model: Pick<Model, 'entities' | 'screens'> = { entities: [entity], screens: [] },
): ListParams {
  const sortable = new Map<string, SortKey>([
    ['id', { stored: 'text', nullable: false }],
    ['created_at', { stored: 'text', nullable: false, format: 'datetime' }],
    ['updated_at', { stored: 'text', nullable: false, format: 'datetime' }],
    ['created_by', { stored: 'text', nullable: true }],
  ]);
  // `created_by` too: a screen's `where created_by = me` filters on the server like any field.
  const filterable = new Map<string, FilterType>([['created_by', { kind: 'reference' }]]);
  if (machine) {
    sortable.set('state', { stored: 'text', nullable: false });
    filterable.set('state', { kind: 'choice', values: machine.states.map((s) => s.name) });
  }
  const searchable: string[] = [];
  for (const field of entity.fields) {
    sortable.set(field.name, sortKey(SERVER_FIELD_KINDS[field.type.kind].storage, !field.required));
    filterable.set(field.name, filterType(field));
    if (isTextLike(field.type)) searchable.push(field.name);
  }
  // A screen's `where doctor.account = me` filters on the server: a user's id through the chain.
  const paths = new Map<string, RowPath>();
  for (const screen of model.screens) {
    if (screen.entity !== entity.name) continue;
    for (const filter of screen.filters) {
      if (!filter.field.includes('.') || paths.has(filter.field)) continue;
      paths.set(filter.field, rowPath(model, entity, filter.field.split('.')));
      filterable.set(filter.field, { kind: 'reference' });
    }
  }
  return { sortable, filterable, searchable, paths };
}

function filterType(field: Field): FilterType {
  const t = field.type;
  if (t.kind === 'choice') return { kind: 'choice', values: t.values };
  const kind = kindFacts(t).filter;
  // Only a choice filters by a choice's values: a kind that did would need them here.
  if (kind === 'choice') throw new Error(`A ${t.kind} field cannot be filtered as a choice.`);
  return { kind };
}

/** How a cursor holds a column's values: numbers as numbers, the rest as text (days and instants checked as such). */
function sortKey(storage: SqlType, nullable: boolean): SortKey {
  switch (storage) {
    case 'integer':
    case 'decimal':
    case 'boolean':
      return { stored: 'number', nullable };
    case 'date':
    case 'datetime':
      return { stored: 'text', nullable, format: storage };
    case 'text':
      return { stored: 'text', nullable };
  }
}

/** An OpenAPI parameter in the query string. */
export interface QueryParameter {
  name: string;
  in: 'query';
  required: false;
  description: string;
  schema: JsonSchema;
  /** `or[1][field][op]=…`: nested keys in brackets. */
  style?: 'deepObject';
  explode?: boolean;
}

/** The query parameters of a list call, as the OpenAPI document lists them. */
export function listQueryParameters(
  params: ListParams,
  settings: Pick<RuntimeSettings, 'PAGE_SIZE' | 'MAX_PAGE_SIZE'>,
): QueryParameter[] {
  const sorts = [...params.sortable.keys()];
  const parameter = (name: string, description: string, schema: JsonSchema): QueryParameter => ({
    name,
    in: 'query',
    required: false,
    description,
    schema,
  });
  return [
    parameter('limit', 'Records per page (PAGE_SIZE when not given, at most MAX_PAGE_SIZE).', {
      type: 'integer',
      minimum: 1,
      maximum: settings.MAX_PAGE_SIZE,
      default: Math.min(settings.PAGE_SIZE, settings.MAX_PAGE_SIZE),
    }),
    parameter('cursor', 'The `next` of the previous page, given with the same sort; opaque.', { type: 'string' }),
    parameter('sort', 'The field to sort by, ascending; `-field` for descending. Ties are broken by id.', {
      type: 'string',
      enum: [...sorts, ...sorts.map((s) => `-${s}`)],
      default: DEFAULT_SORT,
    }),
    ...(params.searchable.length > 0
      ? [
          parameter(
            'q',
            `Records whose ${params.searchable.join(', ')} contains this text (ignoring the case of ASCII letters).`,
            { type: 'string' },
          ),
        ]
      : []),
    parameter('count', 'Also answer `total`, the number of matching records (costs a count of them).', {
      type: 'boolean',
      default: false,
    }),
    ...[...params.filterable].flatMap(([field, type]) =>
      params.paths.has(field)
        ? [parameter(`filter[${field}]`, `Records whose ${field} is you: your own user id only.`, filterSchema(type))]
        : filterParameters(field, type, parameter),
    ),
    {
      ...parameter(
        'or',
        'Groups of filters of which any one may hold: `or[1][category]=hardware&or[1][priority]=urgent` keeps ' +
          'records that are hardware or urgent. A group takes the same filters as `filter[…]` (`or[1][title][contains]`, ' +
          '`or[1][due][before]`, `or[1][assignee][empty]`, …); several groups (`or[2][…]`) must each hold, as must every `filter[…]`.',
        // The groups by number, each a field's filters (`{ "title": { "contains": "x" } }`).
        // A deepObject names one level of keys only: a client serialising an example would send
        // `or[1]={…}`, which is no filter, so the empty object (no group) is the example and the
        // default, and Swagger UI's Try it out sends no `or` at all unless one writes groups.
        {
          type: 'object',
          propertyNames: { pattern: '^[0-9]{1,2}$' },
          maxProperties: MAX_OR_GROUPS,
          additionalProperties: {
            type: 'object',
            additionalProperties: {
              oneOf: [
                { type: ['string', 'array'], items: { type: 'string' } },
                { type: 'object', additionalProperties: { type: 'string' } },
              ],
            },
          },
          default: {},
          example: {},
        },
      ),
      style: 'deepObject',
      explode: true,
    },
  ];
}

/** A field's filters: equality (any of several values for a choice), `contains` for text, a range for numbers and moments. */
function filterParameters(
  field: string,
  type: FilterType,
  parameter: (name: string, description: string, schema: JsonSchema) => QueryParameter,
): QueryParameter[] {
  const schema = filterSchema(type);
  // Any field may be asked to differ from a value, or to be empty or not.
  const common = [
    parameter(
      `filter[${field}][not]`,
      type.kind === 'choice'
        ? `Records whose ${field} is none of these values (or empty); repeat it for several.`
        : `Records whose ${field} is not this value (or is empty).`,
      type.kind === 'choice' ? { type: 'array', items: schema } : schema,
    ),
    parameter(`filter[${field}][empty]`, `true: records whose ${field} is empty; false: those with a value.`, {
      type: 'boolean',
    }),
  ];
  if (type.kind === 'choice') {
    return [
      parameter(`filter[${field}]`, `Records whose ${field} is this value; repeat it for any of several.`, {
        type: 'array',
        items: schema,
      }),
      ...common,
    ];
  }
  const equal = parameter(`filter[${field}]`, `Records whose ${field} equals this value.`, schema);
  if (type.kind === 'text') {
    return [
      equal,
      parameter(
        `filter[${field}][contains]`,
        `Records whose ${field} contains this text (ignoring the case of ASCII letters).`,
        schema,
      ),
      ...common,
    ];
  }
  if (isRangedFilter(type.kind)) {
    return [
      equal,
      parameter(`filter[${field}][from]`, `Records whose ${field} is this value or more (later).`, schema),
      parameter(`filter[${field}][to]`, `Records whose ${field} is this value or less (earlier).`, schema),
      parameter(`filter[${field}][after]`, `Records whose ${field} is more than (later than) this value.`, schema),
      parameter(`filter[${field}][before]`, `Records whose ${field} is less than (earlier than) this value.`, schema),
      ...common,
    ];
  }
  return [equal, ...common];
}

function filterSchema(type: FilterType): JsonSchema {
  switch (type.kind) {
    case 'text':
      return { type: 'string' };
    case 'choice':
      return { type: 'string', enum: [...type.values] };
    case 'integer':
      return { type: 'integer' };
    case 'decimal':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'reference':
      return { type: 'string', format: 'uuid' };
  }
}
