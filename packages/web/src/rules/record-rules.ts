import {
  type CelUser,
  type CompiledModelExpressions,
  compileExpressions,
  defaultValueAt,
  type Entity,
  type EntityExpressions,
  type ExpressionRule,
  emptyFieldsRead,
  expressionRule,
  type Field,
  guardErrorParams,
  guardRecord,
  guardRefusal,
  LoadPending,
  type Model,
  NO_USER,
  type RecordLoader,
  type RecordValue,
  type RecordValues,
  ruleMessageParams,
  ruleRuns,
  type SpecLine,
  sharedRefusalCode,
  specLine,
  type Transition,
  transitionEffects,
  USER_ENTITY,
} from '@ninepoint/spec';
import type { QueryClient } from '@tanstack/react-query';
import { api, type FieldProblem, type Problem } from '../api/client.ts';
import type { User } from '../api/session.ts';
import type { DirectoryUser } from '../api/users.ts';
import { recordKey } from '../records/api.ts';
import { type ApiRecord, callFor, pathOf } from '../records/calls.ts';
import { type Catalogue, catalogueOf } from './catalogue.ts';

/**
 * The point-5 rules and the transition guards checked in the browser before a write is sent, with
 * the programs the server runs (`compileExpressions` of the spec package) and the server's choice
 * of which rules a write runs, where a failure is reported and how its message is filled (the spec
 * package's `write-rules.ts`). A refusal found here is the problem the server would answer.
 *
 * What is left to the server: limits ("at most N …", they count other records), any rule or
 * guard that needs a record the browser cannot fetch (an entity without a get call, a record the
 * user may not read, no connection), and any that names a field point 6 hides from the user. Those are "cannot check here": never a failure.
 *
 * This module bundles cel-js; the app imports it lazily (`before-sending.ts`).
 */

/** A write the app is about to send: its kind, the stored record (unless a create), the payload. */
export type Write = { entity: string; body: Readonly<Record<string, unknown>>; user: User | null } & (
  | { kind: 'create' }
  | { kind: 'update'; current: Readonly<Record<string, unknown>> }
  | { kind: 'transition'; transition: string; current: Readonly<Record<string, unknown>> }
);

/** A write as the server would check it. */
export interface WriteInput {
  entity: string;
  /** The record as the write would leave it (see `writeInput`). */
  next: RecordValues;
  /** The record as stored; null on create. */
  current: RecordValues | null;
  /** The transition taken: on create the creating transition (if the entity has one); null for an update. */
  transition: string | null;
  /** The signed-in user (`GET /api/auth/me`), or `NO_USER`. */
  user: CelUser;
}

/** What the browser's check found: the server's answer to come, or null; and how much it could not check. */
export interface RuleCheck {
  problem: Problem | null;
  /** Rules and guards that needed a record the loader could not give (left to the server). */
  unchecked: number;
}

const compiledModels = new WeakMap<Model, CompiledModelExpressions | null>();

/** The model's guards and rules compiled once; null when cel-js refuses one (then the server decides all). */
function compiledOf(model: Model): CompiledModelExpressions | null {
  if (!compiledModels.has(model)) {
    let compiled: CompiledModelExpressions | null;
    try {
      compiled = compileExpressions(model);
    } catch {
      compiled = null;
    }
    compiledModels.set(model, compiled);
  }
  return compiledModels.get(model) ?? null;
}

/**
 * Checks a write's guard and rules with a synchronous loader. A loader that throws `LoadPending`
 * leaves that rule or guard unchecked. The guard comes first: when it does not hold the answer is
 * the guard's own error code if point 4 names one, else TRANSITION_NOT_ALLOWED, as the server's; then every rule the write runs, their failures together.
 */
