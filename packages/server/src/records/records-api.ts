import { type CallAction, type Entity, type Field, type StateMachine, sizeWords } from '@ninepoint/spec';
import type { JsonSchema } from '../compile/json-schemas.ts';
import { listQueryParameters } from '../compile/list-params.ts';
import {
  API,
  type ApiContext,
  type FeatureApi,
  type Operation,
  type Parameter,
  type ProblemResponses,
  ref,
  type SecurityRequirement,
  specLineExtension,
} from '../compile/openapi.ts';
import { type EntityPermissions, VISITOR } from '../compile/permissions.ts';
import { type Route, schemaComponent } from '../compile/route-table.ts';
import { isFileField } from '../files/index.ts';
import { groupableFields, type SummaryRoute, summableFields, summaryRoutes } from './summary-routes.ts';

/**
 * The spec's own calls in the OpenAPI document (`entity-routes.ts` serves them): each entity's
 * schemas, its calls from the route table, and the dashboards' summaries. Visitors may make a
 * call exactly when `entity-routes.ts` lets them (`visitorsMay`).
 */
export const RECORDS_API: FeatureApi = {
  schemas: ({ schemas }) => {
    const components: Record<string, JsonSchema> = {};
    for (const [entity, s] of schemas) {
      components[schemaComponent(entity, 'record')] = s.record;
      components[schemaComponent(entity, 'create')] = s.create;
      components[schemaComponent(entity, 'update')] = s.update;
      components[schemaComponent(entity, 'page')] = {
        ...s.page,
        properties: { ...s.page.properties, items: { type: 'array', items: ref(entity) } },
      };
      components[schemaComponent(entity, 'history')] = s.history;
    }
    return components;
  },
  calls: (context) => [...entityCalls(context), ...summaryCalls(context)],
};

function entityCalls({ model, routes, permissions, responses, settings }: ApiContext) {
  return routes.map((route) => {
    const { entity } = route.action;
    const machine = model.machines.find((m) => m.entity === entity);
    const security = visitorsMay(route.action, permissions.get(entity), machine) ? API.anybody : API.signedIn;
    const fileFields = (model.entities.find((e) => e.name === entity)?.fields ?? []).filter(isFileField);
    const operation = callOperation(route, responses, settings, security, fileFields);
    const sets = effectsDescription(route.action, machine);
    return {
      path: route.openapiPath,
      method: route.method,
      operation: sets ? { ...operation, description: sets } : operation,
    };
  });
}

/** What a transition sets as it is taken (point 4's `sets`), for its operation's description. */
function effectsDescription(action: Route['action'], machine: StateMachine | undefined): string | null {
  if (action.kind !== 'transition') return null;
  const sets = machine?.transitions.find((t) => t.name === action.transition)?.sets ?? [];
  if (sets.length === 0) return null;
  const listed = sets.map((a) => `\`${a.field} = ${a.source}\``).join(', ');
  return `Sets ${listed} as it is taken, after its guard; the rules are checked on the result.`;
}

function summaryCalls({ model, routes, permissions, responses, settings }: ApiContext) {
  return summaryRoutes(routes, model).flatMap((summary) => {
    const entity = model.entities.find((e) => e.name === summary.entity);
    if (!entity) return [];
    const machine = model.machines.find((m) => m.entity === summary.entity);
    const security = visitorsMay(summary.list.action, permissions.get(summary.entity), machine)
      ? API.anybody
      : API.signedIn;
    return [
      {
        path: summary.openapiPath,
        method: 'GET',
        operation: summaryOperation(summary, entity, machine, responses, security, settings),
      },
    ];
  });
}

const STRING = API.string;
/** A list's parameters that page and sort it: a summary counts every record its filters keep. */
const PAGING = new Set(['limit', 'cursor', 'sort', 'count']);
/** A call's summary when point 7 gives it no words: what it does, e.g. "Loan: return". */
function callSummary(action: Route['action']): string {
  switch (action.kind) {
    case 'list':
      return `List ${action.entity} records`;
    case 'get':
      return `One ${action.entity}`;
    case 'create':
      return `Create a ${action.entity}`;
    case 'update':
      return `Change a ${action.entity}`;
    case 'delete':
      return `Delete a ${action.entity}`;
    case 'history':
      return `The history of a ${action.entity}`;
    case 'transition':
      return `${action.entity}: ${action.transition}`;
    case 'code':
      return `${action.entity}: ${action.code.file}`;
  }
}

