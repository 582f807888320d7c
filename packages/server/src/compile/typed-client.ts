import {
  ANYONE,
  type Call,
  collectionName,
  type Entity,
  effectiveCalls,
  type Field,
  isRangedFilter,
  type Model,
  specTypeDeclarations,
  tsFieldType,
  tsUnion,
} from '@ninepoint/spec';
import type { FilterType, ListParams } from './list-params.ts';
import { plural } from './migration-report.ts';
import type { Route } from './route-table.ts';

/**
 * The typed TypeScript client `ninepoint client` writes: the spec's types (shared with
 * `ninepoint types`, `specTypeDeclarations`), what each entity's calls send and take, and an
 * object per entity whose methods are the calls of the route table, over nothing but `fetch`.
 * Built from the same route table the server serves and documents, so a call the client makes
 * is one the server answers. Erasable TypeScript only: Node runs the file as it is.
 *
 * @example
 * const compiled = compileApp(model);
 * writeFileSync('client.ts', typedClient(model, compiled.routeTable.routes, 'helpdesk.md'));
 */
export function typedClient(model: Model, routes: readonly Route[], specFile: string): string {
  // Custom calls (`code …`) are the code feature's, not the route table's: they come from point 7.
  const custom = effectiveCalls(model).filter((c) => c.action.kind === 'code');
  const entities = model.entities.filter((e) => [...routes, ...custom].some((r) => r.action.entity === e.name));
  const resources = entities.map((entity) => resourceOf(model, entity, routes, custom));
  const first = resources[0];
  const example = first?.hasList ? [`//   const page = await api.${first.property}.list({ limit: 20 });`] : [];
  const out: string[] = [
    `// Written by \`ninepoint client ${specFile}\` from the spec: do not edit; write it again when the spec changes.`,
    `// A typed client of ${JSON.stringify(model.product.name || 'the app')}'s API. It needs nothing but \`fetch\`: it runs in browsers,`,
    '// Node 22.12 or newer, Deno and Bun, and Node runs this file as it is (types are only erased).',
    '//',
    "//   import { createClient, NinepointError } from './client.ts';",
    "//   const api = createClient({ baseUrl: 'http://127.0.0.1:3000', token: process.env.NINEPOINT_TOKEN });",
    ...example,
    '//',
    "// Every refusal is thrown as a NinepointError whose `code` is one of the catalogue's (ErrorCode).",
    '',
    ...specTypeDeclarations(model, { constants: false }),
    `/** The roles of point 6. */`,
    `export type Role = ${tsUnion(model.roles.map((r) => r.name).filter((r) => r !== ANYONE))};`,
    '',
    `/** The entities the API serves. */`,
    `export type EntityName = ${tsUnion(entities.map((e) => e.name))};`,
    '',
  ];
  for (const resource of resources) out.push(...resource.types, '');
  out.push(RUNTIME_TYPES, '');
  out.push("/** The app's API: an object per entity, sign-in and live events. */", 'export interface Client {');
  for (const resource of resources) {
    out.push(`  /** ${resource.entity.name} records: ${plural(resource.routes.length, 'call')}. */`);
    out.push(`  readonly ${resource.property}: ${resource.apiName};`);
  }
  out.push(CLIENT_MEMBERS, '}', '');
  out.push(
    '/**',
    ' * A client of the app at `baseUrl`. With a `token` (`ninepoint tokens create`) every call is made',
    ' * as its user; without one, call `signIn` first (or not at all, for what visitors may do).',
    ' */',
    'export function createClient(options: ClientOptions): Client {',
    '  const http = new Http(options);',
    '  return {',
  );
  for (const resource of resources) out.push(`    ${resource.property}: ${resource.factory}(http),`);
  out.push('    ...sessionCalls(http),', '  };', '}', '');
  for (const resource of resources) out.push(...resource.code, '');
  out.push(RUNTIME_CODE);
  return `${out.join('\n')}\n`;
}

interface Resource {
  entity: Entity;
  routes: Route[];
  /** `tickets`, `expenseReports`: the client's property. */
  property: string;
  apiName: string;
  factory: string;
  hasList: boolean;
  hasGet: boolean;
  types: string[];
  code: string[];
}