export function checkRules(model: Model, input: WriteInput, load: RecordLoader): RuleCheck {
  const compiled = compiledOf(model);
  const entity = model.entities.find((e) => e.name === input.entity);
  const evaluator = compiled?.entities.get(input.entity);
  if (!compiled || !entity || !evaluator) return { problem: null, unchecked: 0 };
  const catalogue = catalogueOf(model);
  let unchecked = 0;
  // Fields point 6 hides from the user are missing from the record the API sent: what needs them
  // would be checked on nothing, so it is left to the server.
  const unseen = new Set(entity.fields.filter((f) => !Object.hasOwn(input.next, f.name)).map((f) => f.name));
  const blind = (names: Iterable<string>) => {
    if (unseen.size === 0) return false;
    for (const name of names) if (unseen.has(name)) return true;
    return false;
  };
  const evaluate = (...args: Parameters<typeof evaluator.evaluate>) => {
    try {
      return evaluator.evaluate(...args);
    } catch (error) {
      if (!(error instanceof LoadPending)) throw error;
      unchecked++;
      return 'unchecked';
    }
  };

  const machine = model.machines.find((m) => m.entity === input.entity);
  const transition = machine?.transitions.find((t) => t.name === input.transition);
  if (input.transition !== null) {
    // A wrong from-state is the server's to answer (the record may have moved on meanwhile).
    if (!transition) return { problem: null, unchecked };
    const { current } = input;
    if (current !== null && !transition.from.includes(String(current.state ?? ''))) {
      return { problem: null, unchecked };
    }
    const guard = compiled.guards.get(input.entity)?.get(transition.name);
    if (guard && blind(guard.chains.map((c) => c[0] ?? ''))) unchecked++;
    else if (guard) {
      const record = current === null ? input.next : guardRecord(input.next, current);
      if (evaluate(guard, record, load, 'guard', input.user) === 'fails') {
        if (transition.error !== null) {
          const own = guardErrorParams(entity, transition, record);
          const spec = specLine(model, transition.span);
          return { problem: problemOf(catalogue, transition.error, own, [], undefined, spec), unchecked };
        }
        const params = { transition: transition.name, entity: entity.name, state: String(record.state ?? '(new)') };
        const words = compiled.guardWords.get(input.entity)?.get(transition.name) ?? guard.source;
        // As the server says it: the empty fields the guard reads first ("Set an assignee first.").
        const empty = emptyFieldsRead(entity, guard.chains, record).filter((f) => !unseen.has(f.name));
        const said = guardRefusal(catalogue, words, params, empty);
        const spec = specLine(model, transition.span);
        const problem = problemOf(catalogue, 'TRANSITION_NOT_ALLOWED', params, [], said, spec);
        return { problem: empty.length > 0 ? { ...problem, empty: empty.map((f) => f.name) } : problem, unchecked };
      }
    }
  }

  // What the transition sets (point 4's `sets`), worked out as the server does, so the rules see
  // the record it would store; a value that cannot be worked out here leaves what needs it to the server.
  const { next, unsure } = withEffects(compiled, input, transition, load, blind, evaluator);
  if (unsure.size > 0) unchecked++;
  const failures: FieldProblem[] = [];
  for (const rule of expressionRules(model, compiled, entity)) {
    if (!ruleRuns(rule, input.transition, next, input.current)) continue;
    if (blind(rule.mentions) || [...rule.mentions].some((name) => unsure.has(name))) {
      unchecked++;
      continue;
    }
    if (evaluate(rule.expression, next, load, 'rule', input.user) !== 'fails') continue;
    const message = catalogue.message(rule.rule.error, ruleMessageParams(entity, next, rule.at));
    const spec = specLine(model, rule.rule.span);
    failures.push({ field: rule.at, code: rule.rule.error, message, ...(spec ? { spec } : {}) });
  }
  if (failures.length === 0) return { problem: null, unchecked };
  const shared = sharedRefusalCode(failures.map((f) => f.code));
  const problem =
    shared === null
      ? problemOf(catalogue, 'VALIDATION_FAILED', {}, failures)
      : problemOf(catalogue, shared, ruleMessageParams(entity, next, null), failures);
  return { problem, unchecked };
}

/**
 * The would-be record with what the transition sets applied (see the spec package's
 * `transitionEffects`), and the fields it sets that could not be worked out here (a record not
 * fetched, a field the API did not send, a value the server will refuse).
 */
function withEffects(
  compiled: CompiledModelExpressions,
  input: WriteInput,
  transition: Transition | undefined,
  load: RecordLoader,
  blind: (names: Iterable<string>) => boolean,
  evaluator: EntityExpressions,
): { next: RecordValues; unsure: ReadonlySet<string> } {
  const sets = transition ? compiled.effects.get(input.entity)?.get(transition.name) : undefined;
  if (!sets || input.current === null) return { next: input.next, unsure: NONE };
  const unsure = new Set(sets.map((s) => s.field.name));
  if (blind(sets.flatMap((s) => s.expression.chains.map((c) => c[0] ?? '')))) return { next: input.next, unsure };
  try {
    const seen = guardRecord(input.next, input.current);
    const outcome = transitionEffects(evaluator, sets, seen, load, input.user, new Date());
    return outcome.ok ? { next: { ...input.next, ...outcome.values }, unsure: NONE } : { next: input.next, unsure };
  } catch (error) {
    if (!(error instanceof LoadPending)) throw error;
    return { next: input.next, unsure };
  }
}

