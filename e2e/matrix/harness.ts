import { randomUUID } from 'node:crypto';
import { addUser, createApiToken, createServer, type NinepointServer, type Route, type Value } from '@ninepoint/server';
import {
  ANYONE,
  checkSpec,
  type Entity,
  errorCatalogue,
  type Field,
  type Model,
  type Transition,
  USER_ENTITY,
} from '@ninepoint/spec';
import type { FreshDatabase, TestDatabase } from '../../packages/server/test/databases.ts';
import { type ExampleData, inDays, type Values } from './examples.ts';
import { type MatrixActor, type Operation, type Outcome, PermissionOracle, type Verdict } from './oracle.ts';

const PASSWORD = 'correct horse battery staple';

/** An actor with the credentials its calls carry. */
export interface Caller extends MatrixActor {
  authorization: string | null;
}

/** An answer: status, the problem's code, the parsed body. */
export interface Answer extends Outcome {
  // biome-ignore lint/suspicious/noExplicitAny: answers are JSON read by code that knows their shape.
  body: any;
}

/** The records a case made, removed again (newest first) so that no case sees another's. */
type Made = { entity: string; id: string }[];

/** What the matrix tested, for its report. */
export interface Tally {
  cases: number;
  /** Allowed by point 6 … */
  allowed: number;
  /** … and answered 2xx (the others were refused by a guard, as the example predicts). */
  succeeded: number;
  /** Refused by point 6. */
  refused: number;
}

/**
 * One example served from a fresh database, its actors (a visitor, a user per role, a user with
 * every role), and the means to check each call against the oracle: records are written straight
 * into the store with the owners a case needs, called through `app.inject`, and removed again.
 */
export class Matrix {
  readonly data: ExampleData;
  readonly model: Model;
  readonly oracle: PermissionOracle;
  readonly server: NinepointServer;
  readonly actors: readonly Caller[];
  readonly tally: Tally = { cases: 0, allowed: 0, succeeded: 0, refused: 0 };
  readonly #fresh: FreshDatabase;
  readonly #roles: Map<Value, readonly string[]>;
  readonly #assignable: readonly string[];
  /** Every record the matrix wrote, by entity and id: the oracle follows `own via` chains through them. */
  readonly #written = new Map<string, Values>();
  #n = 0;

