import {
  type CelUser,
  type CompiledEffect,
  type CompiledModelExpressions,
  compileExpressions,
  type Entity,
  type EntityExpressions,
  type ExpressionRule,
  emptyFieldsRead,
  expressionRule,
  guardErrorParams,
  guardRecord,
  guardRefusal,
  type Model,
  type PeriodUnit,
  type RecordCounter,
  type Rule,
  ruleMessageParams,
  ruleRuns,
  type SpecLine,
  type StateMachine,
  sharedRefusalCode,
  specLine,
  type Transition,
  timeZoneOf,
  transitionEffects,
} from '@ninepoint/spec';
import { periodBounds } from './limit-period.ts';
import { type FieldError, type ProblemCatalogue, ProblemError, type ProblemParams } from './problems.ts';
import type { ApiRecord, CountQuery, TxReader, Value, WriteEffects } from './record-types.ts';
import type { RowLoader } from './row-access.ts';

/**
 * A write's check with the acting user (see `WriteCheck`, which the HTTP layer makes of it per
 * request) and, when point 6 hides fields from them, the fields they do not see of a record: a
 * refusal's messages leave those out.
 */
export type LogicCheck = (
  next: ApiRecord,
  current: ApiRecord | null,
  reader: TxReader,
  user: CelUser,
  hidden?: HiddenFields,
) => WriteEffects | undefined;

/**
 * The fields the reader does not see of a record (see `EntityPermissions.hiddenOn`); `load` reads
 * the records an `own via` chain goes through.
 */
export type HiddenFields = (record: ApiRecord, load: RowLoader) => ReadonlySet<string>;

const NOTHING_HIDDEN: HiddenFields = () => new Set();

/**
 * The rules, guards and limits of each entity, compiled once into the checks every write runs
 * inside its transaction (see `WriteCheck`). The semantics, which the model docs describe (the
 * parts shared with the web app, which checks rules and guards before sending, are in the spec
 * package's `write-rules.ts`):
 *
 * - **Create** evaluates every rule of the entity that applies outside transitions or to the
 *   creating transition, and the creating transition's guard, on the would-be record.
 * - **Update** and **transitions** evaluate a rule when the write changes a field it mentions (a
 *   transition changes `state`), and always the rules that apply to the transition taken: a value
 *   checked when it was written is not checked again because time passed (an overdue loan's due
 *   date is in the past, and marking it overdue must still be possible).
 * - A **guard** is evaluated on the record as the call would leave it, but still in its from-state:
 *   its fields with the call's payload applied (on create: the would-be record). So `"agent" in
 *   assignee.roles` checks the assignee being given, and `size(decision_note) >= 10` the reason
 *   sent with the call. When it does not hold the answer is TRANSITION_NOT_ALLOWED (409), like a
 *   wrong from-state, with a detail saying what the transition needs (`guardRefusal`); or, when
 *   point 4 names the guard's own error, that code with its catalogue status and message, filled
 *   like a rule's (`guardErrorParams`).
 * - A **limit** ("at most N E in state s per f, g per day of d") counts the other records in one
 *   of the states with the same `f` and `g` and a `d` in the same UTC day (week, month, year) as
 *   this record's, inside the write transaction, and fails when this record would make it N + 1.
 *   It is checked when the record is created in a counted state, when an update changes `f` or
 *   `g` or moves `d` into another period, and when a transition enters a counted state from one
 *   that is not. A record with an empty `f`, `g` or `d` is not counted. Only limits over the
 *   rule's own entity are enforced.
 * - **Failures** are all collected. Each is reported at its field: a field rule's field; an
 *   entity rule's only mentioned field when it mentions exactly one of the record's fields
 *   (`due > today` → `due`); otherwise null. When every failure has the same code (one rule refused;
 *   LOAN_LIMIT 409), the answer is that code with its catalogue status, so a client reads a
 *   rule's code where it reads FORBIDDEN's; otherwise VALIDATION_FAILED 422. Both list the failures in `errors`.
 */
export interface EntityLogic {
  /** Run on create; undefined when the entity has nothing to check. */
  readonly create: LogicCheck | undefined;
  readonly update: LogicCheck | undefined;
  /** By transition name: from-state, guard, rules and limits. */
  readonly transitions: ReadonlyMap<string, LogicCheck>;
}

