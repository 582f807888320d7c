import { createHash } from 'node:crypto';
import { type CallAction, type Entity, type Model, runtimeSettings, type StateMachine } from '@ninepoint/spec';
import { DELIVERY, DELIVERY_SCHEMA, NOTIFICATION, NOTIFICATION_SCHEMA, OUTBOX_ROUTES } from '../outbox/outbox-api.ts';
import {
  ACCEPT_INVITATION_SCHEMA,
  ACCOUNT_CHANGE_SCHEMA,
  ACCOUNT_EVENT_SCHEMA,
  DIRECTORY_USER_SCHEMA,
  INVITATION_LOOKED_UP_SCHEMA,
  INVITATION_LOOKUP_SCHEMA,
  INVITATION_SCHEMA,
  INVITE_SCHEMA,
  MANAGED_USER_SCHEMA,
  PASSWORD_RESET_ACCEPTED_SCHEMA,
  PASSWORD_RESET_CONFIRM_SCHEMA,
  PASSWORD_RESET_DONE_SCHEMA,
  PASSWORD_RESET_SCHEMA,
  SECURE_SESSION_COOKIE,
  SESSION_COOKIE,
  SIGN_IN_SCHEMA,
  SIGN_UP_ACCEPTED_SCHEMA,
  SIGN_UP_SCHEMA,
  USER_SCHEMA,
  VERIFY_EMAIL_SCHEMA,
} from './auth-schemas.ts';
import type { EntitySchemas, JsonSchema } from './json-schemas.ts';
import { listQueryParameters } from './list-params.ts';
import { compilePermissions, type EntityPermissions, VISITOR } from './permissions.ts';
import { PROBLEM_MEDIA_TYPE, PROBLEM_SCHEMA, type ProblemCatalogue } from './problems.ts';
import { type Route, schemaComponent } from './route-table.ts';
import { SAVE_VIEW, SAVE_VIEW_SCHEMA, SAVED_VIEW, SAVED_VIEW_ROUTES, SAVED_VIEW_SCHEMA } from './saved-views-api.ts';
import { groupableFields, type SummaryRoute, summableFields, summaryRoutes } from './summary-routes.ts';
import { SYSTEM_ROUTES, type SystemRoute } from './system-routes.ts';

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
  requestBody?: { required: true; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, Response | { $ref: string }>;
  /** Any one of these lets the call in; `[]`: no credentials are needed (nor looked at, but a bad token). */
  security: SecurityRequirement[];
}

export const OPENAPI_VERSION = '3.1.1';
const JSON_TYPE = 'application/json';
const PROBLEM = 'ninepoint.Problem';
const HEALTH = 'ninepoint.Health';
const SIGN_IN = 'ninepoint.SignIn';
const USER = 'ninepoint.User';
const DIRECTORY_USER = 'ninepoint.DirectoryUser';
const MANAGED_USER = 'ninepoint.ManagedUser';
const ACCOUNT_CHANGE = 'ninepoint.AccountChange';
const ACCOUNT_EVENT = 'ninepoint.AccountEvent';
const PASSWORD_RESET = 'ninepoint.PasswordReset';
const PASSWORD_RESET_CONFIRM = 'ninepoint.PasswordResetConfirm';
const SIGN_UP = 'ninepoint.SignUp';
const VERIFY_EMAIL = 'ninepoint.VerifyEmail';
const INVITE = 'ninepoint.Invite';
const INVITATION = 'ninepoint.Invitation';
const ACCEPT_INVITATION = 'ninepoint.AcceptInvitation';
const INVITATION_LOOKUP = 'ninepoint.InvitationLookup';
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

/** How a call proves who it is from (`http/auth.ts`). */
export const SECURITY_SCHEMES: Record<string, SecurityScheme> = {
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description:
      `The session cookie \`POST /api/auth/sign-in\` sets, named \`${SECURE_SESSION_COOKIE}\` over HTTPS. ` +
      'A call that changes anything must come from the app’s own pages (its `Origin`, or ' +
      '`Sec-Fetch-Site: same-origin`); otherwise it answers FORBIDDEN.',
  },
  token: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API token: `Authorization: Bearer npt_…`. A token that is not valid, or was revoked, answers NOT_SIGNED_IN.',
  },
};

/** The `:id` of an account's calls. */
const USER_ID: Parameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The id of the user.',
  schema: { type: 'string', format: 'uuid' },
};

