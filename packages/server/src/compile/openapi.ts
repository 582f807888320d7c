import { createHash } from 'node:crypto';
import { type Model, type RuntimeSettings, runtimeSettings, type SpecLine } from '@ninepoint/spec';
import type { EntitySchemas, JsonSchema } from './json-schemas.ts';
import { compilePermissions, type EntityPermissions } from './permissions.ts';
import { PROBLEM_MEDIA_TYPE, PROBLEM_SCHEMA, type ProblemCatalogue } from './problems.ts';
import type { Route } from './route-table.ts';

/**
 * The OpenAPI document, assembled from what each feature declares (`FeatureApi`): a feature's
 * calls and schemas are written beside its routes (`people/people-api.ts`, `records/records-api.ts`,
 * …), and this file only puts them together, with what every call shares (the problem responses,
 * the version).
 */

/** The parts of an OpenAPI 3.1 document Ninepoint writes. */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; summary?: string; description?: string };
  /** Where the API is: the server that sent the document (a relative URL, so it holds behind any proxy). */
  servers: { url: string; description: string }[];
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, Response>;
    securitySchemes: Record<string, SecurityScheme>;
  };
}

export type SecurityScheme =
  | { type: 'apiKey'; in: 'cookie'; name: string; description: string }
  | { type: 'http'; scheme: 'bearer'; description: string };

/** One way to be let in: every scheme it names at once. `{}` names none: signed out will do. */
export type SecurityRequirement = Record<string, string[]>;

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
  description?: string;
  tags: string[];
  parameters?: Parameter[];
  requestBody?: {
    required: true;
    content: Record<string, { schema: JsonSchema; encoding?: Record<string, { contentType: string }> }>;
  };
  responses: Record<string, Response | { $ref: string }>;
  /** Any one of these lets the call in; `[]`: no credentials are needed (nor looked at, but a bad token). */
  security: SecurityRequirement[];
  /**
   * Where the spec declares the call: its point-7 row, or for a call derived from the spec (point
   * 7 not shown) the transition's row or the entity's heading. The spec's calls only.
   */
  'x-spec-line'?: SpecLine;
}

export const OPENAPI_VERSION = '3.1.1';
const JSON_TYPE = 'application/json';
const PROBLEM = 'ninepoint.Problem';
const SYSTEM_TAG = 'system';

/** What the OpenAPI vocabulary of every feature shares. */
export const API = {
  /** The media type of JSON bodies. */
  json: JSON_TYPE,
  /** The tag of the calls every app serves (not an entity's). */
  systemTag: SYSTEM_TAG,
  /** A signed-in user, by session or by token. */
  signedIn: [{ session: [] }, { token: [] }] as SecurityRequirement[],
  /** Signed in or not. */
  anybody: [{ session: [] }, { token: [] }, {}] as SecurityRequirement[],
  /** Every call: a bad API token answers NOT_SIGNED_IN, and the general rate limit applies. */
  anyCall: ['NOT_SIGNED_IN', 'RATE_LIMITED', 'INTERNAL_ERROR'],
  /** A POST has its body read; one signed in by cookie must come from the app's own pages. */
  posted: ['INVALID_PAYLOAD', 'PAYLOAD_TOO_LARGE', 'FORBIDDEN'],
  /** A plain string. */
  string: { type: 'string' } as JsonSchema,
} as const;

/** A reference to a named schema of the document (`components.schemas`). */
export const ref = (component: string): JsonSchema => ({ $ref: `#/components/schemas/${component}` });

/** An operation's `x-spec-line`: the line of the spec that declares it, when the model keeps its lines. */
export function specLineExtension(line: SpecLine | null): Pick<Operation, 'x-spec-line'> {
  return line ? { 'x-spec-line': line } : {};
}

/** What a feature's declaration may read: the compiled spec, and the document's shared problem responses. */
export interface ApiContext {
  model: Pick<
    Model,
    | 'product'
    | 'entities'
    | 'constants'
    | 'machines'
    | 'permissions'
    | 'roles'
    | 'points'
    | 'screens'
    | 'calls'
    | 'errors'
  > &
    Partial<Pick<Model, 'lines'>>;
  settings: RuntimeSettings;
  /** The spec's calls (point 7, or derived). */
  routes: readonly Route[];
  /** By entity name. */
  schemas: ReadonlyMap<string, EntitySchemas>;
  /** By entity name: point 6, compiled. */
  permissions: ReadonlyMap<string, EntityPermissions>;
  responses: ProblemResponses;
}

