import {
  type CelUser,
  defaultValueAt,
  type Entity,
  type Field,
  type FieldTypeOfKind,
  NO_USER,
  type RuntimeSettings,
  type SpecLine,
  type StateMachine,
  specLine,
  typeWords,
  USER_ENTITY,
} from '@ninepoint/spec';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createAjv } from '../compile/ajv.ts';
import type { CompiledApp } from '../compile/compiled-app.ts';
import type { EntityLogic, HiddenFields, LogicCheck } from '../compile/entity-logic.ts';
import type { JsonSchema } from '../compile/json-schemas.ts';
import type { EntityPermissions } from '../compile/permissions.ts';
import { type FieldError, type ProblemCatalogue, ProblemError } from '../compile/problems.ts';
import type { ApiRecord, TxReader, Value, WriteEffects } from '../compile/record-types.ts';
import type { Route } from '../compile/route-table.ts';
import { covers, coversEveryRecord, type Grant } from '../compile/row-access.ts';
import { fileIdsOf, isFileField, RecordFiles, type Upload } from '../files/index.ts';
import type { LocalChange } from '../live/index.ts';
import type { RequestActor } from '../people/index.ts';
import { replayHistory } from '../store/history.ts';
import { type SettledReads, settle } from '../store/settle-reads.ts';
import type {
  BatchCreate,
  EntityRecords,
  HistoryEntry,
  Refusal,
  Store,
  StoredRecord,
  WriteCheck,
  WriteContext,
} from '../store/store.ts';
import { UUID, uuidv7 } from '../store/uuidv7.ts';
import { etagOf, ifMatchVersions } from './etag.ts';
import { FieldErrors } from './field-errors.ts';
import { encodeCursor, parseListQuery, type RawQuery } from './list-query.ts';
import { hiddenFieldsOf, visibleEntry, visibleRecord } from './read-fields.ts';
import { groupableFields, summableFields, summaryRoutes } from './summary-routes.ts';
import { effectFieldsCheck, withEffectFields } from './transition-effects.ts';
import { storedText } from './values.ts';

/** The longest id a NOT_FOUND answer repeats in full. */
const ID_ECHO_LENGTH = 64;
/** In a `u` regex a surrogate pair is one code point: this matches only unpaired halves. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
/** The body schema of a call that takes none: nothing but `{}`. */
const NO_BODY: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };

/** What every handler of one entity's calls needs, worked out once at start-up. */
interface EntityContext {
  entity: Entity;
  machine: StateMachine | undefined;
  records: EntityRecords;
  /** Every entity's records, for the chains of `own via`. */
  store: Store;
  /** The rules, guards and limits its writes check, inside their transactions. */
  logic: EntityLogic | undefined;
  /** What point 6 lets each actor do with these records. */
  permissions: EntityPermissions;
  /** Its fields referring to another entity (not `User`), with what point 6 lets each actor read of that entity. */
  references: readonly { field: string; entity: string; permissions: EntityPermissions }[];
  catalogue: ProblemCatalogue;
  settings: Readonly<RuntimeSettings>;
  /** The path of one record (`/api/books/:id`) for `Location`; the get call's when there is one. */
  recordPath: (id: string) => string;
  /** Told of each write once it has committed (live updates); not of a write that changed nothing. */
  committed: Committed;
  /** The server's clock: writes are stamped with it, as `now` in guards and rules reads it. */
  now: () => number;
  /** Checks what its transitions set against the fields' rules; null when they set nothing. */
  effectFields: ((set: WriteEffects) => void) | null;
  /** The spec line of each field (point 3's row), compiled once: a field's refusal names it. */
  fieldLine: (field: string) => SpecLine | null;
  /** The spec line of each transition by name (point 4's row), which its history entries name. */
  transitionLines: ReadonlyMap<string, SpecLine>;
  /** Uploads and the files' lives, when the entity has file fields. */
  files: RecordFiles | null;
  /** Runs each write (after an upload's files are stored), with the call's `before` hooks. */
  around: WriteAround;
}

/** A committed write: the record after it, or before it for a delete. */
export type Committed = (change: LocalChange) => void;

/**
 * How a write is run: `work` makes it and answers the call. The code feature's runs the call's
 * `before` hooks with it, in one transaction; by default it is just run.
 */
export type WriteAround = (
  request: FastifyRequest,
  reply: FastifyReply,
  work: () => Promise<unknown>,
) => Promise<unknown>;

/** Runs a write as it is: the records' default when no feature wraps writes. */
export const justRun: WriteAround = (_request, _reply, work) => work();

/**
 * Serves the calls of the route table: list, get, create, update, delete, history and transitions.
 * Every write runs its entity's compiled checks (rules, guards, limits; see `compile/entity-logic.ts`)
 * inside its transaction, with the permission checks that depend on the record (`own`), so that
 * what is checked is what is written. The rest of point 6 is checked before the record is read:
 *
 * - No access to the entity at all: NOT_SIGNED_IN for a visitor, FORBIDDEN for a user.
 * - A record the actor may not read (`read own`, not theirs) is NOT_FOUND, whatever the call:
 *   indistinguishable from a record that does not exist. Lists hold only the readable records.
 * - A record the actor may read but not change, delete or move on: FORBIDDEN, or NOT_SIGNED_IN
 *   for a visitor (signing in may grant it). A user with `own` access may not make a record no
 *   longer theirs.
 * - A field the actor may not see (`read except (speaker)`) is never sent to them: not in a
 *   record, a list, a history entry or a refusal's message; lists cannot be sorted, filtered or
 *   searched by it (`read-fields.ts`). An update that sends such a field is refused whatever its
 *   value, so that it cannot be used to guess the value.
 */