const NONE: ReadonlySet<string> = new Set();

/** A record the browser fetches for a rule: the record, undefined when there is none; throws when it cannot tell. */
export type RecordFetcher = (entity: string, id: string) => Promise<RecordValues | undefined>;

/** Most rounds of fetching (each one step further along `a.b.c`), and most records fetched for one check. */
const MAX_ROUNDS = 4;
const MAX_FETCHES = 12;

/** Asked for a record not fetched yet (or one that cannot be). */
class NotFetched extends LoadPending {}

/**
 * Checks a write, fetching the records its rules and guard reach (`book.copies`: the book) and
 * checking again with them, as the server's store reads in its transaction and runs the check
 * again. A record the fetcher cannot give leaves what needs it to the server.
 */
export async function checkBeforeSending(model: Model, input: WriteInput, fetch: RecordFetcher): Promise<RuleCheck> {
  const fetched = new Map<string, RecordValues | undefined>();
  const unavailable = new Set<string>();
  for (let round = 0; ; round++) {
    const wanted = new Map<string, { entity: string; id: string }>();
    const load: RecordLoader = (entity, id) => {
      const key = `${entity}\u0000${id}`;
      if (fetched.has(key)) return fetched.get(key);
      if (!unavailable.has(key)) wanted.set(key, { entity, id });
      throw new NotFetched();
    };
    const check = checkRules(model, input, load);
    if (wanted.size === 0) return check;
    const asked = [...wanted];
    if (round >= MAX_ROUNDS || fetched.size + unavailable.size + asked.length > MAX_FETCHES) {
      for (const [key] of asked) unavailable.add(key);
      continue;
    }
    await Promise.all(
      asked.map(async ([key, { entity, id }]) => {
        try {
          fetched.set(key, await fetch(entity, id));
        } catch {
          unavailable.add(key);
        }
      }),
    );
  }
}

/** What the server's check of a write sees: the would-be record, the stored one, the transition, the user. */
export function writeInput(model: Model, write: Write, now = new Date()): WriteInput | null {
  const entity = model.entities.find((e) => e.name === write.entity);
  if (!entity) return null;
  const body = recordValues(write.body);
  const user: CelUser = write.user
    ? { id: write.user.id, email: write.user.email, name: write.user.name, roles: write.user.roles }
    : NO_USER;
  if (write.kind === 'create') {
    const creating = model.machines.find((m) => m.entity === entity.name)?.transitions.find((t) => t.creates);
    return {
      entity: entity.name,
      next: wouldCreate(model, entity, body, write.user?.id ?? null, now),
      current: null,
      transition: creating?.name ?? null,
      user,
    };
  }
  const current = recordValues(write.current);
  const to =
    write.kind === 'transition'
      ? (model.machines.find((m) => m.entity === entity.name)?.transitions.find((t) => t.name === write.transition)
          ?.to ?? null)
      : null;
  return {
    entity: entity.name,
    next: wouldChange(entity, current, body, to, now),
    current,
    transition: write.kind === 'transition' ? write.transition : null,
    user,
  };
}

/**
 * Fetches what rules reach from the API, fresh (a stale count of copies must not refuse a loan):
 * a record through its entity's get call, a user through `GET /api/users?id=…` (which names every
 * user that exists, so one it leaves out is no user, as on the server; of others it shows only
 * the id and the name).
 */
export function apiFetcher(client: QueryClient, model: Model): RecordFetcher {
  return async (entity, id) => {
    if (entity === USER_ENTITY) {
      const wanted = id.toLowerCase();
      const users = await client.fetchQuery({
        queryKey: ['users', 'by-id', [wanted]],
        queryFn: async () =>
          (await api<{ items: DirectoryUser[] }>('GET', `/api/users?id=${encodeURIComponent(wanted)}`)).body.items,
        staleTime: 0,
        retry: false,
      });
      const user = users.find((u) => u.id === wanted);
      return user ? userRecord(user) : undefined;
    }
    const call = callFor(model, entity, 'get');
    if (!call) throw new Error(`${entity} has no get call.`);
    const answer = await client.fetchQuery({
      queryKey: recordKey(entity, id),
      queryFn: () => api<ApiRecord>('GET', pathOf(call, id)),
      staleTime: 0,
      retry: false,
    });
    return recordValues(answer.body);
  };
}