/** A signed-in user, by session or by token. */
const SIGNED_IN: SecurityRequirement[] = [{ session: [] }, { token: [] }];
/** Signed in or not. */
const ANYBODY: SecurityRequirement[] = [...SIGNED_IN, {}];

/**
 * The OpenAPI document of an app, built from the same route table and schemas the server uses,
 * so it cannot describe a call or a payload differently from how it is served. `permissions`
 * (point 6, compiled) says which calls signed-out visitors may make.
 */
export function compileOpenApi(
  model: Pick<
    Model,
    'product' | 'entities' | 'constants' | 'machines' | 'permissions' | 'roles' | 'points' | 'screens' | 'calls'
  >,
  routes: readonly Route[],
  schemas: ReadonlyMap<string, EntitySchemas>,
  catalogue: ProblemCatalogue,
  permissions: ReadonlyMap<string, EntityPermissions> = compilePermissions(model),
): OpenApiDocument {
  const components: Record<string, JsonSchema> = {
    [PROBLEM]: PROBLEM_SCHEMA,
    [HEALTH]: HEALTH_SCHEMA,
    [SIGN_IN]: SIGN_IN_SCHEMA,
    [USER]: USER_SCHEMA,
    [DIRECTORY_USER]: DIRECTORY_USER_SCHEMA,
    [MANAGED_USER]: MANAGED_USER_SCHEMA,
    [ACCOUNT_CHANGE]: ACCOUNT_CHANGE_SCHEMA,
    [ACCOUNT_EVENT]: ACCOUNT_EVENT_SCHEMA,
    [PASSWORD_RESET]: PASSWORD_RESET_SCHEMA,
    [PASSWORD_RESET_CONFIRM]: PASSWORD_RESET_CONFIRM_SCHEMA,
    [SIGN_UP]: SIGN_UP_SCHEMA,
    [VERIFY_EMAIL]: VERIFY_EMAIL_SCHEMA,
    [INVITE]: INVITE_SCHEMA,
    [INVITATION]: INVITATION_SCHEMA,
    [ACCEPT_INVITATION]: ACCEPT_INVITATION_SCHEMA,
    [INVITATION_LOOKUP]: INVITATION_LOOKUP_SCHEMA,
    [SAVED_VIEW]: SAVED_VIEW_SCHEMA,
    [SAVE_VIEW]: SAVE_VIEW_SCHEMA,
    [DELIVERY]: DELIVERY_SCHEMA,
    [NOTIFICATION]: NOTIFICATION_SCHEMA,
  };
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
  for (const system of SYSTEM_ROUTES) {
    add(system.path.replace(/:([A-Za-z_]\w*)/g, '{$1}'), system.method, systemOperation(system, responses));
  }
  for (const view of SAVED_VIEW_ROUTES) add(view.path, view.method, savedViewOperation(view, responses));
  for (const route of OUTBOX_ROUTES) add(route.path, route.method, outboxOperation(route, responses));
  for (const route of routes) {
    const { entity } = route.action;
    const machine = model.machines.find((m) => m.entity === entity);
    const security = visitorsMay(route.action, permissions.get(entity), machine) ? ANYBODY : SIGNED_IN;
    add(route.openapiPath, route.method, callOperation(route, responses, settings, security));
  }
  for (const summary of summaryRoutes(routes, model)) {
    const entity = model.entities.find((e) => e.name === summary.entity);
    if (!entity) continue;
    const machine = model.machines.find((m) => m.entity === summary.entity);
    const security = visitorsMay(summary.list.action, permissions.get(summary.entity), machine) ? ANYBODY : SIGNED_IN;
    add(summary.openapiPath, 'GET', summaryOperation(summary, entity, machine, responses, security));
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
      securitySchemes: SECURITY_SCHEMES,
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
  }
}