export function registerEntityRoutes(
  app: FastifyInstance,
  compiled: CompiledApp,
  store: Store,
  committed: Committed = () => {},
  now: () => number = () => Date.now(),
  files: RecordFiles | null = null,
  around: WriteAround = justRun,
): void {
  const { routeTable, model } = compiled;
  const contextOf = entityContexts(compiled, store, committed, now, files, around);
  for (const route of routeTable.routes) {
    const context = contextOf(route.action.entity);
    const method = route.method;
    const action = route.action;
    switch (action.kind) {
      case 'list':
        app.route({ method, url: route.path, handler: listHandler(route, context) });
        break;
      case 'get':
        app.route({ method, url: route.path, handler: getHandler(route, context) });
        break;
      case 'history':
        app.route({ method, url: route.path, handler: historyHandler(route, context) });
        break;
      case 'create':
      case 'update':
      case 'transition':
        app.route({
          method,
          url: route.path,
          schema: { body: route.body?.schema ?? NO_BODY },
          // Schema errors reach the handler, which answers them field by field.
          attachValidation: true,
          handler:
            action.kind === 'transition'
              ? aroundHandler(context, transitionHandler(route, context, action.transition))
              : action.kind === 'create'
                ? createHandler(route, context)
                : updateHandler(route, context),
        });
        break;
      case 'delete':
        app.route({ method, url: route.path, handler: aroundHandler(context, deleteHandler(route, context)) });
        break;
    }
  }
  // Dashboards' figures: beside each list, unless the spec's own calls take that path.
  for (const { entity, path, list } of summaryRoutes(routeTable.routes, model)) {
    app.route({ method: 'GET', url: path, handler: summaryHandler(list, contextOf(entity)) });
  }
}

/** A handler whose whole write runs through the context's `around` (no upload comes first). */
function aroundHandler(context: EntityContext, handler: Handler): Handler {
  return (request, reply) => context.around(request, reply, async () => handler(request, reply));
}

/**
 * The create path of one entity for a caller other than its create call (an import): the same
 * permission, the same body checks, the same record and the same check in the store's transaction.
 */
export interface RecordCreator {
  readonly entity: Entity;
  /** The create call's path (`/api/books`). */
  readonly path: string;
  readonly records: EntityRecords;
  /** NOT_SIGNED_IN or FORBIDDEN when the actor may not create these records. */
  authorize(actor: RequestActor): void;
  /**
   * A body (field values as JSON would hold them) checked as the create call checks its body
   * (JSON Schema, fields the actor may set, values), made the write the call would make; throws
   * the problem the call would answer. `how` is kept in the history entry.
   */
  plan(actor: RequestActor, body: unknown, ms: number, how?: WriteContext['how']): BatchCreate;
  /** A store's refusal as the create call answers it. */
  refusal(refusal: Refusal, id: string): ProblemError;
  /** Tells live updates of a committed create, as the create call does. */
  committed(record: ApiRecord, at: string): void;
}

/** A `RecordCreator` per entity the spec's calls create (`POST /api/books`), by entity name. */
export function recordCreators(
  compiled: CompiledApp,
  store: Store,
  committed: Committed = () => {},
  now: () => number = () => Date.now(),
  files: RecordFiles | null = null,
): Map<string, RecordCreator> {
  const contextOf = entityContexts(compiled, store, committed, now, files, justRun);
  const creators = new Map<string, RecordCreator>();
  for (const route of compiled.routeTable.routes) {
    if (route.action.kind !== 'create' || creators.has(route.action.entity)) continue;
    const context = contextOf(route.action.entity);
    const schema = route.body?.schema ?? NO_BODY;
    const errors = new FieldErrors(context.entity, context.catalogue);
    let validate: ValidateFunction | undefined;
    creators.set(context.entity.name, {
      entity: context.entity,
      path: route.path,
      records: context.records,
      authorize: (actor) => authorizeCreate(actor, context),
      plan: (actor, body, ms, how) => {
        validate ??= createAjv().compile(schema);
        if (!validate(body)) throw errors.problem(validate.errors ?? [], body);
        return planCreate(actor, body as Record<string, unknown>, ms, context, errors, how);
      },
      refusal: (refusal, id) => refused(refusal, context, id),
      committed: (record, at) =>
        context.committed({ entity: context.entity.name, id: String(record.id), kind: 'create', at, record }),
    });
  }
  return creators;
}

/** Each entity's `EntityContext`, made on first use and kept. */
function entityContexts(
  compiled: CompiledApp,
  store: Store,
  committed: Committed,
  now: () => number,
  files: RecordFiles | null,
  around: WriteAround,
): (name: string) => EntityContext {
  const { model, catalogue, settings, routeTable } = compiled;
  const contexts = new Map<string, EntityContext>();
  const machineOf = (name: string) => model.machines.find((m) => m.entity === name);
  const contextOf = (name: string): EntityContext => {
    const known = contexts.get(name);
    if (known) return known;
    const entity = model.entities.find((e) => e.name === name);
    if (!entity) throw new Error(`The route table names entity ${name}, which the model does not have.`);
    const routes = routeTable.routes.filter((r) => r.action.entity === name);
    const get = routes.find((r) => r.action.kind === 'get');
    const base = routes.find((r) => r.action.kind === 'list' || r.action.kind === 'create')?.path;
    const fieldLines = new Map(entity.fields.map((f) => [f.name, specLine(model, f.span)]));
    const fieldLine = (field: string) => fieldLines.get(field) ?? null;
    const transitionLines = new Map<string, SpecLine>();
    for (const t of machineOf(name)?.transitions ?? []) {
      const line = specLine(model, t.span);
      if (line) transitionLines.set(t.name, line);
    }
    const context: EntityContext = {
      entity,
      machine: machineOf(name),
      records: store.records(name),
      store,
      logic: compiled.logic.get(name),
      permissions: permissionsOf(compiled, name),
      references: entity.fields.flatMap((f) =>
        f.type.kind === 'reference' && f.type.entity !== USER_ENTITY
          ? [{ field: f.name, entity: f.type.entity, permissions: permissionsOf(compiled, f.type.entity) }]
          : [],
      ),
      catalogue,
      settings,
      recordPath: (id) => (get ? get.path.replace(`:${get.params[0] ?? 'id'}`, id) : `${base ?? `/api/${name}`}/${id}`),
      committed,
      now,
      effectFields: effectFieldsCheck(entity, machineOf(name), compiled.jsonSchemas.get(name), catalogue, fieldLine),
      fieldLine,
      transitionLines,
      files: entity.fields.some(isFileField) ? files : null,
      around,
    };
    contexts.set(name, context);
    return context;
  };
  return contextOf;
}

