import { createHash } from 'node:crypto';
import { type Model, runtimeSettings } from '@ninepoint/spec';
import { PROBLEM_MEDIA_TYPE, PROBLEM_SCHEMA, type ProblemCatalogue } from '../http/problem.ts';
import type { EntitySchemas, JsonSchema } from './json-schemas.ts';
import { listQueryParameters } from './list-params.ts';
import { type Route, schemaComponent } from './route-table.ts';
import { SYSTEM_ROUTES } from './system-routes.ts';

/** The parts of an OpenAPI 3.1 document Ninepoint writes. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; summary?: string; description?: string };
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema>; responses: Record<string, Response> };
}

export interface Response {
  description: string;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
  content?: Record<string, { schema: JsonSchema }>;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

export interface Operation {
  operationId: string;
  summary: string;
  tags: string[];
  parameters?: Parameter[];
  requestBody?: { required: true; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, Response | { $ref: string }>;
}

export const OPENAPI_VERSION = '3.1.1';
const JSON_TYPE = 'application/json';
const PROBLEM = 'ninepoint.Problem';
const HEALTH = 'ninepoint.Health';
const SYSTEM_TAG = 'system';
const ref = (component: string): JsonSchema => ({ $ref: `#/components/schemas/${component}` });

/** The schema of `GET /api/health`. */
export const HEALTH_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ok'] },
    spec: { type: 'string', description: 'The product name of the spec being served.' },
    database: { type: 'string', enum: ['sqlite', 'postgres'] },
  },
  required: ['status', 'spec', 'database'],
  additionalProperties: false,
};

/**
 * The OpenAPI document of an app, built from the same route table and schemas the server uses,
 * so it cannot describe a call or a payload differently from how it is served.
 */
export function compileOpenApi(
  model: Pick<Model, 'product' | 'entities' | 'constants'>,
  routes: readonly Route[],
  schemas: ReadonlyMap<string, EntitySchemas>,
  catalogue: ProblemCatalogue,
): OpenApiDocument {
  const components: Record<string, JsonSchema> = { [PROBLEM]: PROBLEM_SCHEMA, [HEALTH]: HEALTH_SCHEMA };
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

  const responses = new ProblemResponses(catalogue);
  const settings = runtimeSettings(model);
  const paths: OpenApiDocument['paths'] = {};
  const add = (path: string, method: string, operation: Operation): void => {
    paths[path] ??= {};
    (paths[path] as Record<string, Operation>)[method.toLowerCase()] = operation;
  };
  for (const system of SYSTEM_ROUTES) add(system.path, system.method, systemOperation(system, responses));
  for (const route of routes) add(route.openapiPath, route.method, callOperation(route, responses, settings));

  const { product } = model;
  const entityTags = model.entities.map((e) => ({ name: e.name, ...(e.doc ? { description: e.doc } : {}) }));
  const document: OpenApiDocument = {
    openapi: OPENAPI_VERSION,
    info: {
      title: product.name,
      version: '',
      ...(product.summary ? { summary: product.summary } : {}),
      ...(product.description ? { description: product.description } : {}),
    },
    tags: [...entityTags, { name: SYSTEM_TAG, description: 'Calls every Ninepoint app serves.' }],
    paths,
    components: { schemas: components, responses: responses.components },
  };
  // The version changes exactly when the API does: a digest of everything but itself.
  document.info.version = `1.0.0+${createHash('sha256').update(JSON.stringify(document)).digest('hex').slice(0, 12)}`;
  return document;
}

const STRING: JsonSchema = { type: 'string' };
const ETAG_HEADER = {
  description: 'The version of the record: give it as If-Match to change the record only if nobody else has.',
  schema: STRING,
};
const IF_MATCH: Parameter = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description: 'The ETag the record was read with; a stale one answers CONFLICT and changes nothing.',
  schema: STRING,
};

function callOperation(
  route: Route,
  responses: ProblemResponses,
  settings: Parameters<typeof listQueryParameters>[1],
): Operation {
  const { success, action } = route;
  const successContent = success.schema
    ? { content: { [JSON_TYPE]: { schema: success.component ? ref(success.component) : success.schema } } }
    : {};
  const answersRecord = action.kind === 'get' || action.kind === 'create' || action.kind === 'update';
  const headers = answersRecord
    ? {
        headers: {
          ETag: ETAG_HEADER,
          ...(action.kind === 'create'
            ? { Location: { description: 'The path of the record created.', schema: STRING } }
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
    summary: route.doc,
    tags: [action.entity],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true as const,
            content: { [JSON_TYPE]: { schema: route.body.component ? ref(route.body.component) : route.body.schema } },
          },
        }
      : {}),
    responses: {
      [String(success.status)]: { description: successDescription(route), ...headers, ...successContent },
      ...responses.for(route.errors),
    },
  };
}

function systemOperation(route: (typeof SYSTEM_ROUTES)[number], responses: ProblemResponses): Operation {
  const schema: JsonSchema =
    route.path === '/api/health'
      ? ref(HEALTH)
      : route.path === '/api/docs'
        ? STRING
        : { type: 'object', description: route.path === '/api/spec' ? 'The checked model.' : 'An OpenAPI document.' };
  const mediaType = route.path === '/api/docs' ? 'text/html' : JSON_TYPE;
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [SYSTEM_TAG],
    responses: {
      '200': { description: route.summary, content: { [mediaType]: { schema } } },
      ...responses.for(['INTERNAL_ERROR']),
    },
  };
}

/**
 * Error responses, one per status, each listing the codes that answer with it and pinning `code`
 * to them. Calls share them as components: an app's calls use only a few distinct sets.
 */
class ProblemResponses {
  readonly components: Record<string, Response> = {};
  readonly #catalogue: ProblemCatalogue;

  constructor(catalogue: ProblemCatalogue) {
    this.#catalogue = catalogue;
  }

  for(codes: readonly string[]): Record<string, { $ref: string }> {
    const byStatus = new Map<number, string[]>();
    for (const code of codes) {
      const status = this.#catalogue.status(code);
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    const refs: Record<string, { $ref: string }> = {};
    for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
      const name = `ninepoint.${status}.${group.join('.')}`;
      this.components[name] ??= {
        description: group.map((code) => `${code}: ${this.#catalogue.entry(code).message}`).join('\n\n'),
        content: {
          [PROBLEM_MEDIA_TYPE]: { schema: { allOf: [ref(PROBLEM), { properties: { code: { enum: group } } }] } },
        },
      };
      refs[String(status)] = { $ref: `#/components/responses/${name}` };
    }
    return refs;
  }
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
  }
}