/** A payload's value as the server stores it: a reference's id in lower case. */
function storedValue(field: Field, value: RecordValue): RecordValue {
  return field.type.kind === 'reference' && typeof value === 'string' ? value.toLowerCase() : value;
}

/** The record a create would store: the payload, the server's defaults for the rest, the system fields. */
function wouldCreate(
  model: Model,
  entity: Entity,
  body: Readonly<Record<string, RecordValue>>,
  me: string | null,
  now = new Date(),
): Record<string, RecordValue> {
  const at = now.toISOString();
  const machine = model.machines.find((m) => m.entity === entity.name);
  const record: Record<string, RecordValue> = {
    // The server gives the id; no rule can know it beforehand.
    id: '00000000-0000-7000-8000-000000000000',
    created_at: at,
    updated_at: at,
    created_by: me,
    ...(machine ? { state: machine.initial } : {}),
  };
  for (const field of entity.fields) {
    const given = Object.hasOwn(body, field.name);
    record[field.name] = given ? storedValue(field, body[field.name] ?? null) : defaultValueAt(field.default, at, me);
  }
  return record;
}

/** The record an update or a transition would store: the stored one with the payload's changes (and the new state). */
function wouldChange(
  entity: Entity,
  current: RecordValues,
  body: Readonly<Record<string, RecordValue>>,
  to: string | null,
  now = new Date(),
): Record<string, RecordValue> {
  const record: Record<string, RecordValue> = { ...current };
  for (const field of entity.fields) {
    if (Object.hasOwn(body, field.name)) record[field.name] = storedValue(field, body[field.name] ?? null);
  }
  if (to !== null) record.state = to;
  record.updated_at = now.toISOString();
  return record;
}

/** The values of an API record (or a payload) an expression can see: text, numbers, booleans, null. */
export function recordValues(record: Readonly<Record<string, unknown>>): Record<string, RecordValue> {
  const values: Record<string, RecordValue> = {};
  for (const [name, value] of Object.entries(record)) {
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      values[name] = value;
    }
  }
  return values;
}

/**
 * A user as `GET /api/users?id=…` answers it, as a loaded user (roles as JSON text, like the
 * server's users table). Of others the directory shows no email or roles: they are left out, so
 * what needs them is left to the server (see `evaluate.ts`), never judged on an empty value.
 */
export function userRecord(user: {
  id: string;
  name: string;
  email?: string | undefined;
  roles?: readonly string[] | undefined;
}): RecordValues {
  return {
    id: user.id,
    name: user.name,
    ...(user.email !== undefined ? { email: user.email } : {}),
    ...(user.roles !== undefined ? { roles: JSON.stringify(user.roles) } : {}),
  };
}

const expressionRulesOf = new WeakMap<Entity, ExpressionRule[]>();

/** The entity's rules whose condition is an expression, in the spec's order. */
function expressionRules(model: Model, compiled: CompiledModelExpressions, entity: Entity): ExpressionRule[] {
  let rules = expressionRulesOf.get(entity);
  if (!rules) {
    rules = [];
    for (const rule of model.rules) {
      if (rule.appliesTo.entity !== entity.name || rule.condition.kind !== 'expression') continue;
      const expression = compiled.rules.get(rule.name);
      if (expression) rules.push(expressionRule(rule, expression, entity));
    }
    expressionRulesOf.set(entity, rules);
  }
  return rules;
}

/** A problem as the server's catalogue writes it (see the server's `ProblemCatalogue.problem`). */
function problemOf(
  catalogue: Catalogue,
  code: string,
  params: Readonly<Record<string, string | number | boolean>>,
  errors: FieldProblem[],
  message?: string,
  spec: SpecLine | null = oneLine(errors),
): Problem {
  const entry = catalogue.entry(code);
  const words = code.toLowerCase().replaceAll('_', ' ');
  return {
    status: entry?.status ?? 500,
    code,
    title: words.charAt(0).toUpperCase() + words.slice(1),
    // A message already chosen from the catalogue (a guard's refusal) is said as the server says it.
    detail: message ?? catalogue.message(code, params),
    ...(errors.length > 0 ? { errors } : {}),
    ...(spec ? { spec } : {}),
  };
}

/** The spec line every failure names, as the server's answer carries it; null when they differ. */
function oneLine(errors: readonly FieldProblem[]): SpecLine | null {
  const first = errors[0]?.spec;
  return first && errors.every((e) => e.spec?.line === first.line) ? first : null;
}