/**
 * A record as `actor` may read it, through the same checks as its get call: null when the actor
 * may not read the entity or this record (or it does not exist), and without the fields point 6
 * hides from them. The files feature serves a file only from the record it reads this way.
 */
export function recordReader(
  compiled: CompiledApp,
  store: Store,
): (actor: RequestActor, entity: string, id: string) => Promise<ApiRecord | null> {
  return async (actor, entity, id) => {
    const permissions = compiled.permissions.get(entity);
    if (!permissions) return null;
    const grants = permissions.grants(actor, 'read');
    if (grants.length === 0) return null;
    const stored = await store.records(entity).get(id);
    if (!stored) return null;
    const reads: SettledReads = new Map();
    if (!coversEveryRecord(grants)) {
      const covered = await settle((load) => covers(grants, stored.record, actor.userId, load), store, reads);
      if (!covered) return null;
    }
    const hidden = hiddenFieldsOf(permissions, actor);
    if (hidden === null) return stored.record;
    return visibleRecord(stored.record, await settle((load) => hidden(stored.record, load), store, reads));
  };
}

/** The most fields one summary may total. */
const MAX_SUMS = 10;

/** The summary's own parameters; the rest are its list's filters (`filter[…]`, `or[…]`, `q`). */
const SUMMARY_PARAMETERS = new Set(['by', 'sum']);

/**
 * Counts (and totals number fields of) the records the actor may read, in the database: in all, or
 * per value of the state, a choice or a boolean field (`?by=state&sum=amount`), over the records
 * its list call's filters keep (`filter[assignee]=…`, `or[1][…]`, `q`), read as that list reads
 * them. Fields the actor may not read on every record they may list cannot be grouped, summed or
 * filtered by: INVALID_PAYLOAD, as for a field that does not exist.
 */
function summaryHandler(list: Route, context: EntityContext): Handler {
  const { entity, machine, permissions, records, settings } = context;
  const params = list.list;
  if (!params) throw new Error(`${list.method} ${list.path} lists without list parameters.`);
  return async (request, reply) => {
    const { actor } = request;
    const grants = readGrants(actor, context);
    const hidden = permissions.unsearchable(actor);
    const query = request.query as RawQuery;
    const filtering: RawQuery = {};
    for (const [name, value] of Object.entries(query)) {
      if (SUMMARY_PARAMETERS.has(name)) continue;
      if (name !== 'q' && !name.startsWith('filter[') && !name.startsWith('or[')) {
        const shown = /^[A-Za-z0-9_]{1,40}$/.test(name) ? ` not ${name}` : '';
        throw invalidSummary(`the parameters are by, sum, q, filter[…] and or[…],${shown || ' not that one'}`);
      }
      filtering[name] = value;
    }
    // The list's own reading of its filters: the same names, values, refusals and hidden fields.
    const { filters, search } = parseListQuery(filtering, params, settings, hidden, actor.userId);
    const groupable = groupableFields(entity, machine).filter((name) => !hidden.has(name));
    const summable = new Set(summableFields(entity).filter((name) => !hidden.has(name)));
    const numbers = entity.fields.filter((f) => summable.has(f.name));
    const by = query.by ?? null;
    if (by !== null && (typeof by !== 'string' || !groupable.includes(by))) {
      throw invalidSummary(`by must be one of ${groupable.join(', ') || '(none)'}`);
    }
    const sums = query.sum === undefined ? [] : Array.isArray(query.sum) ? query.sum : [query.sum];
    const fields = sums.map((name) => numbers.find((f) => f.name === name));
    if (fields.some((f) => f === undefined) || new Set(sums).size !== sums.length || sums.length > MAX_SUMS) {
      throw invalidSummary(
        `sum takes up to ${MAX_SUMS} different number fields of ${entity.name}: ${numbers.map((f) => f.name).join(', ') || '(none)'}`,
      );
    }
    const summary = await records.summary({
      filters,
      search,
      owner: coversEveryRecord(grants) ? null : { grants, userId: ownerId(actor) },
      by,
      sums,
    });
    // The store answers sums as stored: a decimal's with its places, on every database.
    return reply.send({
      count: summary.count,
      sums: summary.sums,
      ...(summary.groups ? { groups: summary.groups } : {}),
    });
  };
}

