import { Environment } from '@marcbachmann/cel-js';
import { celFieldType, constantInstant, entityEnvironment } from './cel-types.ts';
import { conditionWords } from './condition-words.ts';
import { assertNever, kindFacts } from './field-kinds.ts';
import { type CountTerm, findCounts, type PresenceTerm } from './filled-terms.ts';
import type { Entity, Field, FieldType, Model } from './model.ts';
import { USER_ENTITY } from './names.ts';
import { localDay, timeZoneOf } from './time-zone.ts';

/**
 * Every transition guard and rule condition of a model, parsed and type-checked once into cel-js
 * programs, and the evaluator that runs them on a record: the server compiles them at start-up
 * and runs them in every write's transaction; the web app runs the same programs on a form's
 * would-be record before sending it, so both sides give the same answer.
 *
 * What an expression sees (as the spec checker types it): the record's fields by name (integers as
 * CEL ints, decimals as doubles, dates and date-times as timestamps, references as the referenced
 * record), the system fields, `user`, `now`, `today` (midnight UTC), the point-9 constants
 * (durations as CEL durations, dates and date-times as timestamps) and, in a field rule, `value`.
 *
 * Semantics:
 * - An empty field (or one reached through an empty or missing reference) is unbound: an
 *   expression that needs it is an error. CEL's `||` and `&&` absorb an error when their other
 *   side decides (`true || error` is true, `false && error` is false), so
 *   `receipt != "" || amount <= LIMIT` holds for a small amount without a receipt.
 * - When the outcome still depends on an empty field, a rule is not evaluated (it passes: a
 *   field is made to have a value by `required`) and a guard does not hold. A field rule on an
 *   empty field is not evaluated.
 * - Any other evaluation error, or a result that is not `true`, fails closed: the rule is
 *   violated, the guard does not hold.
 * - `user` is the acting user; for a signed-out visitor, a user with id '' and no roles. A field
 *   referring to `User` is loaded as a user (id, email, name, roles); a user who no longer
 *   exists counts as empty.
 */

/** The acting user as expressions see it (`user.roles`); a signed-out visitor is `NO_USER`. */
export interface CelUser {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly roles: readonly string[];
}

/** The user a signed-out visitor is to expressions: nobody, with no roles. */
export const NO_USER: CelUser = Object.freeze({
  id: '',
  email: '',
  name: '',
  roles: Object.freeze([]) as readonly string[],
});

/** A value of a record as the API answers it. */
export type RecordValue = string | number | boolean | null;

/** A record as the API answers it: its system fields and declared fields by name (null when unset). */
export type RecordValues = Readonly<Record<string, RecordValue>>;

/**
 * Loads a record of an entity by id (on the server, inside the transaction the check runs in);
 * undefined when there is no such record. A user (`User`) is `{ id, email, name, roles }` with
 * `roles` as JSON text. A loader that cannot answer yet throws a `LoadPending`.
 */
export type RecordLoader = (entity: string, id: string) => RecordValues | undefined;

/**
 * Thrown by a `RecordLoader` that cannot answer yet (the server has not made the read in its
 * transaction; the browser has not fetched the record). `evaluate` lets it through instead of
 * failing the expression, so the caller can load the record and evaluate again, or leave the
 * expression unchecked. Not an `Error`: it is a signal, not a fault, and needs no stack.
 */
export class LoadPending {}

/**
 * Counts records of an entity whose `field` is `value` (in one of `states`, or any state when
 * null), for an expression's `count(…)`: on the server inside the write's transaction. A counter
 * that cannot answer yet throws a `LoadPending`.
 */
export type RecordCounter = (entity: string, field: string, value: string, states: readonly string[] | null) => number;

/** One compiled expression: its source, the field chains it mentions, and its program. */
export interface CompiledExpression {
  readonly source: string;
  /** Its counts of related records, each a variable of the program (see `filled-terms.ts`). */
  readonly counts: readonly CountTerm[];
  /** Its `has(field)` tests, each a bool variable of the program. */
  readonly present: readonly PresenceTerm[];
  /** `due`, `book.copies`, `value`: identifier chains whose head is a field (or `value`). */
  readonly chains: readonly (readonly string[])[];
  readonly program: (context: Record<string, unknown>) => unknown;
  /** The field a field rule's `value` stands for, or null. */
  readonly field: string | null;
}

export type Outcome = 'holds' | 'fails' | 'skipped';

/** Thrown for an expression cel-js cannot compile (the checker should have refused it). */
export class ExpressionCompileError extends Error {
  override name = 'ExpressionCompileError';
}