/** One call of a feature as the document lists it. */
export interface ApiCall {
  /** As the document writes it: `/api/views/{id}`. */
  path: string;
  method: string;
  operation: Operation;
}

/**
 * What one feature puts in the OpenAPI document: named schemas, security schemes, and its calls,
 * each in the order the document lists them. Features are assembled in a fixed order
 * (`app/features.ts`), so the document, and its version, are the same at every start.
 */
export interface FeatureApi {
  schemas?(context: ApiContext): Record<string, JsonSchema>;
  securitySchemes?: Record<string, SecurityScheme>;
  calls(context: ApiContext): readonly ApiCall[];
}

/** A call's path as OpenAPI writes it: `/api/users/:id` → `/api/users/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_]\w*)/g, '{$1}');
}

/**
 * The OpenAPI document of an app from what its features declare, in their order. `permissions`
 * (point 6, compiled) says which calls signed-out visitors may make.
 */
export function assembleOpenApi(
  model: ApiContext['model'],
  features: readonly FeatureApi[],
  compiled: {
    routes: readonly Route[];
    schemas: ReadonlyMap<string, EntitySchemas>;
    catalogue: ProblemCatalogue;
    permissions?: ReadonlyMap<string, EntityPermissions>;
  },
): OpenApiDocument {
  // A role that requires two-factor sign-in holds back its users who have not set it up, on any
  // call a signed-in user makes (people/two-factor.ts): every such call may answer it.
  const responses = new ProblemResponses(
    compiled.catalogue,
    model.roles.some((r) => r.twoFactor) ? ['TWO_FACTOR_REQUIRED'] : [],
  );
  const context: ApiContext = {
    model,
    settings: runtimeSettings(model),
    routes: compiled.routes,
    schemas: compiled.schemas,
    permissions: compiled.permissions ?? compilePermissions(model),
    responses,
  };
  const components: Record<string, JsonSchema> = { [PROBLEM]: PROBLEM_SCHEMA };
  const securitySchemes: Record<string, SecurityScheme> = {};
  for (const feature of features) {
    Object.assign(components, feature.schemas?.(context));
    Object.assign(securitySchemes, feature.securitySchemes);
  }
  const paths: OpenApiDocument['paths'] = {};
  for (const feature of features) {
    for (const { path, method, operation } of feature.calls(context)) {
      paths[path] ??= {};
      (paths[path] as Record<string, Operation>)[method.toLowerCase()] = operation;
    }
  }

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
    servers: [{ url: '/', description: 'The server that serves this document' }],
    tags: [...entityTags, { name: SYSTEM_TAG, description: 'Calls every Ninepoint app serves.' }],
    paths,
    components: {
      schemas: usedSchemas(components, paths, responses.components),
      responses: responses.components,
      securitySchemes,
    },
  };
  // The version changes exactly when the API does: a digest of everything but itself.
  document.info.version = `1.0.0+${createHash('sha256').update(JSON.stringify(document)).digest('hex').slice(0, 12)}`;
  return document;
}

/**
 * The schemas the paths and responses refer to, directly or through other schemas: an entity
 * whose calls are declared in point 7 may have no create call, and its create schema would be a
 * component nobody uses.
 */
function usedSchemas(
  schemas: Record<string, JsonSchema>,
  paths: OpenApiDocument['paths'],
  responses: Record<string, Response>,
): Record<string, JsonSchema> {
  const prefix = '#/components/schemas/';
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === '$ref' && typeof inner === 'string' && inner.startsWith(prefix)) {
          const name = inner.slice(prefix.length);
          if (!used.has(name)) {
            used.add(name);
            visit(schemas[name]);
          }
        } else visit(inner);
      }
    }
  };
  visit(paths);
  visit(responses);
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
}

/**
 * Error responses, one per status, each listing the codes that answer with it and pinning `code`
 * to them. Calls share them as components: an app's calls use only a few distinct sets.
 */
export class ProblemResponses {
  readonly components: Record<string, Response> = {};
  readonly #catalogue: ProblemCatalogue;
  readonly #signedInCalls: readonly string[];

  /** `signedInCalls`: codes every call a signed-in user may make can answer too (those listing NOT_SIGNED_IN). */
  constructor(catalogue: ProblemCatalogue, signedInCalls: readonly string[] = []) {
    this.#catalogue = catalogue;
    this.#signedInCalls = signedInCalls;
  }

  for(given: readonly string[]): Record<string, { $ref: string }> {
    const codes = given.includes('NOT_SIGNED_IN') ? [...new Set([...given, ...this.#signedInCalls])] : given;
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