/** `GET …/summary`: the figures of a dashboard (see `http/entity-routes.ts`). */
function summaryOperation(
  summary: SummaryRoute,
  entity: Entity,
  machine: StateMachine | undefined,
  responses: ProblemResponses,
  security: SecurityRequirement[],
): Operation {
  const groupable = groupableFields(entity, machine);
  const summable = summableFields(entity);
  const sums: JsonSchema = { type: 'object', additionalProperties: { type: 'number' } };
  const groupValue: JsonSchema = { anyOf: [{ type: 'string' }, { type: 'boolean' }, { type: 'null' }] };
  return {
    operationId: summary.operationId,
    summary: `Count ${entity.name} records and total their numbers`,
    description:
      'Counts the records the caller may read (and totals number fields), in all or per value of `by`; ' +
      'for dashboards. A field the caller may not read on every record they may list cannot be grouped or summed.',
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
    ],
    responses: {
      '200': {
        description: 'The count and totals, and with `by` the same per group.',
        content: {
          [JSON_TYPE]: {
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
  };
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

/**
 * Whether a signed-out visitor may make a call, as `http/entity-routes.ts` decides it: reads need
 * read access; a visitor owns no record, so writes need `all` access to read and to change.
 */
function visitorsMay(
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
  }
}

function callOperation(
  route: Route,
  responses: ProblemResponses,
  settings: Parameters<typeof listQueryParameters>[1],
  security: SecurityRequirement[],
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
    summary: route.doc.trim() || callSummary(action),
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
    security,
  };
}

const JSON_USER: JsonSchema = {
  type: 'object',
  properties: { user: ref(USER) },
  required: ['user'],
  additionalProperties: false,
};
const ACCESS: JsonSchema = { type: 'string', enum: ['none', 'own', 'all'] };
const FIELD_LIST: JsonSchema = {
  type: ['array', 'null'],
  items: STRING,
  description: 'The fields the caller may set; null for all.',
};
const STATE_LIST: JsonSchema = {
  type: ['array', 'null'],
  items: STRING,
  description: 'The states a record must be in for the grant to apply (`while`); null for any.',
};
/** `GET /api/auth/me`'s `access`: what point 6 lets the caller do, per entity. */
const ACCESS_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'By entity: create, read, update, delete and each transition, as point 6 allows the caller.',
  additionalProperties: {
    type: 'object',
    properties: {
      create: { type: 'boolean' },
      read: ACCESS,
      update: ACCESS,
      delete: ACCESS,
      transitions: { type: 'object', additionalProperties: ACCESS },
      createFields: FIELD_LIST,
      updateFields: FIELD_LIST,
      updateStates: STATE_LIST,
      deleteStates: STATE_LIST,
      ownedVia: {
        type: 'boolean',
        description: 'Whether `own` records are reached through references (`own via doctor.account`).',
      },
    },
    required: ['create', 'read', 'update', 'delete', 'transitions'],
    additionalProperties: false,
  },
};
const SET_COOKIE = (what: string) => ({ 'Set-Cookie': { description: what, schema: STRING } });
/** Every call: a bad API token answers NOT_SIGNED_IN, and the general rate limit applies. */
const ANY_CALL = ['NOT_SIGNED_IN', 'RATE_LIMITED', 'INTERNAL_ERROR'];
/** A POST has its body read; one signed in by cookie must come from the app's own pages. */
const POSTED = ['INVALID_PAYLOAD', 'PAYLOAD_TOO_LARGE', 'FORBIDDEN'];

function systemOperation(route: SystemRoute, responses: ProblemResponses): Operation {
  // A system call that says nothing else of credentials needs none: `security: []` says so to tools.
  const base = {
    operationId: route.operationId,
    summary: route.summary,
    tags: [SYSTEM_TAG],
    security: [] as SecurityRequirement[],
  };
  switch (route.operationId) {
    case 'signIn':
      return {
        ...base,
        requestBody: { required: true, content: { [JSON_TYPE]: { schema: ref(SIGN_IN) } } },
        responses: {
          '200': {
            description: 'Signed in: the user, and a new session cookie (any session the browser had ends).',
            headers: SET_COOKIE(
              `The session cookie, HttpOnly and SameSite=Lax (\`${SECURE_SESSION_COOKIE}\`, Secure, over HTTPS).`,
            ),
            content: { [JSON_TYPE]: { schema: JSON_USER } },
          },
          ...responses.for([...POSTED, 'SIGN_IN_FAILED', 'ACCOUNT_DEACTIVATED', 'SIGN_IN_LOCKED', ...ANY_CALL]),
        },
      };
    case 'requestPasswordReset':
      return {
        ...base,
        requestBody: { required: true, content: { [JSON_TYPE]: { schema: ref(PASSWORD_RESET) } } },
        responses: {
          '202': {
            description:
              'Taken: the same answer whether or not an account has the email. If one has, a link to ' +
              '`/reset-password?token=…` is mailed to it.',
            content: { [JSON_TYPE]: { schema: PASSWORD_RESET_ACCEPTED_SCHEMA } },
          },
          // RATE_LIMITED here also counts requests per email address and per client address.
          ...responses.for([...POSTED, ...ANY_CALL]),
        },
        security: [],
      };
    case 'confirmPasswordReset':
      return {
        ...base,
        requestBody: { required: true, content: { [JSON_TYPE]: { schema: ref(PASSWORD_RESET_CONFIRM) } } },
        responses: {
          '200': {
            description: 'The password is set; every session of the user has ended. Sign in with it.',
            content: { [JSON_TYPE]: { schema: PASSWORD_RESET_DONE_SCHEMA } },
          },
          ...responses.for([...POSTED, 'RESET_LINK_INVALID', 'VALIDATION_FAILED', ...ANY_CALL]),
        },
        security: [],
      };
    case 'signUp':
      return {
        ...base,
        requestBody: { required: true, content: { [JSON_TYPE]: { schema: ref(SIGN_UP) } } },
        responses: {
          '202': {
            description:
              'Taken: the same answer whether or not the email has an account. A new email is mailed a link to ' +
              '`/verify-email?token=…`; an email with an account is mailed that it has one.',
            content: { [JSON_TYPE]: { schema: SIGN_UP_ACCEPTED_SCHEMA } },
          },
          // FORBIDDEN also answers a role nobody may sign up to; RATE_LIMITED counts per email and address.
          ...responses.for([...POSTED, 'SIGN_UP_DOMAIN', 'VALIDATION_FAILED', ...ANY_CALL]),
        },
      };
    case 'verifyEmail':
    case 'acceptInvitation':
      return {
        ...base,
        requestBody: {
          required: true,
          content: {
            [JSON_TYPE]: { schema: ref(route.operationId === 'verifyEmail' ? VERIFY_EMAIL : ACCEPT_INVITATION) },
          },
        },
        responses: {
          '200': {
            description: 'The account is made: signed in as it, with a new session cookie.',
            headers: SET_COOKIE(
              `The session cookie, HttpOnly and SameSite=Lax (\`${SECURE_SESSION_COOKIE}\`, Secure, over HTTPS).`,
            ),
            content: {
              [JSON_TYPE]: {
                schema: {
                  type: 'object',
                  properties: { user: ref(USER) },
                  required: ['user'],
                  additionalProperties: false,
                },
              },
            },
          },
          ...responses.for(
            route.operationId === 'verifyEmail'
              ? [...POSTED, 'VERIFY_LINK_INVALID', ...ANY_CALL]
              : [...POSTED, 'INVITATION_INVALID', 'VALIDATION_FAILED', ...ANY_CALL],
          ),
        },
      };
    case 'createInvitation':
      return {
        ...base,
        requestBody: { required: true, content: { [JSON_TYPE]: { schema: ref(INVITE) } } },
        responses: {
          '201': {
            description:
              'Invited: the same answer whether or not the email has an account. A new email is mailed a link to ' +
              '`/accept-invitation?token=…`; an email with an account is mailed that it has one, with no link.',
            content: { [JSON_TYPE]: { schema: ref(INVITATION) } },
          },
          ...responses.for([...POSTED, ...ANY_CALL]),
        },
        security: SIGNED_IN,
      };
    case 'lookUpInvitation':
      return {
        ...base,
        requestBody: { required: true, content: { [JSON_TYPE]: { schema: ref(INVITATION_LOOKUP) } } },
        responses: {
          '200': {
            description: 'The invitation, which may still be accepted.',
            content: { [JSON_TYPE]: { schema: INVITATION_LOOKED_UP_SCHEMA } },
          },
          ...responses.for([...POSTED, 'INVITATION_INVALID', ...ANY_CALL]),
        },
      };
    case 'listInvitations':
      return {
        ...base,
        responses: {
          '200': {
            description: 'The pending invitations: neither accepted, revoked nor expired.',
            content: {
              [JSON_TYPE]: {
                schema: {
                  type: 'object',
                  properties: { items: { type: 'array', items: ref(INVITATION) } },
                  required: ['items'],
                  additionalProperties: false,
                },
              },
            },
          },
          ...responses.for(['FORBIDDEN', ...ANY_CALL]),
        },
        security: SIGNED_IN,
      };
    case 'revokeInvitation':
      return {
        ...base,
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            description: 'The invitation’s id.',
            schema: { type: 'string', format: 'uuid' },
          },
        ],
        responses: {
          '204': { description: 'Revoked: its link no longer works.' },
          ...responses.for(['FORBIDDEN', 'NOT_FOUND', ...ANY_CALL]),
        },
        security: SIGNED_IN,
      };
    case 'signOut':
      return {
        ...base,
        responses: {
          '204': {
            description: 'Signed out: the session ended on the server.',
            headers: SET_COOKIE('Clears the session cookie.'),
          },
          ...responses.for([...POSTED, ...ANY_CALL]),
        },
        security: [{ session: [] }, {}],
      };
    case 'getMe':
      return {
        ...base,
        responses: {
          '200': {
            description: 'The signed-in user, or null.',
            content: {
              [JSON_TYPE]: {
                schema: {
                  ...JSON_USER,
                  properties: {
                    user: { anyOf: [ref(USER), { type: 'null' }] },
                    access: ACCESS_SCHEMA,
                    people: {
                      description:
                        "What the user may do with people's accounts (point 6's people column); null when signed out.",
                      anyOf: [
                        {
                          type: 'object',
                          properties: {
                            mayInvite: { type: 'boolean' },
                            inviteRoles: { type: 'array', items: { type: 'string' } },
                            manage: { type: 'boolean' },
                          },
                          required: ['mayInvite', 'inviteRoles', 'manage'],
                          additionalProperties: false,
                        },
                        { type: 'null' },
                      ],
                    },
                    singleSignOn: {
                      description:
                        'Sign-in with an OpenID Connect provider, when the server is configured for one: what its button says, and the path that starts it (a browser navigation).',
                      anyOf: [
                        {
                          type: 'object',
                          properties: { name: { type: 'string' }, start: { type: 'string' } },
                          required: ['name', 'start'],
                          additionalProperties: false,
                        },
                        { type: 'null' },
                      ],
                    },
                    signUp: {
                      description:
                        "The roles people may sign up to themselves (point 6's joins column), with the email domains each accepts (none: any).",
                      type: 'array',
                      items: {
                        type: 'object',
                        properties: {
                          role: { type: 'string' },
                          domains: { type: 'array', items: { type: 'string' } },
                        },
                        required: ['role', 'domains'],
                        additionalProperties: false,
                      },
                    },
                  },
                  required: ['user', 'access', 'people', 'signUp', 'singleSignOn'],
                },
              },
            },
          },
          ...responses.for(ANY_CALL),
        },
        security: ANYBODY,
      };
    case 'listUsers':
      return {
        ...base,
        parameters: [
          {
            name: 'id',
            in: 'query',
            required: false,
            description: 'A user id, repeatable (at most 100): answers those users, for any signed-in caller.',
            schema: { type: 'string', format: 'uuid' },
          },
          {
            name: 'q',
            in: 'query',
            required: false,
            description:
              'Text the name contains (emails are not searched: they are not shown). For those who manage people: ' +
              'text the name or the email contains.',
            schema: { type: 'string', maxLength: 200 },
          },
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: 'At most this many (default 20; 50 in the list of accounts of those who manage people).',
            schema: { type: 'integer', minimum: 1, maximum: 100 },
          },
          {
            name: 'offset',
            in: 'query',
            required: false,
            description: 'For those who manage people: how many accounts to skip (paging).',
            schema: { type: 'integer', minimum: 0, maximum: 1_000_000 },
          },
        ],
        responses: {
          '200': {
            description:
              'The users found: of each, the id and the name; the whole account (email, roles) only of the caller. ' +
              'To those who manage people (without id): a page of every account, with how many there are.',
            content: {
              [JSON_TYPE]: {
                schema: {
                  anyOf: [
                    {
                      type: 'object',
                      properties: {
                        items: { type: 'array', items: { anyOf: [ref(DIRECTORY_USER), ref(USER)] } },
                      },
                      required: ['items'],
                      additionalProperties: false,
                    },
                    {
                      type: 'object',
                      properties: {
                        items: { type: 'array', items: ref(MANAGED_USER) },
                        total: { type: 'integer', minimum: 0, description: 'How many accounts match q.' },
                        limit: { type: 'integer' },
                        offset: { type: 'integer' },
                      },
                      required: ['items', 'total', 'limit', 'offset'],
                      additionalProperties: false,
                    },
                  ],
                },
              },
            },
          },
          ...responses.for(['INVALID_PAYLOAD', 'FORBIDDEN', ...ANY_CALL]),
        },
        security: SIGNED_IN,
      };
    case 'changeUser':
      return {
        ...base,
        parameters: [USER_ID],
        requestBody: { required: true, content: { [JSON_TYPE]: { schema: ref(ACCOUNT_CHANGE) } } },
        responses: {
          '200': {
            description: 'The account as changed.',
            content: { [JSON_TYPE]: { schema: ref(MANAGED_USER) } },
          },
          ...responses.for([
            ...POSTED,
            'NOT_FOUND',
            'VALIDATION_FAILED',
            'CANNOT_DEACTIVATE_SELF',
            'LAST_MANAGER',
            ...ANY_CALL,
          ]),
        },
        security: SIGNED_IN,
      };
    case 'getUserHistory':
      return {
        ...base,
        parameters: [USER_ID],
        responses: {
          '200': {
            description: "The account's history, oldest first.",
            content: {
              [JSON_TYPE]: {
                schema: {
                  type: 'object',
                  properties: { items: { type: 'array', items: ref(ACCOUNT_EVENT) } },
                  required: ['items'],
                  additionalProperties: false,
                },
              },
            },
          },
          ...responses.for(['FORBIDDEN', 'NOT_FOUND', ...ANY_CALL]),
        },
        security: SIGNED_IN,
      };
    case 'streamEvents':
      return {
        ...base,
        responses: {
          '200': {
            description:
              'The stream. Each event: `event: change` and `data: {"entity":"Ticket","id":"…","kind":"create|update|transition|delete","at":"…"}`.',
            content: { 'text/event-stream': { schema: STRING } },
          },
          '204': { description: 'The server is shutting down: connect again (to another server).' },
          ...responses.for(ANY_CALL),
        },
        security: SIGNED_IN,
      };
    default:
      break;
  }
  const schema: JsonSchema =
    route.path === '/api/health'
      ? ref(HEALTH)
      : route.path === '/api/docs'
        ? STRING
        : { type: 'object', description: route.path === '/api/spec' ? 'The checked model.' : 'An OpenAPI document.' };
  const mediaType = route.path === '/api/docs' ? 'text/html' : JSON_TYPE;
  return {
    ...base,
    responses: {
      '200': { description: route.summary, content: { [mediaType]: { schema } } },
      ...responses.for(ANY_CALL),
    },
  };
}