/** The compiled expressions of one entity, and how to evaluate them on its records. */
export class EntityExpressions {
  readonly entity: Entity;
  readonly #entities: ReadonlyMap<string, Entity>;
  readonly #constants: Readonly<Record<string, unknown>>;
  readonly #clock: () => number;
  readonly #zone: string;

  constructor(
    entity: Entity,
    entities: ReadonlyMap<string, Entity>,
    constants: Readonly<Record<string, unknown>>,
    time: { clock: () => number; zone: string } = { clock: readClock, zone: 'UTC' },
  ) {
    this.entity = entity;
    this.#entities = entities;
    this.#constants = constants;
    this.#clock = time.clock;
    this.#zone = time.zone;
  }

  /**
   * Evaluates `expression` on `record`. `mode` decides what a mentioned empty field means: a rule
   * is skipped, a guard fails. Never throws, except a loader's `LoadPending`: an error is a failure.
   */
  evaluate(
    expression: CompiledExpression,
    record: RecordValues,
    load: RecordLoader,
    mode: 'rule' | 'guard',
    user: CelUser = NO_USER,
    count?: RecordCounter,
  ): Outcome {
    const run = this.#run(expression, record, load, user, count, new Date(this.#clock()));
    if (run.skipped) return mode === 'rule' ? 'skipped' : 'fails';
    if (run.ok) return run.value === true ? 'holds' : 'fails';
    return run.empty && mode === 'rule' ? 'skipped' : 'fails';
  }

  /**
   * The value of `expression` (a transition's `sets`) on `record`, with `now` and `today` taken
   * from `now`: `{ ok: false, empty }` when it cannot be worked out, `empty` when an empty field
   * it needs is why. Never throws, except a loader's `LoadPending`.
   */
  compute(
    expression: CompiledExpression,
    record: RecordValues,
    load: RecordLoader,
    user: CelUser,
    now: Date,
    count?: RecordCounter,
  ): { ok: true; value: unknown } | { ok: false; empty: boolean } {
    const run = this.#run(expression, record, load, user, count, now);
    return run.skipped ? { ok: false, empty: true } : run;
  }