/** `GET …/summary`: the figures of a dashboard (see `entity-routes.ts`). */
function summaryOperation(
  summary: SummaryRoute,
  entity: Entity,
  machine: StateMachine | undefined,
  responses: ProblemResponses,
  security: SecurityRequirement[],
  settings: Parameters<typeof listQueryParameters>[1],
): Operation {
  const groupable = groupableFields(entity, machine);
  // The list's filters, read as the list reads them; paging and sorting mean nothing to a count.
  const filters = summary.list.list
    ? listQueryParameters(summary.list.list, settings).filter((p) => !PAGING.has(p.name))
    : [];
  const summable = summableFields(entity);
  const sums: JsonSchema = { type: 'object', additionalProperties: { type: 'number' } };
  const groupValue: JsonSchema = { anyOf: [{ type: 'string' }, { type: 'boolean' }, { type: 'null' }] };
  return {
    operationId: summary.operationId,
    summary: `Count ${entity.name} records and total their numbers`,
    description:
      'Counts the records the caller may read (and totals number fields), in all or per value of `by`, ' +
      'over the records the list call would hold with the same `filter[…]`, `or[…]` and `q`; for dashboards and ' +
      "a role's home. A field the caller may not read on every record they may list cannot be grouped, summed or filtered by.",
    tags: [entity.name],
    parameters: [
      {
        name: 'by',
        in: 'query',
        required: false,
        description: 'Count (and total) per value of this field: one group per value, largest first.',
        schema: groupable.length > 0 ? { type: 'string', enum: groupable } : { type: 'string', maxLength: 0 },
      },
      {
        name: 'sum',
        in: 'query',
        required: false,
        // Repeated (`sum=a&sum=b`): a query array's default style, form with explode.
        description: 'Number fields to total (repeatable, at most 10).',
        schema: {
          type: 'array',
          items: summable.length > 0 ? { type: 'string', enum: summable } : STRING,
          maxItems: 10,
        },
      },
      ...filters,
    ],
    responses: {
      '200': {
        description: 'The count and totals, and with `by` the same per group.',
        content: {
          [API.json]: {
            schema: {
              type: 'object',
              properties: {
                count: { type: 'integer', minimum: 0 },
                sums,
                groups: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: { value: groupValue, count: { type: 'integer', minimum: 0 }, sums },
                    required: ['value', 'count', 'sums'],
                    additionalProperties: false,
                  },
                },
              },
              required: ['count', 'sums'],
              additionalProperties: false,
            },
          },
        },
      },
      // A list's refusals, and a field that cannot be grouped or summed.
      ...responses.for([...new Set(['INVALID_PAYLOAD', ...summary.list.errors])]),
    },
    security,
    // No line declares a summary: it is served beside its list, read and permitted as the list is.
    ...specLineExtension(summary.list.spec),
  };
}

const ETAG_HEADER = {
  description: 'The version of the record: give it as If-Match to change the record only if nobody else has.',
  schema: API.string,
};
const IF_MATCH: Parameter = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description: 'The ETag the record was read with; a stale one answers CONFLICT and changes nothing.',
  schema: API.string,
};

/**
 * Whether a signed-out visitor may make a call, as `entity-routes.ts` decides it: reads need
 * read access; a visitor owns no record, so writes need `all` access to read and to change.
 */
export function visitorsMay(
  action: CallAction,
  permissions: EntityPermissions | undefined,
  machine: StateMachine | undefined,
): boolean {
  if (!permissions) return false;
  const read = permissions.access(VISITOR, 'read');
  switch (action.kind) {
    case 'list':
    case 'get':
    case 'history':
      return read !== 'none';
    case 'create': {
      const creating = machine?.transitions.find((t) => t.creates);
      return (
        permissions.mayCreate(VISITOR) && (!creating || permissions.transitionAccess(VISITOR, creating) !== 'none')
      );
    }
    case 'update':
    case 'delete':
      return read === 'all' && permissions.access(VISITOR, action.kind) === 'all';
    case 'transition': {
      const transition = machine?.transitions.find((t) => t.name === action.transition && !t.creates);
      return read === 'all' && transition !== undefined && permissions.transitionAccess(VISITOR, transition) === 'all';
    }
    case 'code':
      return false;
  }
}

