import {
  type Call,
  type CallAction,
  collectionName,
  type HttpMethod,
  type Model,
  type Rule,
  rolesDeclared,
  type SpecLine,
  specLine,
  type Transition,
} from '@ninepoint/spec';
import { type EntitySchemas, type JsonSchema, pickFields } from './json-schemas.ts';
import { compileListParams, type ListParams } from './list-params.ts';

/** One call the app serves, with everything the HTTP layer and the OpenAPI document need. */
export interface Route {
  method: HttpMethod;
  /** Path shape with `:params`, as Fastify and the spec write it. */
  path: string;
  /** The same path with `{params}`, as OpenAPI writes it. */
  openapiPath: string;
  operationId: string;
  action: CallAction;
  params: string[];
  /** The request body, or null when the call takes none. */
  body: Payload | null;
  /** For a list call: the sort, filter and search its query string may ask for. */
  list: ListParams | null;
  /** The answer on success; `schema` is null for an empty body (204). */
  success: { status: number; schema: JsonSchema | null; component: string | null };
  /** Catalogue codes the call can answer with, besides success. */
  errors: string[];
  doc: string;
  /** True when derived because point 7 is not shown. */
  derived: boolean;
  /** Where the spec declares the call (see `callLine`); null for a model without its lines. */
  spec: SpecLine | null;
}

export interface Payload {
  schema: JsonSchema;
  /** The OpenAPI component holding the schema, or null when it is specific to this call. */
  component: string | null;
}

export interface RouteTable {
  routes: Route[];
  /** Calls of the spec that a system route (`GET /api/health`, …) takes precedence over. */
  shadowed: Call[];
}

/** Names of the OpenAPI components of an entity's schemas: `Book`, `Book.create`, `Book.page`, … */
export function schemaComponent(entity: string, part: keyof EntitySchemas): string {
  return part === 'record' ? entity : `${entity}.${part}`;
}

/** Codes every call can answer with. */
const ALWAYS = ['RATE_LIMITED', 'INTERNAL_ERROR'];
/** A call other than GET has its body read (and refused when malformed or too large) even when it takes none. */
const BODY_READ = ['INVALID_PAYLOAD', 'PAYLOAD_TOO_LARGE'];
const WITH_BODY = [...BODY_READ, 'VALIDATION_FAILED'];

/**
 * The calls the app serves (`effectiveCalls`), with their schemas, answers and error codes. A spec
 * call with the method and path of one of `reserved` (the features' own calls, `SYSTEM_ROUTES`) is
 * shadowed by it: left out, and listed in `shadowed`.
 */
export function compileRouteTable(
  model: Model,
  calls: readonly Call[],
  schemas: ReadonlyMap<string, EntitySchemas>,
  reserved: readonly { method: string; path: string }[],
): RouteTable {
  const routes: Route[] = [];
  const shadowed: Call[] = [];
  const operationIds = new Set<string>();
  const facts = entityFacts(model);
  for (const call of calls) {
    // Custom calls are the code feature's (`code/`): it serves and documents them.
    if (call.action.kind === 'code') continue;
    if (reserved.some((s) => s.method === call.method && s.path === call.path)) {
      shadowed.push(call);
      continue;
    }
    const entitySchemas = schemas.get(call.action.entity);
    if (!entitySchemas) continue;
    let operationId = operationName(call);
    for (let n = 2; operationIds.has(operationId); n++) operationId = `${operationName(call)}${n}`;
    operationIds.add(operationId);
    const body = payloadOf(call, entitySchemas);
    routes.push({
      method: call.method,
      path: call.path,
      openapiPath: call.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}'),
      operationId,
      action: call.action,
      params: call.params,
      body,
      list: call.action.kind === 'list' ? (facts.get(call.action.entity)?.list ?? null) : null,
      success: successOf(call.action, entitySchemas),
      errors: [
        ...new Set([
          ...errorsOf(call, body !== null, facts.get(call.action.entity), rolesDeclared(model)),
          ...hookedCodes(model, call.action),
        ]),
      ],
      doc: call.doc,
      derived: call.derived,
      spec: callLine(model, call),
    });
  }
  return { routes, shadowed };
}