type CompiledRule = ({ kind: 'expression' } & ExpressionRule) | CompiledLimit;

interface CompiledLimit {
  rule: Rule;
  kind: 'limit';
  max: number;
  states: readonly string[] | null;
  per: readonly string[];
  /** The period's field and how its column stores values. */
  /** The period's field, how its column stores values, and the time zone of its calendar. */
  period: { unit: PeriodUnit; field: string; type: 'date' | 'datetime'; zone: string } | null;
}

/** Compiles the checks of every entity. Throws `ExpressionCompileError` for an expression cel-js refuses. */
export function compileEntityLogic(
  model: Model,
  catalogue: ProblemCatalogue,
  expressions: CompiledModelExpressions = compileExpressions(model),
): Map<string, EntityLogic> {
  const logic = new Map<string, EntityLogic>();
  // Compiled once: a refusal names the line of its rule or transition without reading the spec.
  const ruleLines = new Map(model.rules.map((r) => [r, specLine(model, r.span)]));
  const lineOf = (rule: Rule): SpecLine | null => ruleLines.get(rule) ?? null;
  for (const entity of model.entities) {
    const machine = model.machines.find((m) => m.entity === entity.name);
    const evaluator = expressions.entities.get(entity.name);
    if (!evaluator) continue;
    const rules: CompiledRule[] = [];
    for (const rule of model.rules) {
      if (rule.appliesTo.entity !== entity.name) continue;
      const { condition } = rule;
      if (condition.kind === 'expression') {
        const expression = expressions.rules.get(rule.name);
        if (!expression) continue;
        rules.push({ kind: 'expression', ...expressionRule(rule, expression, entity) });
      } else if (condition.entity === entity.name) {
        const { period } = condition;
        const periodField = period ? entity.fields.find((f) => f.name === period.field) : undefined;
        rules.push({
          rule,
          kind: 'limit',
          max: condition.max.value,
          states: machine && condition.states.length > 0 ? condition.states : null,
          per: condition.per,
          // created_at and updated_at are date-times.
          period: period
            ? { ...period, type: periodField?.type.kind === 'date' ? 'date' : 'datetime', zone: timeZoneOf(model) }
            : null,
        });
      }
    }
    const guards = expressions.guards.get(entity.name);
    const effects = expressions.effects.get(entity.name);
    const guardWords = expressions.guardWords.get(entity.name);
    const creating = machine?.transitions.find((t) => t.creates);
    const transitionLines = new Map((machine?.transitions ?? []).map((t) => [t, specLine(model, t.span)]));

    const failures = (
      next: ApiRecord,
      current: ApiRecord | null,
      reader: TxReader,
      transition: string | null,
      user: CelUser,
      hidden: () => ReadonlySet<string>,
    ): FieldError[] => {
      const found: FieldError[] = [];
      for (const compiled of rules) {
        if (compiled.kind === 'expression') {
          if (!ruleRuns(compiled, transition, next, current)) continue;
          const outcome = evaluator.evaluate(
            compiled.expression,
            next,
            (e, id) => reader.get(e, id),
            'rule',
            user,
            counterOf(reader, next),
          );
          if (outcome === 'fails') {
            found.push(fieldError(catalogue, entity, compiled.rule, compiled.at, next, hidden, lineOf(compiled.rule)));
          }
        } else {
          const applies = compiled.rule.appliesTo.transition;
          if (applies !== null && applies !== transition) continue;
          if (limitExceeded(compiled, entity, next, current, reader)) {
            found.push(fieldError(catalogue, entity, compiled.rule, null, next, hidden, lineOf(compiled.rule)));
          }
        }
      }
      return found;
    };

    const guardHolds = (
      t: Transition,
      record: ApiRecord,
      reader: TxReader,
      user: CelUser,
      hidden: () => ReadonlySet<string>,
    ): void => {
      const guard = guards?.get(t.name);
      if (!guard) return;
      const outcome = evaluator.evaluate(
        guard,
        record,
        (e, id) => reader.get(e, id),
        'guard',
        user,
        counterOf(reader, record),
      );
      if (outcome === 'holds') return;
      const spec = transitionLines.get(t) ?? null;
      // Its message names the record's fields: not those the caller may not see.
      if (t.error !== null) throw new ProblemError(t.error, guardErrorParams(entity, t, record, hidden()), { spec });
      const params = { transition: t.name, entity: entity.name, state: String(record.state ?? '(new)') };
      // An empty field the guard reads is named (never one hidden from the caller): the app offers it.
      const unseen = hidden();
      const empty = emptyFieldsRead(entity, guard.chains, record).filter((f) => !unseen.has(f.name));
      throw new ProblemError('TRANSITION_NOT_ALLOWED', params, {
        message: guardRefusal(catalogue.messages, guardWords?.get(t.name) ?? guard.source, params, empty),
        spec,
        ...(empty.length > 0 ? { empty: empty.map((f) => f.name) } : {}),
      });
    };

    const create: LogicCheck = (next, _current, reader, user, hiddenOf = NOTHING_HIDDEN) => {
      const hidden = once(() => hiddenOf(next, loaderOf(reader)));
      if (creating) guardHolds(creating, next, reader, user, hidden);
      refuse(failures(next, null, reader, creating?.name ?? null, user, hidden), () =>
        ruleMessageParams(entity, next, null, hidden()),
      );
    };
    const update: LogicCheck = (next, current, reader, user, hiddenOf = NOTHING_HIDDEN) => {
      const hidden = once(() => hiddenBoth(hiddenOf, next, current, loaderOf(reader)));
      refuse(failures(next, current, reader, null, user, hidden), () =>
        ruleMessageParams(entity, next, null, hidden()),
      );
    };
    const transitions = new Map<string, LogicCheck>();
    for (const t of machine?.transitions ?? []) {
      if (t.creates) continue;
      transitions.set(t.name, (next, current, reader, user, hiddenOf = NOTHING_HIDDEN) => {
        if (current === null) throw new Error('A transition needs the current record.');
        const state = typeof current.state === 'string' ? current.state : '';
        if (!t.from.includes(state)) {
          throw new ProblemError(
            'TRANSITION_NOT_ALLOWED',
            { transition: t.name, entity: entity.name, state },
            { spec: transitionLines.get(t) ?? null },
          );
        }
        // The payload's fields, but the system fields as they are: `updated_at` is not yet now.
        const hidden = once(() => hiddenBoth(hiddenOf, next, current, loaderOf(reader)));
        const seen = guardRecord(next, current);
        guardHolds(t, seen, reader, user, hidden);
        const sets = effects?.get(t.name);
        const set = sets
          ? effectsOf(evaluator, entity, t, sets, seen, reader, user, next.updated_at, transitionLines.get(t) ?? null)
          : undefined;
        const result = set ? { ...next, ...set } : next;
        refuse(failures(result, current, reader, t.name, user, hidden), () =>
          ruleMessageParams(entity, result, null, hidden()),
        );
        return set;
      });
    }
    const hasCreateChecks = creating?.guard != null || rules.length > 0;
    logic.set(entity.name, {
      create: hasCreateChecks ? create : undefined,
      update: rules.some((r) => r.rule.appliesTo.transition === null) ? update : undefined,
      transitions,
    });
  }
  return logic;
}