function callOperation(
  route: Route,
  responses: ProblemResponses,
  settings: Parameters<typeof listQueryParameters>[1],
  security: SecurityRequirement[],
  fileFields: readonly Field[] = [],
): Operation {
  const { success, action } = route;
  // A create, update or transition of an entity with file fields may also be sent as
  // multipart/form-data, with a part for each file field its payload takes (point 7 may name some).
  const properties = route.body?.schema.properties ?? {};
  const write =
    action.kind === 'create' || action.kind === 'update' || action.kind === 'transition' ? action.kind : null;
  const uploads = write && route.body ? fileFields.filter((f) => Object.hasOwn(properties, f.name)) : [];
  const { errors } = route;
  const successContent = success.schema
    ? { content: { [API.json]: { schema: success.component ? ref(success.component) : success.schema } } }
    : {};
  const answersRecord = action.kind === 'get' || action.kind === 'create' || action.kind === 'update';
  const headers = answersRecord
    ? {
        headers: {
          ETag: ETAG_HEADER,
          ...(action.kind === 'create'
            ? { Location: { description: 'The path of the record created.', schema: API.string } }
            : {}),
        },
      }
    : {};
  const parameters: Parameter[] = [
    ...route.params.map(
      (name): Parameter => ({
        name,
        in: 'path',
        required: true,
        schema: name === 'id' ? { type: 'string', format: 'uuid' } : STRING,
      }),
    ),
    ...(action.kind === 'update' || action.kind === 'delete' ? [IF_MATCH] : []),
    ...(route.list ? listQueryParameters(route.list, settings) : []),
  ];
  return {
    operationId: route.operationId,
    summary: route.doc.trim() || callSummary(action),
    tags: [action.entity],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true as const,
            content: {
              [API.json]: { schema: route.body.component ? ref(route.body.component) : route.body.schema },
              ...(write && uploads.length > 0
                ? uploadContent(route.body.component ? ref(route.body.component) : route.body.schema, uploads, write)
                : {}),
            },
          },
        }
      : {}),
    responses: {
      [String(success.status)]: { description: successDescription(route), ...headers, ...successContent },
      ...responses.for(errors),
    },
    security,
    ...specLineExtension(route.spec),
  };
}

const CREATE_UPLOAD =
  'The record with its files: a `record` part with the fields as JSON (what the JSON body takes), and a part ' +
  'per file, named by its field (repeated for a field that holds several). All or nothing: a refused record ' +
  'keeps none of its files. A file’s kind is decided by its bytes, not its name or declared type.';
const UPDATE_UPLOAD =
  'Files added to the record: a part per file, named by its field (repeated for a field that holds several), ' +
  'and optionally a `record` part with other fields as JSON. A field that holds one file has it replaced; ' +
  'files sent to a field that holds several are added to those it holds (unless the `record` part names the ' +
  'field: it then holds the ids given there and the new files). To remove a file, send the field without its ' +
  'id (as JSON or in the `record` part); the bytes of a file replaced or removed are deleted. All or nothing: ' +
  'a refused write keeps none of the files sent with it.';
const TRANSITION_UPLOAD =
  'The transition with files: a part per file, named by its field (repeated for a field that holds several), ' +
  'and optionally a `record` part with the payload’s other fields as JSON. A field that holds one file has it ' +
  'replaced; files sent to a field that holds several are added to those it holds. All or nothing: a refused ' +
  'transition keeps none of the files sent with it.';
const UPLOAD_DESCRIPTION = { create: CREATE_UPLOAD, update: UPDATE_UPLOAD, transition: TRANSITION_UPLOAD };

/**
 * A write with files: a `record` part holding the JSON body, and a part per file named by its
 * field (repeated for a field that holds several). A single file replaces the one its field
 * holds; files sent to a field that holds several are added to those it keeps (unless the
 * record part names the field: then it holds those ids and the new files).
 */
function uploadContent(
  record: JsonSchema,
  fields: readonly Field[],
  kind: 'create' | 'update' | 'transition',
): Record<string, { schema: JsonSchema; encoding?: Record<string, { contentType: string }> }> {
  const file = (field: Field): JsonSchema => {
    const type = field.type.kind === 'file' ? field.type : null;
    const binary: JsonSchema = {
      type: 'string',
      format: 'binary',
      contentMediaType: 'application/octet-stream',
      description: `${type && type.kinds.length > 0 ? `A ${type.kinds.join(', ')} file` : 'A file'} of at most ${sizeWords(type?.maxBytes ?? 0)}.`,
    };
    return type && type.maxFiles > 1 ? { type: 'array', items: binary, maxItems: type.maxFiles } : binary;
  };
  return {
    'multipart/form-data': {
      schema: {
        type: 'object',
        description: UPLOAD_DESCRIPTION[kind],
        properties: { record, ...Object.fromEntries(fields.map((f) => [f.name, file(f)])) },
        additionalProperties: false,
      },
      encoding: { record: { contentType: API.json } },
    },
  };
}

function successDescription(route: Route): string {
  const { action } = route;
  switch (action.kind) {
    case 'list':
      return `A page of ${action.entity} records.`;
    case 'get':
      return `The ${action.entity}.`;
    case 'create':
      return `The ${action.entity} created.`;
    case 'update':
      return `The ${action.entity} as updated.`;
    case 'delete':
      return `The ${action.entity} was deleted.`;
    case 'history':
      return `The history of the ${action.entity}.`;
    case 'transition':
      return `The ${action.entity} after ${action.transition}.`;
    case 'code':
      return `What ${action.code.file} answers.`;
  }
}