/** A call of the outbox (`outbox/outbox-routes.ts`): deliveries, and the caller's notifications. */
function outboxOperation(route: (typeof OUTBOX_ROUTES)[number], responses: ProblemResponses): Operation {
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [SYSTEM_TAG],
    security: SIGNED_IN,
    ...(route.parameters ? { parameters: route.parameters.map((p) => ({ ...p })) } : {}),
    responses: {
      ...(route.answer === null
        ? { '204': { description: route.summary } }
        : { '200': { description: route.summary, content: { [JSON_TYPE]: { schema: route.answer } } } }),
      ...responses.for([...route.problems, ...ANY_CALL]),
    },
  };
}

/** A call of saved list views (`http/saved-views.ts`): signed-in callers only, each their own views. */
function savedViewOperation(route: (typeof SAVED_VIEW_ROUTES)[number], responses: ProblemResponses): Operation {
  const base = {
    operationId: route.operationId,
    summary: route.summary,
    tags: [SYSTEM_TAG],
    security: SIGNED_IN,
  };
  const problems = responses.for([...route.problems, ...ANY_CALL]);
  const view = { [JSON_TYPE]: { schema: ref(SAVED_VIEW) } };
  switch (route.operationId) {
    case 'listViews':
      return {
        ...base,
        parameters: [
          {
            name: 'screen',
            in: 'query',
            required: true,
            description: 'The route of a list screen, e.g. `/books`.',
            schema: { type: 'string' },
          },
        ],
        responses: {
          '200': {
            description: 'The caller’s views of the screen, by name.',
            content: {
              [JSON_TYPE]: {
                schema: {
                  type: 'object',
                  properties: { items: { type: 'array', items: ref(SAVED_VIEW) } },
                  required: ['items'],
                  additionalProperties: false,
                },
              },
            },
          },
          ...problems,
        },
      };
    case 'saveView':
      return {
        ...base,
        requestBody: { required: true, content: { [JSON_TYPE]: { schema: ref(SAVE_VIEW) } } },
        responses: {
          '200': { description: 'A view of that name was replaced.', content: view },
          '201': { description: 'The view is saved.', content: view },
          ...problems,
        },
      };
    case 'deleteView':
      return {
        ...base,
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
        responses: { '204': { description: 'The view is deleted.' }, ...problems },
      };
  }
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