/** Methods every entity's object may have, by the kind of call; a transition named like one gets no method of its own. */
const KIND_METHODS = ['list', 'get', 'create', 'update', 'replace', 'delete', 'history', 'transition'];

function resourceOf(model: Model, entity: Entity, all: readonly Route[], custom: readonly Call[]): Resource {
  const name = entity.name;
  const routes = all.filter((r) => r.action.entity === name);
  const machine = model.machines.find((m) => m.entity === name);
  const property = camel(collectionName(name));
  const plural = pascal(collectionName(name));
  const types: string[] = [];
  types.push(...inputTypes(entity));
  const list = routes.find((r) => r.list !== null)?.list ?? null;
  if (list) types.push(...listTypes(entity, machine !== undefined, list));

  const members: string[] = [];
  const code: string[] = [];
  const transitions: { name: string; args: string; call: string }[] = [];
  const taken = new Set<string>();
  /** The method's name: the one wanted, else (taken by another call) the fallback. */
  const methodName = (wanted: string, fallback: string): string => {
    const chosen = taken.has(wanted) ? fallback : wanted;
    taken.add(chosen);
    return chosen;
  };
  for (const route of routes) {
    const { action } = route;
    const ids = route.params.map((p) => `${safeName(p)}: string`);
    const path = pathExpression(route);
    const doc = `  /** ${capital(route.doc || KIND_WORDS[action.kind])}: ${route.method} ${route.path}. */`;
    const body = bodyType(name, route);
    switch (action.kind) {
      case 'list': {
        const method = methodName('list', route.operationId);
        members.push(
          doc,
          `  ${method}(${[...ids, `options?: ListOptions<${name}Filter, ${name}Sort>`].join(', ')}): Promise<Page<${name}>>;`,
        );
        code.push(
          `    ${method}: (${[...route.params.map(safeName), 'options'].join(', ')}) => http.call<Page<${name}>>('GET', ${path}, { query: listQuery(options) }),`,
        );
        break;
      }
      case 'history': {
        const method = methodName('history', route.operationId);
        const state = machine ? `${name}State` : 'never';
        members.push(doc, `  ${method}(${ids.join(', ')}): Promise<HistoryEntry<${state}>[]>;`);
        code.push(
          `    ${method}: async (${route.params.map(safeName).join(', ')}) => (await http.call<{ items: HistoryEntry<${state}>[] }>('GET', ${path})).items,`,
        );
        break;
      }
      case 'delete': {
        const method = methodName('delete', route.operationId);
        members.push(doc, `  ${method}(${ids.join(', ')}): Promise<void>;`);
        code.push(`    ${method}: (${route.params.map(safeName).join(', ')}) => http.call<void>('DELETE', ${path}),`);
        break;
      }
      case 'transition': {
        const verb = camel(action.transition.replace(/[\s_]+/g, '-'));
        const args = body ? `[fields${route.body?.schema.required ? '' : '?'}: ${body}]` : '[]';
        const params = [...route.params.map(safeName), ...(body ? ['fields'] : [])];
        const call = `(${params.join(', ')}) => http.call<${name}>('${route.method}', ${path}${body ? ', { body: fields ?? {} }' : ''})`;
        transitions.push({ name: action.transition, args, call });
        const own = /^[A-Za-z_$][\w$]*$/.test(verb) && !KIND_METHODS.includes(verb) && !taken.has(verb);
        if (own) {
          taken.add(verb);
          members.push(
            `  /** ${capital(route.doc || action.transition)}: ${route.method} ${route.path}. */`,
            `  ${verb}(${[...ids, ...(body ? [`fields${route.body?.schema.required ? '' : '?'}: ${body}`] : [])].join(', ')}): Promise<${name}>;`,
          );
          code.push(
            `    ${verb}: transitions${/^[A-Za-z_$][\w$]*$/.test(action.transition) ? `.${action.transition}` : `[${JSON.stringify(action.transition)}]`},`,
          );
        }
        break;
      }
      case 'code':
        break;
      default: {
        const wanted = action.kind === 'update' && route.method === 'PUT' ? 'replace' : action.kind;
        const method = methodName(wanted, route.operationId);
        const input = body ? [action.kind === 'create' ? `fields: ${body}` : `changes: ${body}`] : [];
        const status =
          action.kind === 'create'
            ? 'the record created'
            : action.kind === 'get'
              ? 'the record'
              : 'the record as changed';
        members.push(
          `  /** ${capital(route.doc || KIND_WORDS[action.kind])}: ${route.method} ${route.path}; answers ${status}. */`,
        );
        members.push(`  ${method}(${[...ids, ...input].join(', ')}): Promise<${name}>;`);
        const params = [
          ...route.params.map(safeName),
          ...(body ? [action.kind === 'create' ? 'fields' : 'changes'] : []),
        ];
        const send = body ? `, { body: ${action.kind === 'create' ? 'fields' : 'changes'} }` : '';
        code.push(`    ${method}: (${params.join(', ')}) => http.call<${name}>('${route.method}', ${path}${send}),`);
      }
    }
  }
  for (const call of custom) {
    const { action } = call;
    if (action.kind !== 'code' || action.entity !== name) continue;
    const verb = camel(call.path.split('/').at(-1) ?? 'run');
    const method = methodName(/^[A-Za-z_$][\w$]*$/.test(verb) ? verb : `call${plural}`, `${verb}${name}`);
    const body =
      call.payload && call.method !== 'GET'
        ? call.payload.fields
          ? `Pick<${name}Update, ${tsUnion(call.payload.fields)}>`
          : `${name}Update`
        : null;
    const answer =
      call.answer && call.answer.entity === name
        ? call.answer.fields
          ? `Pick<${name}, ${tsUnion(call.answer.fields)}>`
          : name
        : 'unknown';
    const params = [...call.params.map(safeName), ...(body ? ['fields'] : [])];
    members.push(
      `  /** ${capital(call.doc || `a custom call (${action.code.file})`)}: ${call.method} ${call.path}. */`,
      `  ${method}(${[...call.params.map((p) => `${safeName(p)}: string`), ...(body ? [`fields?: ${body}`] : [])].join(', ')}): Promise<${answer}>;`,
    );
    const path = pathExpression(call);
    code.push(
      `    ${method}: (${params.join(', ')}) => http.call<${answer}>('${call.method}', ${path}${body ? ', { body: fields ?? {} }' : ''}),`,
    );
  }
  const apiName = `${plural}Api`;
  if (transitions.length > 0) {
    types.push(
      `/** What each transition of a ${name} takes besides the record's id. */`,
      `export interface ${name}TransitionArgs {`,
      ...transitions.map((t) => `  ${quoteKey(t.name)}: ${t.args};`),
      '}',
      '',
    );
    members.push(
      '  /** Takes a transition by its name, e.g. `transition(id, ' +
        `'${(transitions[0] as { name: string }).name}'` +
        ')`. */',
      `  transition<T extends keyof ${name}TransitionArgs>(id: string, name: T, ...args: ${name}TransitionArgs[T]): Promise<${name}>;`,
    );
  }
  types.push(`/** The calls on ${name} records. */`, `export interface ${apiName} {`, ...members, '}');
  const factory = `${property}Api`;
  const implementation = [`function ${factory}(http: Http): ${apiName} {`];
  if (transitions.length > 0) {
    implementation.push(
      `  const transitions: { [T in keyof ${name}TransitionArgs]: (id: string, ...args: ${name}TransitionArgs[T]) => Promise<${name}> } = {`,
      ...transitions.map((t) => `    ${quoteKey(t.name)}: ${t.call},`),
      '  };',
    );
  }
  implementation.push('  return {', ...code);
  if (transitions.length > 0) {
    implementation.push(
      `    transition: (id, name, ...args) => (transitions[name] as (id: string, ...args: unknown[]) => Promise<${name}>)(id, ...args),`,
    );
  }
  implementation.push('  };', '}');
  return {
    entity,
    routes,
    property,
    apiName,
    factory,
    hasList: routes.some((r) => r.action.kind === 'list' && r.params.length === 0),
    hasGet: routes.some((r) => r.action.kind === 'get' && r.params.length === 1),
    types,
    code: implementation,
  };
}