function invalidSummary(detail: string): ProblemError {
  return new ProblemError('INVALID_PAYLOAD', { detail });
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

function listHandler(route: Route, context: EntityContext): Handler {
  const { records, settings, permissions } = context;
  const params = route.list;
  if (!params) throw new Error(`${route.method} ${route.path} lists without list parameters.`);
  return async (request, reply) => {
    const { actor } = request;
    const grants = readGrants(actor, context);
    const all = coversEveryRecord(grants);
    // What some record the list may hold hides: sorting, filtering or searching by it would tell its values.
    const unsearchable = permissions.unsearchable(actor);
    const query = parseListQuery(request.query as RawQuery, params, settings, unsearchable, actor.userId);
    if (!all) query.owner = { grants, userId: ownerId(actor) };
    const page = await records.list(query);
    const sort = `${query.sort.descending ? '-' : ''}${query.sort.column}`;
    const hidden = hiddenOf(actor, context);
    const items = hidden === null ? page.records : await visibleAll(page.records, hidden, context);
    return reply.send({
      items,
      next: page.next ? encodeCursor(sort, page.next) : null,
      ...(page.total !== undefined ? { total: page.total } : {}),
    });
  };
}

/**
 * Not an async function: on SQLite a record is read at once, and a read every grant covers is
 * answered without a promise (Fastify catches what the handler throws).
 */
function getHandler(route: Route, context: EntityContext): (request: FastifyRequest, reply: FastifyReply) => unknown {
  const answer = (
    request: FastifyRequest,
    reply: FastifyReply,
    grants: readonly Grant[],
    id: string,
    stored: StoredRecord | undefined,
  ) => {
    if (!stored) throw notFound(context, id);
    const { actor } = request;
    const hidden = hiddenOf(actor, context);
    // Most reads may see every record whole: nothing to read along a chain, nothing to await.
    if (hidden === null && coversEveryRecord(grants)) {
      return reply.header('etag', etagOf(stored.version)).send(stored.record);
    }
    return answerSettled(request, reply, grants, id, stored, hidden);
  };
  const answerSettled = async (
    request: FastifyRequest,
    reply: FastifyReply,
    grants: readonly Grant[],
    id: string,
    stored: StoredRecord,
    hidden: HiddenFields | null,
  ) => {
    const reads: SettledReads = new Map();
    if (!(await readable(grants, stored.record, request.actor, context, reads))) throw notFound(context, id);
    return reply.header('etag', etagOf(stored.version)).send(await visible(stored.record, hidden, context, reads));
  };
  return (request, reply) => {
    const grants = readGrants(request.actor, context);
    const id = recordId(request, route, context);
    const stored = context.records.get(id);
    if (stored instanceof Promise) return stored.then((found) => answer(request, reply, grants, id, found));
    return answer(request, reply, grants, id, stored);
  };
}

function historyHandler(route: Route, context: EntityContext): Handler {
  return async (request, reply) => {
    const grants = readGrants(request.actor, context);
    const id = recordId(request, route, context);
    const items = withTransitionLines(await context.records.history(id), context.transitionLines);
    // A deleted record's history stays readable; an id never used has none.
    if (items.length === 0) throw notFound(context, id);
    const hidden = hiddenOf(request.actor, context);
    if (!coversEveryRecord(grants) || hidden !== null) {
      // The record as it is, or as it was last when deleted: its history holds every change.
      const current = (await context.records.get(id))?.record ?? replayHistory(items);
      const reads: SettledReads = new Map();
      if (!(await readable(grants, current, request.actor, context, reads))) throw notFound(context, id);
      if (hidden !== null) {
        const unseen = await settle((load) => hidden(current, load), context.store, reads);
        // An update of hidden fields alone is no entry at all to them: an empty one would tell of it.
        const told = items.filter(
          (entry) => entry.action !== 'update' || Object.keys(entry.changes).some((field) => !unseen.has(field)),
        );
        return reply.send({ items: told.map((entry) => visibleEntry(entry, unseen)) });
      }
    }
    return reply.send({ items });
  };
}

/** Each entry of a transition the spec still declares, with that transition's line (`spec`). */
function withTransitionLines(items: HistoryEntry[], lines: ReadonlyMap<string, SpecLine>): HistoryEntry[] {
  if (lines.size === 0) return items;
  return items.map((entry) => {
    const spec = entry.transition === null ? undefined : lines.get(entry.transition);
    return spec ? { ...entry, spec } : entry;
  });
}

/** The file fields a create or update call takes: those its payload names (all, unless point 7 names some). */
function fileFieldsTaken(route: Route, entity: Entity): ReadonlySet<string> {
  const properties = route.body?.schema.properties ?? {};
  return new Set(entity.fields.filter((f) => isFileField(f) && Object.hasOwn(properties, f.name)).map((f) => f.name));
}

function createHandler(route: Route, context: EntityContext): Handler {
  const { entity, records } = context;
  const errors = new FieldErrors(entity, context.catalogue, context.fieldLine);
  const takes = fileFieldsTaken(route, entity);
  return async (request, reply) => {
    const { actor } = request;
    authorizeCreate(actor, context);
    const ms = context.now();
    const id = uuidv7(ms);
    // Files come first in a multipart create: stored (pending) before the record is written, and
    // removed again when it is refused, so a refused record leaves no file behind.
    const upload = context.files?.isUpload(request) ? await context.files.receive(request, entity, id, takes) : null;
    try {
      return await context.around(request, reply, () => create(request, reply, id, ms, upload));
    } catch (error) {
      await upload?.discard();
      throw error;
    }
  };

  async function create(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    ms: number,
    upload: Upload | null,
  ): Promise<unknown> {
    const { actor } = request;
    const body = upload ? uploadedBody(request, upload, errors) : readBody(request, errors, route.body === null);
    const write = planCreate(actor, body, ms, context, errors, undefined, id, upload);
    const { record } = write;
    const outcome = await records.create(record, write.context, write.check);
    if (!outcome.ok) throw refused(outcome.refusal, context, String(record.id));
    await context.files?.settle(entity, null, outcome.stored.record);
    context.committed({
      entity: entity.name,
      id: String(record.id),
      kind: 'create',
      at: write.context.at,
      by: actor.userId,
      record: outcome.stored.record,
    });
    return reply
      .code(201)
      .header('location', context.recordPath(String(record.id)))
      .header('etag', etagOf(outcome.stored.version))
      .send(await visible(outcome.stored.record, hiddenOf(actor, context), context));
  }
}

/** Refuses an actor who may not create the entity's records (nor take its creating transition). */
function authorizeCreate(actor: RequestActor, context: EntityContext): void {
  const creating = context.machine?.transitions.find((t) => t.creates);
  if (
    !context.permissions.mayCreate(actor) ||
    (creating && context.permissions.transitionAccess(actor, creating) === 'none')
  ) {
    throw denied(actor, context);
  }
}

/**
 * A create's body (its schema passed) made the write the store makes: the fields the actor may
 * set (FORBIDDEN for others), defaults, values as stored (VALIDATION_FAILED), the new record with
 * its system fields and initial state, and the check the store runs in the transaction (rules,
 * the creating transition's guard, limits, with the acting user). Throws the call's problem.
 */
function planCreate(
  actor: RequestActor,
  body: Record<string, unknown>,
  ms: number,
  context: EntityContext,
  errors: FieldErrors,
  how?: WriteContext['how'],
  id: string = uuidv7(ms),
  upload: Upload | null = null,
): BatchCreate {
  const { entity, machine } = context;
  const at = new Date(ms).toISOString();
  const settable = context.permissions.settable(actor, 'create');
  const values: Record<string, Value> = {};
  const failures: FieldError[] = [];
  const notSettable: Field[] = [];
  for (const field of entity.fields) {
    if (isFileField(field)) {
      // A new record holds only the files sent with it.
      if (body[field.name] !== undefined && body[field.name] !== null) failures.push(readOnly(field, errors));
      const ids = upload?.files.get(field.name) ?? [];
      if (ids.length > 0 && settable && !settable.has(field.name)) notSettable.push(field);
      values[field.name] = checkValue(field, ids.length > 0 ? ids.join(',') : null, errors, failures);
      continue;
    }
    const given = Object.hasOwn(body, field.name);
    const fallback = defaultValueAt(field.default, at, actor.userId);
    // A field the actor may not set takes its default; sending the default itself is no attempt.
    if (given && settable && !settable.has(field.name) && !sameValue(field, body[field.name] as Value, fallback)) {
      notSettable.push(field);
    }
    const value = given ? (body[field.name] as Value) : fallback;
    values[field.name] = checkValue(field, value, errors, failures);
  }
  if (notSettable.length > 0)
    throw mayNotSet(notSettable, `on a new ${entity.name}`, context.permissions.specLine(actor));
  if (failures.length > 0) throw new ProblemError('VALIDATION_FAILED', {}, { errors: failures });
  const record: ApiRecord = {
    id,
    created_at: at,
    updated_at: at,
    created_by: actor.userId,
    ...(machine ? { state: machine.initial } : {}),
    ...values,
  };
  const check = withUser(context.logic?.create, actor, hiddenOf(actor, context));
  return {
    record,
    context: {
      at,
      by: actor.userId,
      unreadableReferences: unreadableReferences(actor, context),
      ...(how ? { how } : {}),
    },
    ...(check ? { check } : {}),
  };
}

function updateHandler(route: Route, context: EntityContext): Handler {
  const { entity, records } = context;
  const schema = route.body?.schema ?? NO_BODY;
  const errors = new FieldErrors(entity, context.catalogue, context.fieldLine);
  // PUT replaces the fields its payload names (all of them, or a point-7 subset); PATCH sets those given.
  const replace = route.method === 'PUT';
  const fields = entity.fields.filter((f) => Object.hasOwn(schema.properties ?? {}, f.name));
  const takes = fileFieldsTaken(route, entity);
  return async (request, reply) => {
    const { actor } = request;
    const read = readGrants(actor, context);
    const id = recordId(request, route, context);
    const upload = context.files?.isUpload(request) ? await context.files.receive(request, entity, id, takes) : null;
    try {
      return await context.around(request, reply, () => update(request, reply, read, id, upload));
    } catch (error) {
      await upload?.discard();
      throw error;
    }
  };

  async function update(
    request: FastifyRequest,
    reply: FastifyReply,
    read: readonly Grant[],
    id: string,
    upload: Upload | null,
  ): Promise<unknown> {
    const { actor } = request;
    const settable = context.permissions.settable(actor, 'update');
    // A PUT keeps what the actor may not change: they need not (and for a hidden field cannot) send it.
    const kept = replace && settable !== null ? (name: string) => !settable.has(name) : undefined;
    const body = upload
      ? uploadedBody(request, upload, errors, kept)
      : readBody(request, errors, route.body === null, kept);
    const at = new Date(context.now()).toISOString();
    const values: Record<string, Value> = {};
    const failures: FieldError[] = [];
    /** Fields the actor may not change but sent: they must hold what the record holds. */
    const fixed: Field[] = [];
    // Files added to a field that holds several are added to those it holds (`filesAdded`).
    const added = await filesAdded(context, id, upload, body);
    for (const field of fields) {
      const uploaded = upload?.files.get(field.name) ?? [];
      const given = Object.hasOwn(body, field.name);
      const mayChange = settable === null || settable.has(field.name);
      if (isFileField(field)) {
        // A file field changes only when the write names it or uploads to it; PUT keeps it otherwise.
        if (!given && uploaded.length === 0) continue;
        if (!mayChange) fixed.push(field);
        const held = given ? fileIdsOf(body[field.name]) : added.held(field);
        const ids = [...held, ...uploaded];
        values[field.name] = checkValue(field, ids.length > 0 ? ids.join(',') : null, errors, failures);
        continue;
      }
      // PUT replaces what the actor may change: a field they may not is kept, not reset.
      if (!given && (!replace || !mayChange)) continue;
      if (given && !mayChange) fixed.push(field);
      const value = given ? (body[field.name] as Value) : defaultValueAt(field.default, at, actor.userId);
      values[field.name] = checkValue(field, value, errors, failures);
    }
    if (failures.length > 0) throw new ProblemError('VALIDATION_FAILED', {}, { errors: failures });
    const ifVersions = ifMatchVersions(request.headers['if-match']);
    const allowed = writeAllowed(read, context.permissions.grants(actor, 'update'), actor, context, id);
    const hidden = hiddenOf(actor, context);
    const fileFields = fields.filter(isFileField).filter((f) => Object.hasOwn(values, f.name));
    const found: { record?: ApiRecord } = {};
    const authorize: typeof allowed = (current, next, reader) => {
      allowed(current, next, reader);
      found.record = current;
      // A file field keeps only files it held or that came with this write, and no more than it takes.
      added.check(fileFields, current, next);
      if (fixed.length === 0) return;
      // A field the actor cannot see is refused even unchanged: accepting the stored value would tell it.
      const unseen = hidden?.(current, (e, key) => reader.get(e, key));
      const changed = fixed.filter(
        (f) => unseen?.has(f.name) || !sameValue(f, current[f.name] ?? null, next[f.name] ?? null),
      );
      if (changed.length > 0)
        throw mayNotSet(changed, `of this ${entity.name}`, context.permissions.specLine(actor), 'change');
    };
    const outcome = await records.update(
      id,
      values,
      { at, by: actor.userId, ifVersions, authorize, unreadableReferences: unreadableReferences(actor, context) },
      withUser(context.logic?.update, actor, hidden),
    );
    if (!outcome.ok) throw refused(outcome.refusal, context, id);
    if (outcome.changed) {
      await context.files?.settle(entity, found.record ?? null, outcome.stored.record);
      context.committed({
        entity: entity.name,
        id,
        kind: 'update',
        at,
        by: actor.userId,
        record: outcome.stored.record,
        ...(outcome.fields ? { fields: outcome.fields } : {}),
      });
    } else if (upload) await upload.discard();
    return reply
      .header('etag', etagOf(outcome.stored.version))
      .send(await visible(outcome.stored.record, hidden, context));
  }
}

/** A file field. */
type FileField = Field & { type: FieldTypeOfKind<'file'> };

/**
 * Files an upload adds to the fields of several that the write does not name: they join the files
 * those fields hold, read before the write's transaction (`held`). In that transaction, `check`
 * refuses the write (CONFLICT) when another write changed such a field in between, and lets each
 * file field written hold only files it held or that came with the write (`RecordFiles.checkHeld`).
 */
async function filesAdded(
  context: EntityContext,
  id: string,
  upload: Upload | null,
  body: Record<string, unknown>,
): Promise<{
  held(field: FileField): string[];
  check(written: readonly FileField[], current: ApiRecord, next: ApiRecord): void;
}> {
  const uploaded = (field: Field) => upload?.files.get(field.name) ?? [];
  const appended = context.entity.fields
    .filter(isFileField)
    .filter((f) => f.type.maxFiles > 1 && uploaded(f).length > 0 && !Object.hasOwn(body, f.name));
  const seen = appended.length > 0 ? (await context.records.get(id))?.record : undefined;
  return {
    held: (field) => (appended.includes(field) ? fileIdsOf(seen?.[field.name]) : []),
    check: (written, current, next) => {
      for (const field of written) {
        if (appended.includes(field) && (current[field.name] ?? null) !== (seen?.[field.name] ?? null)) {
          throw new ProblemError('CONFLICT', { entity: context.entity.name });
        }
        RecordFiles.checkHeld(field, next[field.name], current[field.name], uploaded(field));
      }
    },
  };
}

/**
 * Takes a transition in one transaction: the record (404), its from-state and the guard
 * (TRANSITION_NOT_ALLOWED), the payload's fields (validated like an update), the rules, the new
 * state, the version and a history entry naming the transition.
 */
function transitionHandler(route: Route, context: EntityContext, name: string): Handler {
  const { entity, records, machine } = context;
  const transition = machine?.transitions.find((t) => t.name === name && !t.creates);
  if (!transition) throw new Error(`${route.method} ${route.path} takes ${name}, which ${entity.name} does not have.`);
  const check = context.logic?.transitions.get(name);
  const schema = route.body?.schema ?? NO_BODY;
  const errors = new FieldErrors(entity, context.catalogue, context.fieldLine);
  const fields = entity.fields.filter((f) => Object.hasOwn(schema.properties ?? {}, f.name));
  const takes = fileFieldsTaken(route, entity);
  const take = async (request: FastifyRequest, reply: FastifyReply, id: string, upload: Upload | null) => {
    const { actor } = request;
    const read = readGrants(actor, context);
    const body = upload ? uploadedBody(request, upload, errors) : readBody(request, errors, true);
    const at = new Date(context.now()).toISOString();
    const values: Record<string, Value> = {};
    const failures: FieldError[] = [];
    for (const field of fields) {
      if (isFileField(field)) {
        // A transition adds the files uploaded with it; it never names the ones a field holds.
        if (Object.hasOwn(body, field.name)) failures.push(readOnly(field, errors));
        continue;
      }
      if (!Object.hasOwn(body, field.name)) continue;
      values[field.name] = checkValue(field, body[field.name] as Value, errors, failures);
    }
    // A field of several files keeps those it holds, with the uploaded ones after (`filesAdded`);
    // a field of one has it replaced.
    const uploads = entity.fields.filter(isFileField).filter((f) => (upload?.files.get(f.name)?.length ?? 0) > 0);
    const added = await filesAdded(context, id, upload, body);
    for (const field of uploads) {
      values[field.name] = [...added.held(field), ...(upload?.files.get(field.name) ?? [])].join(',');
    }
    if (failures.length > 0) throw new ProblemError('VALIDATION_FAILED', {}, { errors: failures });
    const ifVersions = ifMatchVersions(request.headers['if-match']);
    const allowed = writeAllowed(read, context.permissions.transitionGrants(actor, transition), actor, context, id);
    const hidden = hiddenOf(actor, context);
    const found: { record?: ApiRecord } = {};
    const authorize: typeof allowed = (current, next, reader) => {
      allowed(current, next, reader);
      found.record = current;
      added.check(uploads, current, next);
    };
    const outcome = await records.transition(
      id,
      { name: transition.name, to: transition.to },
      values,
      {
        at,
        by: actor.userId,
        ifVersions,
        authorize,
        unreadableReferences: unreadableReferences(actor, context),
      },
      withEffectFields(withUser(check, actor, hidden), context.effectFields),
    );
    if (!outcome.ok) throw refused(outcome.refusal, context, id);
    if (upload) await context.files?.settle(entity, found.record ?? null, outcome.stored.record);
    context.committed({
      entity: entity.name,
      id,
      kind: 'transition',
      transition: transition.name,
      at,
      by: actor.userId,
      record: outcome.stored.record,
    });
    return reply
      .header('etag', etagOf(outcome.stored.version))
      .send(await visible(outcome.stored.record, hidden, context));
  };
  return async (request, reply) => {
    const id = recordId(request, route, context);
    // Files sent with a transition (multipart, when its payload names a file field) are stored
    // first, and removed again when the transition is refused.
    const upload =
      takes.size > 0 && context.files?.isUpload(request)
        ? await context.files.receive(request, entity, id, takes)
        : null;
    try {
      return await take(request, reply, id, upload);
    } catch (error) {
      await upload?.discard();
      throw error;
    }
  };
}

function deleteHandler(route: Route, context: EntityContext): Handler {
  return async (request, reply) => {
    const { actor } = request;
    const read = readGrants(actor, context);
    const id = recordId(request, route, context);
    const ifVersions = ifMatchVersions(request.headers['if-match']);
    const allowed = writeAllowed(read, context.permissions.grants(actor, 'delete'), actor, context, id);
    const at = new Date(context.now()).toISOString();
    // The record as the delete found it: who may read it is told of the delete.
    const found: { record?: ApiRecord } = {};
    const outcome = await context.records.delete(id, { at, by: actor.userId, ifVersions }, (current, reader) => {
      allowed(current, current, reader);
      found.record = current;
    });
    if (!outcome.ok) throw refused(outcome.refusal, context, id);
    // A deleted record's files are removed with it; their rows stay, so its history still names them.
    if (found.record) await context.files?.settle(context.entity, found.record, null);
    if (found.record)
      context.committed({
        entity: context.entity.name,
        id,
        kind: 'delete',
        at,
        by: actor.userId,
        record: found.record,
      });
    return reply.code(204).send();
  };
}

/**
 * The body, once its schema accepted it; else the catalogued answer to what is wrong with it.
 * A call without a payload may be sent without a body, or with `{}`. A required field that
 * `mayOmit` excuses may be missing (Ajv reports every error, so the others still answer).
 */
function readBody(
  request: FastifyRequest,
  errors: FieldErrors,
  optional: boolean,
  mayOmit?: (field: string) => boolean,
): Record<string, unknown> {
  if (optional && request.body === undefined) return {};
  const failed = request.validationError as (Error & { validation?: ErrorObject[] }) | undefined;
  if (failed) {
    if (!failed.validation) throw new ProblemError('INVALID_PAYLOAD', { detail: 'the body could not be checked' });
    const wrong = mayOmit
      ? failed.validation.filter(
          (e) => !(e.keyword === 'required' && e.instancePath === '' && mayOmit(String(e.params.missingProperty))),
        )
      : failed.validation;
    if (wrong.length > 0) throw errors.problem(wrong, request.body);
  }
  return request.body as Record<string, unknown>;
}

/**
 * The `record` part of a multipart write, checked by the call's body schema as a JSON body is; no
 * record part is an empty one.
 */
function uploadedBody(
  request: FastifyRequest,
  upload: Upload,
  errors: FieldErrors,
  mayOmit?: (field: string) => boolean,
): Record<string, unknown> {
  const body = upload.body ?? {};
  const validate = request.getValidationFunction('body');
  if (validate && !validate(body)) {
    const wrong = (validate.errors ?? []).filter(
      (e) =>
        !(mayOmit && e.keyword === 'required' && e.instancePath === '' && mayOmit(String(e.params.missingProperty))),
    );
    if (wrong.length > 0) throw errors.problem(wrong as ErrorObject[], body);
  }
  return body as Record<string, unknown>;
}

/** READ_ONLY_FIELD: a file field is set by uploading files, not by a value. */
function readOnly(field: Field, errors: FieldErrors): FieldError {
  return errors.error(field.name, 'READ_ONLY_FIELD');
}

/**
 * A value the schema accepted, in the form it is stored in (date-times in UTC), with what the
 * schema cannot see: a required field left empty after defaults, a date-time JavaScript cannot hold.
 */
function checkValue(field: Field, value: Value, errors: FieldErrors, failures: FieldError[]): Value {
  if (value === null) {
    if (field.required) failures.push(errors.error(field.name, 'REQUIRED'));
    return null;
  }
  // PostgreSQL cannot store U+0000 in text; refused on both databases, so they behave the same.
  if (typeof value === 'string' && value.includes('\u0000')) {
    failures.push(errors.error(field.name, 'INVALID_TYPE', { type: 'text without NUL (U+0000) characters' }));
    return null;
  }
  // A lone surrogate (JSON's "\ud800") is no character: UTF-8 cannot hold it, so SQLite would store
  // U+FFFD instead and PostgreSQL refuses it in the record's history (jsonb).
  if (typeof value === 'string' && LONE_SURROGATE.test(value)) {
    failures.push(errors.error(field.name, 'INVALID_TYPE', { type: 'text without unpaired surrogates' }));
    return null;
  }
  // Ids in lower case (one borrower whatever the case sent), date-times in UTC.
  if (typeof value !== 'string') return value;
  const stored = storedText(field.type, value);
  if (stored === null) failures.push(errors.error(field.name, 'INVALID_TYPE', { type: typeWords(field) }));
  return stored;
}

/** The record id of the path; one that cannot be an id names no record. */
function recordId(request: FastifyRequest, route: Route, context: EntityContext): string {
  const raw = (request.params as Record<string, string | undefined>)[route.params[0] ?? 'id'] ?? '';
  const id = raw.toLowerCase();
  if (!UUID.test(id)) throw notFound(context, raw);
  return id;
}

function notFound(context: EntityContext, id: string): ProblemError {
  const shown = id.length > ID_ECHO_LENGTH ? `${id.slice(0, ID_ECHO_LENGTH)}…` : id;
  return new ProblemError('NOT_FOUND', { entity: context.entity.name, id: shown });
}

function refused(refusal: Refusal, context: EntityContext, id: string): ProblemError {
  const entity = context.entity.name;
  const fieldError = (field: string, code: string, params: Record<string, string> = {}): FieldError => {
    const spec = context.fieldLine(field);
    return {
      field,
      code,
      message: context.catalogue.message(code, { field, entity, ...params }),
      ...(spec ? { spec } : {}),
    };
  };
  switch (refusal.kind) {
    case 'not-found':
      return notFound(context, id);
    case 'stale':
      return new ProblemError('CONFLICT', { entity });
    case 'not-unique':
      return new ProblemError(
        'NOT_UNIQUE',
        { entity, field: refusal.field },
        { errors: [fieldError(refusal.field, 'NOT_UNIQUE')] },
      );
    case 'unknown-reference':
      return new ProblemError(
        'UNKNOWN_REFERENCE',
        { entity, field: refusal.fields[0] ?? '' },
        { errors: refusal.fields.map((f) => fieldError(f, 'UNKNOWN_REFERENCE')) },
      );
    case 'referenced':
      return new ProblemError(
        'CONFLICT',
        { entity },
        {
          detail: `This ${entity} cannot be deleted while a ${refusal.entity} refers to it (${refusal.entity}.${refusal.field}). Delete or change that ${refusal.entity} first.`,
        },
      );
  }
}

/** FORBIDDEN for fields point 6 does not let the actor's roles set (`create (title)`). */
function mayNotSet(fields: readonly Field[], where: string, spec: SpecLine | null, verb = 'set'): ProblemError {
  const names = fields.map((f) => f.name);
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  // Field by field too, so that a report of many writes (an import) can say which column it was.
  const errors = names.map((field) => ({ field, code: 'FORBIDDEN', message: `Your roles may not ${verb} ${field}.` }));
  return new ProblemError('FORBIDDEN', {}, { detail: `Your roles may not ${verb} ${list} ${where}.`, errors, spec });
}

/** Whether two values of a field are the same once read as the store reads them (ids in any case, times in any zone). */
function sameValue(field: Field, a: Value, b: Value): boolean {
  if (a === b) return true;
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  return storedText(field.type, a) === storedText(field.type, b);
}

/** The refusal for an actor with no access at all: sign in, or you may not. */
function denied(actor: RequestActor, context: EntityContext): ProblemError {
  const spec = context.permissions.specLine(actor);
  return new ProblemError(actor.userId === null ? 'NOT_SIGNED_IN' : 'FORBIDDEN', {}, { spec });
}

/** The actor's read grants on the entity; refuses at once when there are none. */
function readGrants(actor: RequestActor, context: EntityContext): readonly Grant[] {
  const grants = context.permissions.grants(actor, 'read');
  if (grants.length === 0) throw denied(actor, context);
  return grants;
}

/** The id `own` is matched against; a visitor owns nothing (an id no record can have). */
function ownerId(actor: RequestActor): string {
  return actor.userId ?? '';
}

/**
 * Whether the actor may read a record outside a write: the records an `own via` chain goes
 * through are read first (`settle`), then `covers` decides as it does inside a write.
 */
async function readable(
  grants: readonly Grant[],
  record: ApiRecord,
  actor: RequestActor,
  context: EntityContext,
  reads?: SettledReads,
): Promise<boolean> {
  if (coversEveryRecord(grants)) return true;
  return settle((load) => covers(grants, record, actor.userId, load), context.store, reads);
}

/**
 * The check a write makes of the record in its transaction: NOT_FOUND when the actor may not read
 * it, FORBIDDEN when they may read it but not do this, or when `own` access would write a record
 * that is not (or no longer) theirs. A grant limited to some states (`while`) is tested on the
 * record as it is: a transition leaves those states by design.
 */
function writeAllowed(
  read: readonly Grant[],
  granted: readonly Grant[],
  actor: RequestActor,
  context: EntityContext,
  id: string,
): (current: ApiRecord, next: ApiRecord, reader: TxReader) => void {
  return (current, next, reader) => {
    const load = (entity: string, key: string) => reader.get(entity, key);
    if (!covers(read, current, actor.userId, load)) throw notFound(context, id);
    if (granted.length === 0) throw denied(actor, context);
    if (coversEveryRecord(granted)) return;
    const stays = { ...next, state: current.state ?? null };
    if (!covers(granted, current, actor.userId, load) || !covers(granted, stays, actor.userId, load)) {
      throw denied(actor, context);
    }
  };
}

/**
 * The reference fields of a write naming a record the actor may not read (point 6 of the entity
 * it refers to: `read own`, `read while`, none at all). The store answers them as UNKNOWN_REFERENCE,
 * as it does a record that does not exist, before any rule: otherwise which rule fails (a limit
 * read from the record, a manager compared) would tell what the actor may not read. A reference
 * to `User` may name any user (pickers); see `GET /api/users` for what is shown of them.
 * Undefined when the actor may read every record each reference may name.
 */
function unreadableReferences(actor: RequestActor, context: EntityContext): WriteContext['unreadableReferences'] {
  const checked = context.references
    .map((r) => ({ ...r, grants: r.permissions.grants(actor, 'read') }))
    .filter((r) => !coversEveryRecord(r.grants));
  if (checked.length === 0) return undefined;
  return (values, reader) => {
    const load = (entity: string, key: string) => reader.get(entity, key);
    return checked.flatMap(({ field, entity, grants }) => {
      const id = values[field];
      if (typeof id !== 'string') return [];
      // One that does not exist is the store's own existence check's to answer.
      const target = reader.get(entity, id);
      return target !== undefined && !covers(grants, target, actor.userId, load) ? [field] : [];
    });
  };
}

/** A compiled check as the store runs it, with the acting user and what they do not see filled in. */
function withUser(
  check: LogicCheck | undefined,
  actor: RequestActor,
  hidden: HiddenFields | null = null,
): WriteCheck | undefined {
  if (!check) return undefined;
  const user: CelUser = actor.user
    ? { id: actor.user.id, email: actor.user.email, name: actor.user.name, roles: actor.user.roles }
    : NO_USER;
  if (hidden === null) return (next, current, reader) => check(next, current, reader, user);
  return (next, current, reader) => check(next, current, reader, user, hidden);
}

/** The fields the actor does not see of each record; null when they see them all. */
function hiddenOf(actor: RequestActor, context: EntityContext): HiddenFields | null {
  return hiddenFieldsOf(context.permissions, actor);
}

/** The record as the actor may see it: without the fields no role of theirs that covers it shows. */
async function visible(
  record: ApiRecord,
  hidden: HiddenFields | null,
  context: EntityContext,
  reads?: SettledReads,
): Promise<ApiRecord> {
  if (hidden === null) return record;
  return visibleRecord(record, await settle((load) => hidden(record, load), context.store, reads));
}

/** A page's records as the actor may see them, reading each record a chain goes through once. */
async function visibleAll(records: ApiRecord[], hidden: HiddenFields, context: EntityContext): Promise<ApiRecord[]> {
  const reads: SettledReads = new Map();
  const shown: ApiRecord[] = [];
  for (const record of records) shown.push(await visible(record, hidden, context, reads));
  return shown;
}

function permissionsOf(compiled: CompiledApp, entity: string): EntityPermissions {
  const permissions = compiled.permissions.get(entity);
  if (!permissions) throw new Error(`No permissions were compiled for ${entity}.`);
  return permissions;
}