  private constructor(
    data: ExampleData,
    model: Model,
    server: NinepointServer,
    fresh: FreshDatabase,
    actors: Caller[],
    roles: Map<Value, readonly string[]>,
  ) {
    this.data = data;
    this.model = model;
    this.oracle = new PermissionOracle(model, (entity, id) => this.#written.get(`${entity} ${String(id)}`));
    this.server = server;
    this.#fresh = fresh;
    this.actors = actors;
    this.#roles = roles;
    this.#assignable = roleNames(model);
  }

  /** The checked model of an example's spec, which must have no errors. */
  static model(source: string): Model {
    const { model, ok, diagnostics } = checkSpec(source);
    if (!ok) throw new Error(`The spec has errors: ${JSON.stringify(diagnostics.slice(0, 5), null, 2)}`);
    return model;
  }

  /** The actors' names, known before any server starts: for test names. */
  static actorNames(model: Model): string[] {
    const roles = roleNames(model);
    return ['visitor', ...roles, roles.length === 0 ? 'signed in' : 'all roles'];
  }

  static async start(data: ExampleData, db: TestDatabase): Promise<Matrix> {
    const model = Matrix.model(data.source);
    const fresh = await db.fresh();
    let server: NinepointServer;
    try {
      server = await createServer({ model, ...fresh.options, logger: false });
    } catch (error) {
      await fresh.remove();
      throw error;
    }
    const roles = roleNames(model);
    const actors: Caller[] = [{ name: 'visitor', userId: null, roles: [], authorization: null }];
    const byId = new Map<Value, readonly string[]>();
    const sets: [string, string[]][] = [
      ...roles.map((r): [string, string[]] => [r, [r]]),
      [roles.length === 0 ? 'signed in' : 'all roles', roles],
    ];
    for (const [name, given] of sets) {
      const email = `${name.replace(/\W+/g, '-')}@matrix.test`;
      const user = await addUser(server.auth, { email, roles: given, password: PASSWORD }, roles);
      const { secret } = await createApiToken(server.auth, email, 'authorisation matrix');
      actors.push({ name, userId: user.id, roles: user.roles, authorization: `Bearer ${secret}` });
      byId.set(user.id, user.roles);
    }
    return new Matrix(data, model, server, fresh, actors, byId);
  }

  async close(): Promise<void> {
    try {
      await this.server.close();
    } finally {
      await this.#fresh.remove();
    }
  }

  entity(name: string): Entity {
    const found = this.model.entities.find((e) => e.name === name);
    if (!found) throw new Error(`No entity ${name}`);
    return found;
  }

  /** The calls served for an entity. */
  routes(entity: string): Route[] {
    return this.server.compiled.routeTable.routes.filter((r) => r.action.entity === entity);
  }

  /**
   * The columns naming a user: `created_by` and every field of type `User`. Found here apart from
   * the oracle's `ownerColumns`, so that a mistake in the oracle's ownership shows as mismatches
   * instead of leaving variants out.
   */
  userColumns(entity: string): string[] {
    const users = this.entity(entity).fields.filter(
      (f) => f.type.kind === 'reference' && f.type.entity === USER_ENTITY,
    );
    return ['created_by', ...users.map((f) => f.name)];
  }

  /**
   * The record variants a case is run on: one owned through each owner column, one through each
   * longer `own via` chain of point 6 (`via ticket.reporter`), and one of another user.
   */
  variants(entity: string, actor: MatrixActor): string[] {
    if (actor.userId === null) return ['other'];
    const chains = new Set<string>();
    for (const p of this.model.permissions.filter((p) => p.entity === entity)) {
      for (const chain of Object.values(p.via).flatMap((c) => c ?? [])) {
        if (chain.length > 1) chains.add(`via ${chain.join('.')}`);
      }
    }
    return [...this.userColumns(entity), ...chains, 'other'];
  }

  /**
   * A user who is no actor, with every role (so that guards such as `"agent" in assignee.roles`
   * and rules such as `"member" in borrower.roles` hold for others' records). Written straight
   * into the users table: they never sign in, and a fresh one per use keeps `unique` User fields
   * (Employee.person) apart.
   */
  async bystander(): Promise<string> {
    const id = randomUUID();
    const added = await this.server.auth.users.add({
      id,
      email: `bystander-${id}@matrix.test`,
      name: 'Bystander',
      roles: this.#assignable,
      passwordHash: 'not a password hash: this user never signs in',
      createdAt: new Date().toISOString(),
    });
    if (!added) throw new Error('Could not add a bystander');
    this.#roles.set(id, this.#assignable);
    return id;
  }

  rolesOf = (id: Value | undefined): readonly string[] => (id === undefined ? [] : (this.#roles.get(id) ?? []));

  /**
   * The owners of a record of `variant`: the actor in that column, a bystander in every other; for
   * `via a.b`, also the record `a` names, made first with the actor in its `b`.
   */
  async owners(entity: string, variant: string, actor: MatrixActor, made: Made): Promise<Values> {
    const owners: Values = {};
    for (const column of this.userColumns(entity)) {
      owners[column] = column === variant && actor.userId !== null ? actor.userId : await this.bystander();
    }
    if (variant.startsWith('via ')) {
      const [step = '', ...rest] = variant.slice(4).split('.');
      const field = this.entity(entity).fields.find((f) => f.name === step);
      if (field?.type.kind !== 'reference') throw new Error(`${entity}.${step} is no reference`);
      const target = field.type.entity;
      const next = rest.length > 1 ? `via ${rest.join('.')}` : (rest[0] ?? 'other');
      owners[step] = (await this.insert(target, await this.owners(target, next, actor, made), {}, made)).id ?? null;
    }
    return owners;
  }

  /** A valid value for a field, from its type and rules (its literal default and the example's `values` come first). */
  value(field: Field, n: number): Value {
    const type = field.type;
    const lengthFit = (text: string) => {
      const min = field.minLength?.value ?? 0;
      const max = field.maxLength?.value ?? Number.POSITIVE_INFINITY;
      const padded = text.length < min ? text + 'x'.repeat(min - text.length) : text;
      return padded.length > max ? padded.slice(padded.length - max) : padded;
    };
    switch (type.kind) {
      case 'text':
        if (field.pattern !== null) throw new Error(`Give ${field.name} a value matching ${field.pattern}`);
        return lengthFit(`${field.name} ${n}`);
      case 'longText':
        return lengthFit(`The ${field.name} of record ${n}, written for the authorisation matrix.`);
      case 'email':
        return `${field.name}.${n}@example.test`;
      case 'url':
        return `https://example.test/${field.name}/${n}`;
      case 'integer':
      case 'decimal': {
        const min = field.min?.value ?? Number.NEGATIVE_INFINITY;
        const max = field.max?.value ?? Number.POSITIVE_INFINITY;
        return Math.min(Math.max(1, min), max);
      }
      case 'boolean':
        return false;
      case 'date':
        return field.default !== null ? inDays(0) : inDays(7);
      case 'datetime':
        return new Date(Date.now() - 3_600_000).toISOString();
      case 'choice':
        return type.values[0] ?? null;
      case 'reference':
        throw new Error(`${field.name} is a reference: fieldValues() makes its record`);
      case 'file':
        // Files are uploaded, never written as values: the matrix's records have none.
        if (field.required) throw new Error(`${field.name} is a required file: the matrix uploads none`);
        return null;
    }
  }

  /**
   * A complete record of `entity` written straight into the store, with these owners and values;
   * each record it references is made first. Made 2 days ago (escalation guards), changed now.
   */
  async insert(entity: string, owners: Values, extra: Values, made: Made): Promise<Values> {
    const { fields, values } = await this.fieldValues(entity, owners, null, made);
    const machine = this.model.machines.find((m) => m.entity === entity);
    const now = new Date().toISOString();
    const record: Values = {
      id: randomUUID(),
      created_at: new Date(Date.now() - 2 * 86_400_000).toISOString(),
      updated_at: now,
      created_by: owners.created_by ?? null,
      ...(machine ? { state: machine.initial } : {}),
      ...Object.fromEntries(fields.map((f) => [f.name, values[f.name] ?? null])),
      ...extra,
    };
    const outcome = await this.server.store
      .records(entity)
      .create(record, { at: now, by: typeof record.created_by === 'string' ? record.created_by : null });
    if (!outcome.ok) throw new Error(`Could not write a ${entity}: ${JSON.stringify(outcome.refusal)}`);
    made.push({ entity, id: String(record.id) });
    this.#written.set(`${entity} ${String(record.id)}`, outcome.stored.record);
    return outcome.stored.record;
  }

  /**
   * Values for a record's fields: `only` limits them to a payload's; optional fields without a
   * default or an example value are left out. User fields take `owners`, references new records.
   */
  async fieldValues(
    entity: string,
    owners: Values,
    only: ReadonlySet<string> | null,
    made: Made,
  ): Promise<{ fields: Field[]; values: Values }> {
    const n = ++this.#n;
    const given = this.data.values?.(entity, n) ?? {};
    const fields = this.entity(entity).fields.filter((f) => only === null || only.has(f.name));
    const values: Values = {};
    const isUser = (f: Field) => f.type.kind === 'reference' && f.type.entity === USER_ENTITY;
    // User fields first: a referenced record's owners may follow them (an Expense's approver).
    for (const f of fields.filter(isUser)) values[f.name] = owners[f.name] ?? (await this.bystander());
    for (const f of fields.filter((f) => !isUser(f))) {
      if (Object.hasOwn(given, f.name)) values[f.name] = given[f.name] ?? null;
      // A reference an `own via` variant made for its owner.
      else if (f.type.kind === 'reference' && Object.hasOwn(owners, f.name)) values[f.name] = owners[f.name] ?? null;
      else if (f.type.kind === 'reference') {
        const target = f.type.entity;
        const forced = this.data.referenced?.(entity, f.name, values) ?? {};
        const theirs = { ...(await this.owners(target, 'other', VISITOR_SHAPE, made)), ...forced };
        values[f.name] = (await this.insert(target, theirs, {}, made)).id ?? null;
      } else if (f.default !== null && 'literal' in f.default) values[f.name] = f.default.literal;
      else if (f.required || f.default !== null) values[f.name] = this.value(f, n);
    }
    return { fields, values };
  }

  /** Calls the app as the actor. */
  async call(actor: Caller, method: string, url: string, body?: Values): Promise<Answer> {
    const response = await this.server.app.inject({
      method: method as 'GET',
      url,
      headers: actor.authorization ? { authorization: actor.authorization } : {},
      ...(body !== undefined ? { payload: body } : {}),
    });
    const parsed = response.body === '' ? null : JSON.parse(response.body);
    const code = response.statusCode >= 400 && parsed && typeof parsed.code === 'string' ? parsed.code : null;
    return { status: response.statusCode, code, body: parsed };
  }

  /** Every record of an entity, read from the store behind the API's back. */
  async allRecords(entity: string): Promise<Values[]> {
    const page = await this.server.store.records(entity).list({
      sort: { column: 'id', descending: false },
      filters: [],
      search: null,
      owner: null,
      after: null,
      limit: 1_000_000,
      count: false,
    });
    return page.records;
  }

  /** The whole list the API answers the actor, page by page; the refusal when it refuses. */
  async listAs(actor: Caller, route: Route): Promise<{ answer: Answer; ids: string[]; items: Values[] }> {
    const ids: string[] = [];
    const items: Values[] = [];
    const limit = this.server.compiled.settings.MAX_PAGE_SIZE;
    let cursor: string | null = null;
    for (;;) {
      const query: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const answer = await this.call(actor, 'GET', `${route.path}${query}`);
      if (answer.status !== 200) return { answer, ids, items };
      for (const item of answer.body.items as Values[]) {
        ids.push(String(item.id));
        items.push(item);
      }
      cursor = answer.body.next;
      if (cursor === null) return { answer, ids, items };
    }
  }

  /** Removes what a case made, newest first (whatever the case itself already deleted is gone). */
  async remove(made: Made): Promise<void> {
    const at = new Date().toISOString();
    for (const { entity, id } of made.reverse()) {
      const outcome = await this.server.store.records(entity).delete(id, { at, by: null, ifVersions: null });
      if (!outcome.ok && outcome.refusal.kind !== 'not-found') {
        throw new Error(`Could not remove ${entity} ${id}: ${JSON.stringify(outcome.refusal)}`);
      }
    }
  }

  /** The status a catalogue code answers with. */
  statusOf(code: string): number {
    const entry = errorCatalogue(this.model).find((e) => e.code === code);
    if (!entry) throw new Error(`${code} is not in the catalogue`);
    return entry.status;
  }

  /** What a call should answer: the oracle's refusal, else success or the example's guard refusal. */
  expected(operation: Operation, verdict: Verdict, guard: string | null): Outcome & { why: string; allowed: boolean } {
    if (!verdict.allowed) return { ...verdict.outcome, why: verdict.why, allowed: false };
    if (guard !== null)
      return { status: this.statusOf(guard), code: guard, why: `${verdict.why}; guard`, allowed: true };
    const status = operation === 'create' ? 201 : operation === 'delete' ? 204 : 200;
    return { status, code: null, why: verdict.why, allowed: true };
  }

  /** Runs every call on one entity (but its list) as one actor, own and others' records; answers the mismatches. */
  async checkEntity(actor: Caller, entity: string): Promise<string[]> {
    const mismatches: string[] = [];
    for (const route of this.routes(entity)) {
      const kind = route.action.kind;
      if (kind === 'list') continue;
      if (kind === 'create') {
        const mismatch = await this.checkCreate(actor, entity, route);
        if (mismatch) mismatches.push(mismatch);
        continue;
      }
      for (const variant of this.variants(entity, actor)) {
        const mismatch = await this.checkOnRecord(actor, entity, route, variant);
        if (mismatch) mismatches.push(mismatch);
      }
    }
    return mismatches;
  }

  async checkCreate(actor: Caller, entity: string, route: Route): Promise<string | null> {
    const made: Made = [];
    try {
      // The fields of the payload the actor may set: the others take their defaults.
      const settable = this.oracle.settable(entity, actor, 'create');
      const payload = new Set(
        Object.keys(route.body?.schema.properties ?? {}).filter((f) => settable === null || settable.has(f)),
      );
      const owners: Values = {};
      for (const column of this.userColumns(entity)) owners[column] = await this.bystander();
      const { values } = await this.fieldValues(entity, owners, payload, made);
      const verdict = this.oracle.verdict('create', entity, actor);
      // Its references name new records of other users: one the actor may not read is answered as
      // a reference to no record (docs/spec-format.md, point 6), before any rule.
      const unreadable = verdict.allowed ? await this.unreadableReference(actor, entity, values) : null;
      const expected = unreadable
        ? { status: 422, code: 'UNKNOWN_REFERENCE', why: `may not read the ${unreadable} it names`, allowed: false }
        : this.expected('create', verdict, null);
      const answer = await this.call(actor, route.method, route.path, values);
      if (answer.status === 201) made.push({ entity, id: String(answer.body.id) });
      const mismatch = this.compare(actor, route, 'new record', expected, answer);
      if (mismatch || answer.status !== 201) return mismatch;
      const stored = (await this.server.store.records(entity).get(String(answer.body.id)))?.record ?? {};
      const wrong = this.keysMismatch(answer.body as Values, this.oracle.shownKeys(entity, actor, stored));
      return (
        wrong && `${actor.name}: ${route.method} ${route.path} on new record answered ${show(answer)}, but ${wrong}`
      );
    } finally {
      await this.remove(made);
    }
  }

  /** The first reference field of `values` (not to `User`) naming a record the actor may not read; null when none. */
  async unreadableReference(actor: Caller, entity: string, values: Values): Promise<string | null> {
    for (const f of this.entity(entity).fields) {
      if (f.type.kind !== 'reference' || f.type.entity === USER_ENTITY || typeof values[f.name] !== 'string') continue;
      const target = (await this.server.store.records(f.type.entity).get(String(values[f.name])))?.record;
      if (target && !this.oracle.verdict('get', f.type.entity, actor, target).allowed) return f.name;
    }
    return null;
  }

  async checkOnRecord(actor: Caller, entity: string, route: Route, variant: string): Promise<string | null> {
    const made: Made = [];
    try {
      const action = route.action;
      const operation = action.kind as Operation;
      const transition =
        action.kind === 'transition'
          ? this.model.machines.find((m) => m.entity === entity)?.transitions.find((t) => t.name === action.transition)
          : undefined;
      if (action.kind === 'transition' && !transition) throw new Error(`No transition ${action.transition}`);
      const extra: Values = transition
        ? { state: transition.from[0] ?? null, ...(this.data.before?.(entity, transition) ?? {}) }
        : {};
      const record = await this.insert(entity, await this.owners(entity, variant, actor, made), extra, made);
      const verdict = this.oracle.verdict(operation, entity, actor, record, transition);
      const guard =
        verdict.allowed && transition
          ? (this.data.guard?.({ entity, transition, record, actor, rolesOf: this.rolesOf }) ?? null)
          : null;
      const expected = this.expected(operation, verdict, guard);
      const url = route.path.replace(`:${route.params[0] ?? 'id'}`, String(record.id));
      const body =
        operation === 'update'
          ? await this.updateBody(entity, route, record, this.oracle.settable(entity, actor, 'update'))
          : transition
            ? this.data.body?.(entity, transition)
            : undefined;
      const answer = await this.call(actor, route.method, url, body);
      const label = variant === 'other' ? "another user's record" : `own record (${variant})`;
      const mismatch = this.compare(actor, route, label, expected, answer);
      if (mismatch) return mismatch;
      const wrong = await this.effect(actor, entity, operation, record, answer, body, transition);
      return wrong && `${actor.name}: ${route.method} ${route.path} on ${label} answered ${show(answer)}, but ${wrong}`;
    } finally {
      await this.remove(made);
    }
  }

  /**
   * What an answer that matched the oracle did to the record, when it is not what the answer
   * says: a refused call must leave the record as it was; an allowed one must do its work on the
   * record named (the one read, changed, moved on or deleted).
   */
  async effect(
    actor: Caller,
    entity: string,
    operation: Operation,
    record: Values,
    answer: Answer,
    body: Values | undefined,
    transition: Transition | undefined,
  ): Promise<string | null> {
    const after = (await this.server.store.records(entity).get(String(record.id)))?.record;
    if (answer.status >= 300) {
      return after && JSON.stringify(after) === JSON.stringify(record) ? null : 'the record changed';
    }
    if (operation === 'delete') return after ? 'the record is still there' : null;
    if (!after) return 'the record is gone';
    if (operation !== 'history' && answer.body?.id !== record.id) return `it answered record ${answer.body?.id}`;
    if (operation === 'history' && !Array.isArray(answer.body?.items)) return 'it answered no history';
    const shown = this.oracle.shownKeys(entity, actor, after);
    if (operation === 'history') {
      for (const entry of answer.body.items as { changes: Values; before: Values }[]) {
        const extra = [...Object.keys(entry.changes), ...Object.keys(entry.before)].filter((k) => !shown.has(k));
        if (extra.length > 0) return `a history entry holds ${extra.join(', ')}, which point 6 hides`;
      }
    } else {
      const wrong = this.keysMismatch(answer.body as Values, shown);
      if (wrong) return wrong;
    }
    if (transition && after.state !== transition.to) return `the state is ${after.state}, not ${transition.to}`;
    for (const [field, value] of Object.entries(operation === 'update' ? (body ?? {}) : {})) {
      if (after[field] !== value) return `${field} is ${JSON.stringify(after[field])}, not ${JSON.stringify(value)}`;
    }
    return null;
  }

  /** What is wrong with the keys of a record answered: one point 6 hides, or a field it shows left out. */
  keysMismatch(record: Values, shown: ReadonlySet<string>): string | null {
    const keys = Object.keys(record);
    const hidden = keys.filter((k) => !shown.has(k));
    if (hidden.length > 0) return `it sent ${hidden.join(', ')}, which point 6 hides`;
    const missing = [...shown].filter((k) => !keys.includes(k));
    return missing.length > 0 ? `it left out ${missing.join(', ')}` : null;
  }

  /**
   * An update's body: a new value for the first plain text field of its payload the actor may
   * change (PATCH), with the record's other payload values for a PUT, which replaces them all.
   */
  async updateBody(
    entity: string,
    route: Route,
    record: Values,
    settable: ReadonlySet<string> | null,
  ): Promise<Values> {
    const payload = Object.keys(route.body?.schema.properties ?? {});
    const fields = this.entity(entity).fields.filter((f) => payload.includes(f.name));
    const plain = fields.find(
      (f) =>
        ['text', 'longText', 'email'].includes(f.type.kind) &&
        f.pattern === null &&
        (settable === null || settable.has(f.name)),
    );
    if (!plain) throw new Error(`No plain text field to change in ${route.method} ${route.path}`);
    const changed = { [plain.name]: this.value(plain, ++this.#n) };
    if (route.method !== 'PUT') return changed;
    const kept = Object.fromEntries(fields.filter((f) => record[f.name] != null).map((f) => [f.name, record[f.name]]));
    return { ...(kept as Values), ...changed };
  }

  compare(
    actor: Caller,
    route: Route,
    on: string,
    expected: Outcome & { why: string; allowed: boolean },
    answer: Answer,
  ): string | null {
    this.tally.cases++;
    if (expected.allowed) this.tally.allowed++;
    else this.tally.refused++;
    if (expected.allowed && answer.status < 300 && answer.status === expected.status) this.tally.succeeded++;
    if (answer.status === expected.status && answer.code === expected.code) return null;
    const detail = answer.status >= 400 ? ` ${JSON.stringify(answer.body?.detail ?? answer.body?.errors ?? '')}` : '';
    return `${actor.name}: ${route.method} ${route.path} on ${on}: expected ${show(expected)} (${expected.why}), got ${show(answer)}${detail}`;
  }
}

/** The shape `owners` takes for records nobody in the case owns. */
const VISITOR_SHAPE: MatrixActor = { name: 'nobody', userId: null, roles: [] };

/** The roles a user can be given: point 6's, but `anyone`. */
function roleNames(model: Model): string[] {
  return model.roles.map((r) => r.name).filter((r) => r !== ANYONE);
}

function show(outcome: Outcome): string {
  return outcome.code ? `${outcome.status} ${outcome.code}` : String(outcome.status);
}