/** `TicketCreate` and `TicketUpdate`: what a create and an update send, field by field. */
function inputTypes(entity: Entity): string[] {
  const name = entity.name;
  const line = (field: Field, optional: boolean, nullable: boolean) => {
    // A file field also takes files to upload (the call then goes as multipart/form-data).
    const upload = field.type.kind === 'file' ? (field.type.maxFiles > 1 ? ' | readonly Blob[]' : ' | Blob') : '';
    const type = `${tsFieldType(field.type)}${upload}`;
    return `  ${quoteKey(field.name)}${optional ? '?' : ''}: ${nullable ? `${type} | null` : type};`;
  };
  // As the server's create schema: a required field without a default must be sent (a file
  // field's files come as an upload beside the record, so it is never required here).
  const mustSend = (f: Field) => f.required && f.default === null && f.type.kind !== 'file';
  return [
    `/** What creating ${article(name)} sends; a field left out takes its default. */`,
    `export interface ${name}Create {`,
    ...entity.fields.map((f) => line(f, !mustSend(f), !f.required)),
    '}',
    '',
    `/** What updating ${article(name)} sends: the fields to change; null empties one that is not required. */`,
    `export interface ${name}Update {`,
    ...entity.fields.map((f) => line(f, true, !f.required)),
    '}',
    '',
  ];
}