/**
 * The line that declares a call: its row in point 7; for a call derived from the spec, the row
 * of the transition it takes, else its entity's heading in point 3.
 */
function callLine(model: Model, call: Call): SpecLine | null {
  if (call.span) return specLine(model, call.span);
  const { action } = call;
  if (action.kind === 'transition') {
    const machine = model.machines.find((m) => m.entity === action.entity);
    const transition = machine?.transitions.find((t) => t.name === action.transition);
    if (transition) return specLine(model, transition.span);
  }
  return specLine(model, model.entities.find((e) => e.name === action.entity)?.span);
}

function payloadOf(call: Call, schemas: EntitySchemas): Payload | null {
  if (!call.payload) return null;
  const { entity } = call.action;
  // POST creates and PUT replaces a whole record; PATCH and transitions change some fields.
  const whole = call.action.kind === 'create' || call.method === 'PUT';
  const part = whole ? 'create' : 'update';
  const full = schemas[part];
  return call.payload.fields
    ? { schema: pickFields(full, call.payload.fields), component: null }
    : { schema: full, component: schemaComponent(entity, part) };
}

function successOf(action: CallAction, schemas: EntitySchemas): Route['success'] {
  const { entity } = action;
  const answer = (status: number, part: keyof EntitySchemas) => ({
    status,
    schema: schemas[part],
    component: schemaComponent(entity, part),
  });
  switch (action.kind) {
    case 'list':
      return answer(200, 'page');
    case 'history':
      return answer(200, 'history');
    case 'create':
      return answer(201, 'record');
    case 'delete':
      return { status: 204, schema: null, component: null };
    case 'get':
    case 'update':
    case 'transition':
    case 'code':
      return answer(200, 'record');
  }
}

/** What decides an entity's error codes, gathered once rather than searched for per call. */
interface EntityFacts {
  unique: boolean;
  /** True when a field refers to records, of an entity or users (which must exist). */
  references: boolean;
  /** True when a field holds files: its creates and updates may be uploads. */
  files: boolean;
  creating: Transition | undefined;
  transitions: readonly Transition[];
  rules: Rule[];
  list: ListParams;
}

function entityFacts(model: Model): Map<string, EntityFacts> {
  const facts = new Map<string, EntityFacts>();
  for (const entity of model.entities) {
    facts.set(entity.name, {
      unique: entity.fields.some((f) => f.unique),
      // References to User are checked like any other: an unknown user id is UNKNOWN_REFERENCE.
      references: entity.fields.some((f) => f.type.kind === 'reference'),
      files: entity.fields.some((f) => f.type.kind === 'file'),
      creating: undefined,
      transitions: [],
      rules: [],
      list: compileListParams(
        entity,
        model.machines.find((m) => m.entity === entity.name),
        model,
      ),
    });
  }
  for (const machine of model.machines) {
    const f = facts.get(machine.entity);
    if (!f) continue;
    f.creating = machine.transitions.find((t) => t.creates);
    f.transitions = machine.transitions;
  }
  for (const rule of model.rules) facts.get(rule.appliesTo.entity)?.rules.push(rule);
  return facts;
}

/** What a create or update sent as an upload (multipart/form-data) may answer besides a JSON write's problems. */
const UPLOAD_ERRORS = [
  'FILE_TOO_LARGE',
  'FILE_KIND_NOT_ALLOWED',
  'FILE_EMPTY',
  'TOO_MANY_FILES',
  'INVALID_FILE_NAME',
  'UPLOAD_INCOMPLETE',
  'PAYLOAD_TOO_LARGE',
  'CONFLICT',
];