/**
 * What transition `t` sets, worked out on the record its guard saw (see `transitionEffects`),
 * with `now` the write's instant; when an assignment cannot be worked out (a field it needs is
 * empty) the transition is not allowed, and the detail says which field it could not set.
 */
function effectsOf(
  evaluator: EntityExpressions,
  entity: Entity,
  t: Transition,
  sets: readonly CompiledEffect[],
  seen: ApiRecord,
  reader: TxReader,
  user: CelUser,
  at: Value | undefined,
  spec: SpecLine | null,
): WriteEffects {
  const now = typeof at === 'string' ? new Date(at) : new Date();
  const outcome = transitionEffects(
    evaluator,
    sets,
    seen,
    (e, id) => reader.get(e, id),
    user,
    now,
    counterOf(reader, seen),
  );
  if (outcome.ok) return outcome.values;
  const params = { transition: t.name, entity: entity.name, state: String(seen.state ?? '') };
  const why = outcome.empty ? 'a field it needs is empty' : 'its value could not be worked out';
  throw new ProblemError('TRANSITION_NOT_ALLOWED', params, {
    detail: `${capitalised(t.name)} sets ${outcome.field}, but ${why}.`,
    spec,
  });
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function limitExceeded(
  limit: CompiledLimit,
  entity: Entity,
  next: ApiRecord,
  current: ApiRecord | null,
  reader: TxReader,
): boolean {
  const counted = (record: ApiRecord) => limit.states === null || limit.states.includes(String(record.state));
  if (!counted(next)) return false;
  const group = groupOf(limit, next);
  if (group === null) return false;
  // Already counted in this very group: the write adds nothing to it.
  if (current !== null && counted(current)) {
    const before = groupOf(limit, current);
    if (before !== null && sameGroup(before, group)) return false;
  }
  const others = reader.count({
    entity: entity.name,
    equal: group.equal,
    states: limit.states,
    within: group.within,
    excludeId: String(next.id),
  });
  return others + 1 > limit.max;
}

type Group = Pick<CountQuery, 'equal' | 'within'>;

/** The group a record counts in under a limit; null when a field it groups by is empty (it is not counted). */
function groupOf(limit: CompiledLimit, record: ApiRecord): Group | null {
  const equal: { column: string; value: Value }[] = [];
  for (const column of limit.per) {
    const value = record[column] ?? null;
    if (value === null) return null;
    equal.push({ column, value });
  }
  if (limit.period === null) return { equal, within: null };
  const { unit, field, type, zone } = limit.period;
  const value = record[field];
  if (value == null) return null;
  const bounds = periodBounds(unit, String(value), type, zone);
  return bounds === null ? null : { equal, within: { column: field, ...bounds } };
}

function sameGroup(a: Group, b: Group): boolean {
  return (
    a.equal.every((e, i) => e.value === b.equal[i]?.value) &&
    a.within?.from === b.within?.from &&
    a.within?.to === b.within?.to
  );
}

/**
 * An expression's `count(Review where talk = this)`, counted in the write's transaction (on
 * PostgreSQL under the same advisory lock as a limit's count of that group), leaving out the
 * record being written, as a limit does.
 */
/** Reads of the records an `own via` chain goes through, in the write's transaction. */
function loaderOf(reader: TxReader): RowLoader {
  return (entity, id) => reader.get(entity, id);
}

function counterOf(reader: TxReader, record: ApiRecord): RecordCounter {
  // Never the record itself: on an update it is stored already, on a create not yet.
  const excludeId = typeof record.id === 'string' ? record.id : null;
  return (entity, field, value, states) =>
    reader.count({ entity, equal: [{ column: field, value }], states, within: null, excludeId });
}

function fieldError(
  catalogue: ProblemCatalogue,
  entity: Entity,
  rule: Rule,
  field: string | null,
  record: ApiRecord,
  hidden: () => ReadonlySet<string>,
  spec: SpecLine | null,
): FieldError {
  const params = ruleMessageParams(entity, record, field, hidden());
  return { field, code: rule.error, message: catalogue.message(rule.error, params), ...(spec ? { spec } : {}) };
}

/** What the reader does not see of the record before or after the write: a refusal names neither. */
function hiddenBoth(
  hiddenOf: HiddenFields,
  next: ApiRecord,
  current: ApiRecord | null,
  load: RowLoader,
): ReadonlySet<string> {
  const after = hiddenOf(next, load);
  const before = current === null ? after : hiddenOf(current, load);
  if (before === after || before.size === 0) return after;
  return after.size === 0 ? before : new Set([...after, ...before]);
}

/** Throws the answer to the failures, if any (see `EntityLogic`). */
function refuse(failures: readonly FieldError[], params: () => ProblemParams): void {
  if (failures.length === 0) return;
  const only = sharedRefusalCode(failures.map((f) => f.code));
  if (only !== null) throw new ProblemError(only, params(), { errors: failures });
  throw new ProblemError('VALIDATION_FAILED', {}, { errors: failures });
}

/**
 * A value worked out when first asked for, then kept: what a refusal may not show is read only
 * when something is refused, not on every write.
 */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

/** The machine's transition by name, for the HTTP layer. */
export function transitionOf(machine: StateMachine | undefined, name: string): Transition | undefined {
  return machine?.transitions.find((t) => t.name === name);
}