/** `TicketFilter` and `TicketSort`, from what the server's list accepts (`ListParams`). */
function listTypes(entity: Entity, hasStates: boolean, list: ListParams): string[] {
  const name = entity.name;
  const filters = [...list.filterable].map(([field, type]) => {
    const value = field === 'state' && hasStates ? `${name}State` : filterValue(entity, field, type);
    let shape: string;
    if (type.kind === 'choice') shape = `${value} | readonly ${value.includes('|') ? `(${value})` : value}[]`;
    else if (type.kind === 'text') shape = `${value} | { contains: ${value} }`;
    else if (isRangedFilter(type.kind)) shape = `${value} | { from?: ${value}; to?: ${value} }`;
    else shape = value;
    return `  ${quoteKey(field)}?: ${shape};`;
  });
  const sorts = [...list.sortable.keys()];
  return [
    `/**`,
    ` * What a list of ${name} records may be filtered by: a value; any of several for a choice;`,
    ' * `{ contains }` for text; `{ from, to }` (either or both) for numbers, days and instants.',
    ' */',
    `export interface ${name}Filter {`,
    ...filters,
    '}',
    '',
    `/** A field to sort ${name} records by, ascending; \`-field\` for descending. */`,
    `export type ${name}Sort = ${tsUnion(sorts.flatMap((s) => [s, `-${s}`]))};`,
    '',
  ];
}

function filterValue(entity: Entity, field: string, type: FilterType): string {
  switch (type.kind) {
    case 'choice': {
      const declared = entity.fields.find((f) => f.name === field);
      return declared ? tsFieldType(declared.type) : tsUnion(type.values);
    }
    case 'integer':
    case 'decimal':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'string';
  }
}

/** The type of a call's body, or null when it takes none. */
function bodyType(entity: string, route: Route): string | null {
  if (!route.body) return null;
  const whole = route.action.kind === 'create' || route.method === 'PUT';
  const base = `${entity}${whole ? 'Create' : 'Update'}`;
  if (route.body.component !== null) return base;
  const fields = Object.keys(route.body.schema.properties ?? {});
  return fields.length === 0 ? 'Record<string, never>' : `Pick<${base}, ${tsUnion(fields)}>`;
}

/** The path as a template literal, each `:param` an encoded argument. */
function pathExpression(route: Pick<Route, 'path' | 'params'>): string {
  if (route.params.length === 0) return `'${route.path}'`;
  return `\`${route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, p: string) => `\${segment(${safeName(p)})}`)}\``;
}

/** What a call does, when the spec says nothing of it. */
const KIND_WORDS: Record<Route['action']['kind'], string> = {
  list: 'the records, a page at a time',
  get: 'one record',
  create: 'creates a record',
  update: 'changes a record',
  delete: 'deletes a record',
  history: "the record's history, oldest first",
  transition: 'takes a transition',
  code: 'a custom call',
};

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** `a Ticket`, `an Article`. */
function article(name: string): string {
  return `${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name}`;
}

function safeName(param: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(param) ? param : `_${param.replace(/\W/g, '_')}`;
}

function quoteKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key).replaceAll('"', "'");
}