  #run(
    expression: CompiledExpression,
    record: RecordValues,
    load: RecordLoader,
    user: CelUser,
    count: RecordCounter | undefined,
    now: Date,
  ): { ok: true; value: unknown; skipped?: never } | { ok: false; empty: boolean; skipped?: boolean } {
    try {
      const loaded = new Map<string, RecordValues | undefined>();
      const loadOnce = (entity: string, id: string) => {
        const key = `${entity}\u0000${id}`;
        if (!loaded.has(key)) loaded.set(key, load(entity, id));
        return loaded.get(key);
      };
      const context: Record<string, unknown> = { ...this.#constants };
      context.now = now;
      context.today = localDay(now, this.#zone);
      context.user = user;
      Object.assign(context, celRecord(this.entity, record));
      if (expression.field !== null) {
        if ((record[expression.field] ?? null) === null) return { ok: false, empty: true, skipped: true };
        if (context[expression.field] !== undefined) context.value = context[expression.field];
      }
      for (const term of expression.counts) {
        // Without a counter (the browser) a count cannot be known: the server decides.
        if (!count) throw new LoadPending();
        const value = term.target === 'this' ? String(record.id ?? '') : user.id;
        context[term.variable] = BigInt(count(term.entity, term.field, value, term.states));
      }
      for (const term of expression.present) {
        const name = term.field === 'value' ? (expression.field ?? '') : term.field;
        context[term.variable] = (record[name] ?? null) !== null;
      }
      let empty = false;
      for (const chain of expression.chains) {
        if (this.#resolve(chain, expression.field, record, context, loadOnce)) empty = true;
      }
      try {
        return { ok: true, value: expression.program(context) };
      } catch (error) {
        if (error instanceof LoadPending) throw error;
        // An empty field's error that CEL's `||`/`&&` did not absorb: an unbound name or key.
        // Any other error (a division by zero) fails closed, empty fields or not.
        const code = (error as { code?: unknown } | null)?.code;
        const unbound = code === 'unknown_variable' || code === 'no_such_key';
        return { ok: false, empty: empty && unbound };
      }
    } catch (error) {
      // The caller must load first, then evaluate again (see `LoadPending`).
      if (error instanceof LoadPending) throw error;
      return { ok: false, empty: false };
    }
  }

  /**
   * Walks a chain (`book.copies`), loading the references it goes through into `context`.
   * Returns true when a step is empty: a null field, a missing or unloadable referenced record;
   * that step is left unbound, so an expression that needs it is an error CEL may absorb.
   */
  #resolve(
    chain: readonly string[],
    field: string | null,
    record: RecordValues,
    context: Record<string, unknown>,
    load: RecordLoader,
  ): boolean {
    const [head, ...rest] = chain;
    const name = head === 'value' ? field : head;
    let entity: Entity = this.entity;
    let values: RecordValues = record;
    /** Where the CEL value of the current step lives, to put a loaded record in its place. */
    let holder: Record<string, unknown> = context;
    let key = head ?? '';
    let fieldName = name ?? '';
    if (fieldName === 'created_by') {
      // The system field naming the user who created the record: a reference to `User`.
      const creator = record.created_by ?? null;
      if (creator === null) return true;
      const user = load(USER_ENTITY, String(creator));
      if (!user) return true;
      context.created_by = celUser(user, rest[0]);
      return false;
    }
    for (let i = 0; ; i++) {
      const f = entity.fields.find((x) => x.name === fieldName);
      if (!f) return false; // a system field or something the checker typed otherwise
      const value = values[f.name] ?? null;
      if (value === null) return true;
      if (f.type.kind !== 'reference') return false;
      const next = rest[i];
      if (f.type.entity === USER_ENTITY) {
        // A user's fields are scalars: the chain ends at one of them.
        const user = load(USER_ENTITY, String(value));
        if (!user) {
          delete holder[key];
          return true;
        }
        holder[key] = celUser(user, next);
        return false;
      }
      const target = this.#entities.get(f.type.entity);
      if (!target) return true;
      let celTarget = holder[key] as Record<string, unknown> | undefined;
      const loaded = load(target.name, String(value));
      if (!loaded) {
        delete holder[key];
        return true;
      }
      if (next === undefined) {
        // The reference itself, compared as a record.
        holder[key] ??= celRecord(target, loaded);
        return false;
      }
      if (celTarget === undefined || celTarget === null || typeof celTarget !== 'object') {
        celTarget = celRecord(target, loaded);
        holder[key] = celTarget;
      }
      entity = target;
      values = loaded;
      holder = celTarget;
      key = next;
      fieldName = next;
    }
  }
}

/**
 * A loaded user (see `RecordLoader`) as CEL's `User`: roles from JSON text to a list. The
 * browser loads other users from the directory, which shows their id and name only: a chain that
 * needs a field the row leaves out (`approver.email`, or the whole user) cannot be decided here.
 */
function celUser(row: RecordValues, field: string | undefined): CelUser {
  const needed = field === undefined ? ['id', 'email', 'name', 'roles'] : [field];
  if (needed.some((name) => row[name] === undefined)) throw new LoadPending();
  let roles: string[] = [];
  try {
    const parsed: unknown = JSON.parse(String(row.roles ?? '[]'));
    if (Array.isArray(parsed)) roles = parsed.filter((r): r is string => typeof r === 'string');
  } catch {
    // No roles is the safe reading of a damaged row.
  }
  return { id: String(row.id ?? ''), email: String(row.email ?? ''), name: String(row.name ?? ''), roles };
}

/** A record as CEL sees it; references stay null until a chain loads them. */
export function celRecord(entity: Entity, record: RecordValues): Record<string, unknown> {
  // Empty values are left out (unbound), references too: a chain loads those it needs, and
  // `created_by` is loaded as a user only when an expression mentions it.
  const out: Record<string, unknown> = {};
  const set = (name: string, value: unknown) => {
    if (value !== null && value !== undefined) out[name] = value;
  };
  set('id', record.id);
  set('created_at', toTimestamp(record.created_at ?? null));
  set('updated_at', toTimestamp(record.updated_at ?? null));
  if ('state' in record) set('state', record.state);
  for (const field of entity.fields) set(field.name, celValue(field.type, record[field.name] ?? null));
  return out;
}

function celValue(type: FieldType, value: RecordValue): unknown {
  if (value === null) return null;
  const cel = kindFacts(type).cel;
  switch (cel) {
    case 'int':
      return typeof value === 'number' ? BigInt(Math.trunc(value)) : value;
    case 'double':
      return typeof value === 'number' ? value : Number(value);
    case 'timestamp':
      return toTimestamp(value);
    case 'reference':
      return null;
    case 'string':
    case 'bool':
      return value;
    default:
      return assertNever(cel);
  }
}

/** `2026-05-01` is midnight UTC; a date-time is the instant it names. */
function toTimestamp(value: RecordValue): Date | null {
  if (typeof value !== 'string') return null;
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** The identifier chains of a source whose head is one of `heads`, with string literals blanked. */
export function chainsOf(source: string, heads: ReadonlySet<string>): string[][] {
  const code = source.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
  const chains: string[][] = [];
  const seen = new Set<string>();
  for (const match of code.matchAll(/(?<![.\w])[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*/g)) {
    const parts = match[0].split('.').map((p) => p.trim());
    // A trailing method call (`title.size()`) is not a field.
    const after = code.slice((match.index ?? 0) + match[0].length).trimStart();
    if (after.startsWith('(')) parts.pop();
    const head = parts[0];
    if (head === undefined || !heads.has(head)) continue;
    const key = parts.join('.');
    if (!seen.has(key)) {
      seen.add(key);
      chains.push(parts);
    }
  }
  return chains;
}

/** Every guard and rule condition of a model, compiled. */
export interface CompiledModelExpressions {
  /** By entity name. */
  readonly entities: ReadonlyMap<string, EntityExpressions>;
  /** By entity name, then transition name. */
  readonly guards: ReadonlyMap<string, ReadonlyMap<string, CompiledExpression>>;
  /** Each guard in words (`conditionWords`), for its refusal: by entity name, then transition name. */
  readonly guardWords: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** By rule name. */
  readonly rules: ReadonlyMap<string, CompiledExpression>;
  /** What each transition sets (point 4's `sets`), in order: by entity name, then transition name. */
  readonly effects: ReadonlyMap<string, ReadonlyMap<string, readonly CompiledEffect[]>>;
}

/** One `field = expression` of a transition, compiled. */
export interface CompiledEffect {
  readonly field: Field;
  readonly expression: CompiledExpression;
}

/** The system clock, looked up at each call: a test that mocks `Date` moves it. */
const readClock = (): number => Date.now();

export interface ExpressionOptions {
  /** The clock `now` and `today` read, in milliseconds since 1970 (tests inject one). Default `Date.now`. */
  clock?: () => number;
}

const CALENDAR_GETTERS =
  /\.(getFullYear|getMonth|getDate|getDayOfMonth|getDayOfWeek|getDayOfYear|getHours|getMinutes)\(\s*\)/g;

/**
 * With a product time zone, a timestamp's calendar getters (`now.getHours()`) read the local
 * calendar: each gets the zone as its argument. Null when there is none, or when the expression
 * then does not type-check (a duration's `getHours()` takes no zone): it keeps UTC.
 */
function localCalendar(env: Environment, source: string, zone: string): ReturnType<Environment['parse']> | null {
  if (zone === 'UTC' || source.match(CALENDAR_GETTERS) === null) return null;
  const parsed = env.parse(
    source.replace(CALENDAR_GETTERS, (_, getter: string) => `.${getter}(${JSON.stringify(zone)})`),
  );
  return parsed.check().valid ? parsed : null;
}

/** Compiles every guard and rule expression of the model once. Throws `ExpressionCompileError`. */
export function compileExpressions(model: Model, options: ExpressionOptions = {}): CompiledModelExpressions {
  const zone = timeZoneOf(model);
  const time = { clock: options.clock ?? readClock, zone };
  const entities = new Map(model.entities.map((e) => [e.name, e]));
  const machines = new Set(model.machines.map((m) => m.entity));
  const base = new Environment({ homogeneousAggregateLiterals: false });
  const durations = new Map<number, unknown>();
  const constants: Record<string, unknown> = {};
  for (const c of model.constants) {
    if (c.type === 'duration') {
      const seconds = Number(c.value);
      if (!durations.has(seconds)) durations.set(seconds, base.parse(`duration("${seconds}s")`)({}));
      constants[c.name] = durations.get(seconds);
    } else if (c.type === 'integer') constants[c.name] = BigInt(Math.trunc(Number(c.value)));
    else if (c.type === 'date' || c.type === 'datetime') constants[c.name] = constantInstant(c);
    else constants[c.name] = c.value;
  }
  const frozenConstants = Object.freeze(constants);

  const envs = new Map<string, Environment>();
  const envOf = (entity: Entity, field: string | null): Environment => {
    const key = `${entity.name}|${field ?? ''}`;
    const cached = envs.get(key);
    if (cached) return cached;
    let env: Environment;
    if (field !== null) {
      env = envOf(entity, null).clone();
      const type = entity.fields.find((f) => f.name === field)?.type;
      env.registerVariable('value', type ? celFieldType(type, registeredOf(entity)) : 'dyn');
    } else {
      const built = entityEnvironment(entity, reachable(entity, entities), model.constants, (name) =>
        machines.has(name),
      );
      env = built.env;
      registeredByEntity.set(entity.name, built.registered);
    }
    envs.set(key, env);
    return env;
  };
  const registeredByEntity = new Map<string, Set<string>>();
  const registeredOf = (entity: Entity) => registeredByEntity.get(entity.name) ?? new Set<string>();

  const compile = (
    entity: Entity,
    field: string | null,
    source: string,
    what: string,
    value = false,
  ): CompiledExpression => {
    const { rewritten, terms, present } = findCounts(source);
    let env = envOf(entity, field);
    if (terms.length > 0 || present.length > 0) {
      env = env.clone();
      for (const term of terms) env.registerVariable(term.variable, 'int');
      for (const term of present) env.registerVariable(term.variable, 'bool');
    }
    let program: (context: Record<string, unknown>) => unknown;
    try {
      const parsed = localCalendar(env, rewritten, zone) ?? env.parse(rewritten);
      const checked = parsed.check();
      if (!checked.valid) throw checked.error ?? new Error('does not type-check');
      if (!value && checked.type !== 'bool') throw new Error(`is ${checked.type}, not a condition`);
      program = parsed;
    } catch (error) {
      const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
      throw new ExpressionCompileError(`${what} ("${source}") cannot be compiled: ${message}`);
    }
    const heads = new Set(entity.fields.map((f) => f.name));
    if (machines.has(entity.name)) heads.add('state');
    heads.add('created_by');
    if (field !== null) heads.add('value');
    // A field `has()` tests is mentioned too: an update that empties it runs the rule again.
    const chains = [...chainsOf(rewritten, heads), ...present.map((p) => [p.field])];
    return Object.freeze({ source, counts: terms, present, chains, program, field });
  };

  const entityExpressions = new Map<string, EntityExpressions>();
  for (const entity of model.entities) {
    entityExpressions.set(entity.name, new EntityExpressions(entity, entities, frozenConstants, time));
  }
  const guards = new Map<string, Map<string, CompiledExpression>>();
  const guardWords = new Map<string, Map<string, string>>();
  for (const machine of model.machines) {
    const entity = entities.get(machine.entity);
    if (!entity) continue;
    const byName = new Map<string, CompiledExpression>();
    const words = new Map<string, string>();
    for (const t of machine.transitions) {
      if (t.guard === null) continue;
      byName.set(t.name, compile(entity, null, t.guard, `The guard of "${t.name}"`));
      words.set(t.name, conditionWords(t.guard, entity, model));
    }
    guards.set(entity.name, byName);
    guardWords.set(entity.name, words);
  }
  const rules = new Map<string, CompiledExpression>();
  for (const rule of model.rules) {
    if (rule.condition.kind !== 'expression') continue;
    const entity = entities.get(rule.appliesTo.entity);
    if (!entity) continue;
    rules.set(rule.name, compile(entity, rule.appliesTo.field, rule.condition.source, `The rule "${rule.name}"`));
  }
  const effects = new Map<string, Map<string, CompiledEffect[]>>();
  for (const machine of model.machines) {
    const entity = entities.get(machine.entity);
    if (!entity) continue;
    const byName = new Map<string, CompiledEffect[]>();
    for (const t of machine.transitions) {
      const compiled: CompiledEffect[] = [];
      for (const a of t.sets ?? []) {
        const field = entity.fields.find((f) => f.name === a.field);
        if (!field) throw new ExpressionCompileError(`"${t.name}" sets ${a.field}, which ${entity.name} does not have`);
        compiled.push({ field, expression: compile(entity, null, a.source, `"${a.field} = …" of "${t.name}"`, true) });
      }
      if (compiled.length > 0) byName.set(t.name, compiled);
    }
    if (byName.size > 0) effects.set(entity.name, byName);
  }
  return { entities: entityExpressions, guards, guardWords, rules, effects };
}

/** The entities an entity reaches through references (not itself unless it refers to itself), referenced ones first. */
function reachable(entity: Entity, entities: ReadonlyMap<string, Entity>): Entity[] {
  const order: Entity[] = [];
  const seen = new Set<string>();
  const visit = (e: Entity) => {
    for (const f of e.fields) {
      if (f.type.kind !== 'reference' || seen.has(f.type.entity)) continue;
      const target = entities.get(f.type.entity);
      if (!target) continue;
      seen.add(target.name);
      visit(target);
      order.push(target);
    }
  };
  visit(entity);
  return order;
}