function errorsOf(call: Call, hasBody: boolean, facts: EntityFacts | undefined, signIn: boolean): string[] {
  const { action } = call;
  const codes: string[] = [];
  // NOT_SIGNED_IN: an API token that is not valid, or a visitor point 6 does not let in. FORBIDDEN:
  // a user point 6 does not let do this, or a change signed in by cookie sent from another site.
  codes.push('NOT_SIGNED_IN');
  if (signIn || call.method !== 'GET') codes.push('FORBIDDEN');
  if (call.params.length > 0) codes.push('NOT_FOUND');
  if (hasBody) codes.push(...WITH_BODY);
  else if (call.method !== 'GET') codes.push(...BODY_READ);
  const creating = facts?.creating;
  const unique = facts?.unique ?? false;
  const references = facts?.references ?? false;
  /** Codes of the rules checked when the record is written outside a transition (null) or by one. */
  const rulesFor = (transition: string | null): string[] =>
    (facts?.rules ?? [])
      .filter((r) => r.appliesTo.transition === null || r.appliesTo.transition === transition)
      .map((r) => r.error);
  switch (action.kind) {
    case 'create':
      if (hasBody && facts?.files) codes.push(...UPLOAD_ERRORS);
      if (creating?.guard) codes.push(creating.error ?? 'TRANSITION_NOT_ALLOWED');
      if (unique) codes.push('NOT_UNIQUE');
      if (references) codes.push('UNKNOWN_REFERENCE');
      // Required fields whose default cannot be filled in (`me` before sign-in) are reported as missing.
      codes.push('VALIDATION_FAILED', ...rulesFor(creating?.name ?? null));
      break;
    case 'update':
      if (hasBody && facts?.files) codes.push(...UPLOAD_ERRORS);
      if (unique) codes.push('NOT_UNIQUE');
      if (references) codes.push('UNKNOWN_REFERENCE');
      codes.push('CONFLICT', ...rulesFor(null));
      break;
    case 'delete':
      codes.push('CONFLICT');
      break;
    case 'transition': {
      // One rule failing answers its own code; several with different codes VALIDATION_FAILED.
      const rules = rulesFor(action.transition);
      const own = facts?.transitions.find((t) => t.name === action.transition && t.guard !== null)?.error;
      codes.push(
        'TRANSITION_NOT_ALLOWED',
        ...(own ? [own] : []),
        'CONFLICT',
        ...(rules.length > 0 ? ['VALIDATION_FAILED'] : []),
        ...rules,
      );
      break;
    }
    case 'list':
      codes.push('INVALID_PAYLOAD');
      break;
    case 'get':
    case 'history':
    case 'code':
      break;
  }
  codes.push(...ALWAYS);
  return [...new Set(codes)];
}

/**
 * A call with a `before` hook (point 7's Code) may also answer any code of point 8: the module
 * refuses with whichever it likes.
 */
function hookedCodes(model: Model, action: CallAction): string[] {
  const hooked = model.hooks.some(
    (h) =>
      h.moment === 'before' &&
      h.event.kind !== 'schedule' &&
      h.event.entity === action.entity &&
      (h.event.kind === 'transition'
        ? action.kind === 'transition' && action.transition === h.event.transition
        : h.event.kind === action.kind),
  );
  return hooked ? model.errors.map((e) => e.code) : [];
}

/** `listBooks`, `getBook`, `createBook`, `replaceBook`, `markOverdueLoan`, … */
function operationName(call: Call): string {
  const { action } = call;
  const entity = action.entity;
  switch (action.kind) {
    case 'list':
      return `list${pascal(collectionName(entity))}`;
    case 'get':
      return `get${entity}`;
    case 'create':
      return `create${entity}`;
    case 'update':
      return call.method === 'PUT' ? `replace${entity}` : `update${entity}`;
    case 'delete':
      return `delete${entity}`;
    case 'history':
      return `get${entity}History`;
    case 'transition': {
      const verb = pascal(action.transition.replace(/[\s_]+/g, '-'));
      return `${verb.charAt(0).toLowerCase()}${verb.slice(1)}${entity}`;
    }
    case 'code': {
      const verb = pascal(call.path.split('/').at(-1) ?? 'run');
      return `${verb.charAt(0).toLowerCase()}${verb.slice(1)}${entity}`;
    }
  }
}

function pascal(kebab: string): string {
  return kebab
    .split('-')
    .filter((w) => w !== '')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}