function pascal(kebab: string): string {
  return kebab
    .split(/[-\s]+/)
    .filter((w) => w !== '')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

function camel(kebab: string): string {
  const p = pascal(kebab);
  return p.charAt(0).toLowerCase() + p.slice(1);
}

/** The types every client has, whatever the spec. */
const RUNTIME_TYPES = `/** One page of a list; \`next\` is the cursor of the next page, null on the last. */
export interface Page<T> {
  items: T[];
  next: string | null;
  /** The number of matching records, when the list was asked to \`count\`. */
  total?: number;
}

/** What a list call takes besides its filters: \`q\` searches the text fields. */
export interface ListOptions<Filter, Sort> {
  filter?: Filter;
  sort?: Sort;
  q?: string;
  /** Records per page (PAGE_SIZE when not given). */
  limit?: number;
  /** The \`next\` of the previous page, with the same filter and sort. */
  cursor?: string;
  /** Also answer \`total\`. */
  count?: boolean;
}

/** One entry of a record's history, oldest first. */
export interface HistoryEntry<State> {
  at: string;
  /** Who made the change; left out for a role that does not see who made records. */
  by?: string | null;
  action: 'create' | 'update' | 'delete' | 'transition';
  transition: string | null;
  from: State | null;
  to: State | null;
  changes: Record<string, unknown>;
  before?: Record<string, unknown>;
  how?: 'import';
}

/** Who is signed in. */
export interface User {
  id: string;
  email: string;
  name: string;
  roles: Role[];
  createdAt: string;
}

/** A change to a record the signed-in user may read; it carries no field values: get the record. */
export interface Change {
  entity: EntityName;
  id: string;
  kind: 'create' | 'update' | 'transition' | 'delete';
  at: string;
}

/** One field's failure in a refusal: its catalogue code and message. */
export interface FieldError {
  /** Null for a rule about the whole record. */
  field: string | null;
  code: ErrorCode;
  message: string;
}

/** A refusal as the server answers it: application/problem+json (RFC 9457) with a catalogue code. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  instance: string;
  requestId?: string;
  /** For VALIDATION_FAILED, NOT_UNIQUE and UNKNOWN_REFERENCE: the fields at fault. */
  errors?: FieldError[];
  /** Where the spec writes what refused. */
  spec?: { line: number; text: string };
}

/** Thrown by a call the server refuses: \`code\` is one of the catalogue's, \`problem\` the whole answer. */
export class NinepointError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly problem: Problem;
  constructor(problem: Problem) {
    super(problem.detail || problem.title);
    this.name = 'NinepointError';
    this.code = problem.code;
    this.status = problem.status;
    this.problem = problem;
  }
}

export interface ClientOptions {
  /** Where the app is served, e.g. \`https://helpdesk.example.org\`. */
  baseUrl: string;
  /** An API token (\`ninepoint tokens create\`), sent as \`Authorization: Bearer …\`. */
  token?: string;
  /** The \`fetch\` to call; the global one by default. */
  fetch?: typeof fetch;
}

/** A second factor for \`signIn\`, when the account has two-factor sign-in on. */
export type SecondFactor = { code: string } | { recoveryCode: string };

export interface EventsOptions {
  /** The stream is open (again, after a reconnect: changes made meanwhile were missed). */
  onOpen?: () => void;
  /** A new in-app notice for the signed-in user. */
  onNotification?: (notice: { at: string }) => void;
  /** The stream failed; it is opened again after a few seconds, unless it was refused (a NinepointError). */
  onError?: (error: unknown) => void;
}

/** An open stream of live events; \`close\` ends it. */
export interface EventStream {
  close(): void;
}`;

const CLIENT_MEMBERS = `  /** Signs in with email and password: the calls that follow are the user's (a session). */
  signIn(email: string, password: string, secondFactor?: SecondFactor): Promise<User>;
  /** Ends the session. */
  signOut(): Promise<void>;
  /** Who is signed in (the token's user, or the session's), or null for a visitor. */
  me(): Promise<User | null>;
  /**
   * Live events (\`GET /api/events\`): \`onChange\` hears of each record the user may read as it is
   * created, changed, moved on or deleted. EventSource in a browser signed in by cookie; a
   * streamed fetch elsewhere (Node, or with a token).
   */
  events(onChange: (change: Change) => void, options?: EventsOptions): EventStream;
  /** Any other call of the app (an import, the user directory): its JSON answer. */
  request<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;`;

/** The code every client has: the HTTP calls, the session outside a browser, the event stream. */
const RUNTIME_CODE = `// What follows is the same in every client.

interface CallOptions {
  query?: URLSearchParams;
  body?: unknown;
  accept?: string;
  signal?: AbortSignal;
}

function segment(value: string): string {
  return encodeURIComponent(value);
}

function listQuery(options: ListOptions<object, string> | undefined): URLSearchParams {
  const query = new URLSearchParams();
  if (!options) return query;
  const { filter, ...rest } = options;
  for (const [key, value] of Object.entries(rest)) if (value !== undefined) query.append(key, String(value));
  for (const [field, value] of Object.entries(filter ?? {}) as [string, unknown][]) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const one of value) query.append(\`filter[\${field}]\`, String(one));
    else if (value !== null && typeof value === 'object') {
      for (const [part, one] of Object.entries(value)) {
        if (one !== undefined) query.append(\`filter[\${field}][\${part}]\`, String(one));
      }
    } else query.append(\`filter[\${field}]\`, String(value));
  }
  return query;
}

/**
 * A create, update or transition holding files (\`Blob\` or \`File\` values of file fields) as the server's
 * multipart write takes it: the other fields as the \`record\` part (JSON), a part per file named
 * by its field; undefined when it holds none (it goes as JSON).
 */
function uploadForm(body: unknown): FormData | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const isFile = (value: unknown): value is Blob => typeof Blob !== 'undefined' && value instanceof Blob;
  const files = new Map<string, Blob[]>();
  const record: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    if (isFile(value)) files.set(field, [value]);
    else if (Array.isArray(value) && value.length > 0 && value.every(isFile)) files.set(field, value);
    else record[field] = value;
  }
  if (files.size === 0) return undefined;
  const form = new FormData();
  form.append('record', JSON.stringify(record));
  for (const [field, list] of files) for (const file of list) form.append(field, file);
  return form;
}

/** Session cookies the server sets: the names whose values a non-browser client sends back. */
const SESSION_COOKIES = /^(__Host-)?np_/;

class Http {
  readonly base: string;
  readonly origin: string;
  readonly token: string | undefined;
  readonly fetch: typeof fetch;
  /**
   * Outside a browser nothing keeps cookies: the session's are kept here and sent back with the
   * app's own origin, as its pages would. In a browser \`getSetCookie\` shows none, and the browser
   * keeps them.
   */
  readonly cookies = new Map<string, string>();

  constructor(options: ClientOptions) {
    this.base = options.baseUrl.replace(/\\/+$/, '');
    this.origin = new URL(this.base).origin;
    this.token = options.token;
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  async call<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
    const response = await this.send(method, path, options);
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  async send(method: string, path: string, options: CallOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: options.accept ?? 'application/json' };
    if (this.token !== undefined) headers.authorization = \`Bearer \${this.token}\`;
    if (this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([name, value]) => \`\${name}=\${value}\`).join('; ');
      headers.origin = this.origin;
    }
    const form = uploadForm(options.body);
    // A multipart body's content-type (with its boundary) is fetch's to write.
    if (options.body !== undefined && !form) headers['content-type'] = 'application/json';
    const search = options.query?.toString() ?? '';
    const query = search === '' ? '' : \`?\${search}\`;
    const response = await this.fetch(\`\${this.base}\${path}\${query}\`, {
      method,
      headers,
      ...(options.body !== undefined ? { body: form ?? JSON.stringify(options.body) } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    this.keepCookies(response);
    if (!response.ok) throw await refusal(response);
    return response;
  }

  keepCookies(response: Response): void {
    const set = typeof response.headers.getSetCookie === 'function' ? response.headers.getSetCookie() : [];
    for (const cookie of set) {
      const [pair = '', ...attributes] = cookie.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (at < 0 || !SESSION_COOKIES.test(name)) continue;
      const expired = attributes.some((a) => {
        const [key = '', when = ''] = a.trim().split('=');
        if (key.toLowerCase() === 'max-age') return Number(when) <= 0;
        return key.toLowerCase() === 'expires' && Date.parse(a.trim().slice(8)) <= Date.now();
      });
      if (value === '' || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

/** The NinepointError of a refused call; an answer that is no problem (a proxy's page) is told as INTERNAL_ERROR. */
async function refusal(response: Response): Promise<NinepointError> {
  const text = await response.text();
  try {
    const problem = JSON.parse(text) as Problem;
    if (typeof problem.code === 'string') return new NinepointError(problem);
  } catch {
    // Not JSON: told below.
  }
  return new NinepointError({
    type: 'about:blank',
    title: response.statusText || 'Error',
    status: response.status,
    detail: \`The server answered \${response.status} without a problem: \${text.slice(0, 200)}\`,
    code: 'INTERNAL_ERROR',
    instance: response.url,
  });
}

function sessionCalls(http: Http): Pick<Client, 'signIn' | 'signOut' | 'me' | 'events' | 'request'> {
  return {
    async signIn(email, password, secondFactor) {
      const response = await http.send('POST', '/api/auth/sign-in', { body: { email, password } });
      const answer = (await response.json()) as { user?: User };
      if (answer.user) return answer.user;
      if (!secondFactor) {
        throw new NinepointError({
          type: 'about:blank',
          title: 'Unauthorized',
          status: 401,
          detail: 'This account signs in with a second factor: give signIn its code.',
          code: 'TWO_FACTOR_FAILED',
          instance: '/api/auth/sign-in',
        });
      }
      return (await http.call<{ user: User }>('POST', '/api/auth/sign-in/two-factor', { body: secondFactor })).user;
    },
    async signOut() {
      await http.call<void>('POST', '/api/auth/sign-out');
      http.cookies.clear();
    },
    async me() {
      return (await http.call<{ user: User | null }>('GET', '/api/auth/me')).user;
    },
    events(onChange, options = {}) {
      return openEvents(http, onChange, options);
    },
    request(method, path, body) {
      return http.call(method, path, body === undefined ? {} : { body });
    },
  };
}

interface BrowserEventSource {
  addEventListener(type: string, listener: (event: { data?: string }) => void): void;
  close(): void;
}

function openEvents(http: Http, onChange: (change: Change) => void, options: EventsOptions): EventStream {
  const dispatch = (type: string, data: string) => {
    if (type === 'change') onChange(JSON.parse(data) as Change);
    else if (type === 'notification') options.onNotification?.(JSON.parse(data) as { at: string });
  };
  const Source = (globalThis as { EventSource?: new (url: string) => BrowserEventSource }).EventSource;
  if (Source && http.token === undefined && http.cookies.size === 0) {
    // A browser signed in by its cookie: EventSource sends it and reconnects by itself.
    const source = new Source(\`\${http.base}/api/events\`);
    for (const type of ['change', 'notification']) {
      source.addEventListener(type, (event) => dispatch(type, event.data ?? ''));
    }
    source.addEventListener('open', () => options.onOpen?.());
    source.addEventListener('error', (event) => options.onError?.(event));
    return { close: () => source.close() };
  }
  const stop = new AbortController();
  void (async () => {
    let retry = 3000;
    while (!stop.signal.aborted) {
      try {
        const response = await http.send('GET', '/api/events', { accept: 'text/event-stream', signal: stop.signal });
        if (response.status === 200 && response.body) {
          options.onOpen?.();
          retry = await readEvents(response.body, dispatch, retry);
        }
      } catch (error) {
        if (stop.signal.aborted) return;
        options.onError?.(error);
        if (error instanceof NinepointError && error.status !== 429 && error.status < 500) return;
      }
      if (stop.signal.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, retry));
    }
  })();
  return { close: () => stop.abort() };
}

/** Reads a text/event-stream until it ends; answers the last \`retry\` the server asked for. */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  dispatch: (type: string, data: string) => void,
  retry: number,
): Promise<number> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let type = '';
  let data: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return retry;
    buffer += decoder.decode(value, { stream: true });
    const lines = buffer.split(/\\r\\n|\\r|\\n/);
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') {
        if (data.length > 0) dispatch(type || 'message', data.join('\\n'));
        type = '';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') type = text;
      else if (field === 'data') data.push(text);
      else if (field === 'retry' && /^\\d+$/.test(text)) retry = Number(text);
    }
  }
}`;
