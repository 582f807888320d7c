import type { CompiledExpression, RecordValue, RecordValues } from './evaluate.ts';
import type { MessageCatalogue, MessageParams } from './message-catalogue.ts';
import type { DefaultValue, Entity, Field, Rule, Transition } from './model.ts';
import { wordList } from './word-list.ts';

/**
 * How a write runs the point-5 rules that are expressions, shared by the server (which runs them in
 * the write's transaction, with the limits) and the web app (which runs them before sending), so
 * both pick the same rules, report a failure at the same field and fill its message the same way.
 */

const NO_FIELDS: ReadonlySet<string> = new Set();

/** A rule whose condition is an expression, compiled, with the fields it mentions. */
export interface ExpressionRule {
  readonly rule: Rule;
  readonly expression: CompiledExpression;
  /** The fields (and `state`, `created_by`) it mentions; an update runs it when one of them changes. */
  readonly mentions: ReadonlySet<string>;
  /**
   * Where a failure is reported: a field rule's field; an entity rule's only mentioned field when
   * it mentions exactly one of the record's fields (`due > today` → `due`); otherwise null.
   */
  readonly at: string | null;
}

/**
 * A field's value when a create leaves it out: its literal default, or `at` (an ISO date-time) for
 * `now`, its date for `today`, the acting user's id (null for a visitor) for `me`.
 */
export function defaultValueAt(value: DefaultValue | null, at: string, me: string | null): RecordValue {
  if (value === null) return null;
  if ('literal' in value) return value.literal;
  switch (value.dynamic) {
    case 'now':
      return at;
    case 'today':
      return at.slice(0, 10);
    case 'me':
      return me;
  }
}

/** A rule's compiled expression with what it mentions and where its failure is reported. */
export function expressionRule(rule: Rule, expression: CompiledExpression, entity: Entity): ExpressionRule {
  const mentions = new Set(expression.chains.map((c) => (c[0] === 'value' ? rule.appliesTo.field : c[0]) ?? ''));
  if (rule.appliesTo.field !== null) mentions.add(rule.appliesTo.field);
  const own = [...mentions].filter((m) => entity.fields.some((f) => f.name === m));
  const at = rule.appliesTo.field ?? (own.length === 1 ? (own[0] ?? null) : null);
  return { rule, expression, mentions, at };
}

/**
 * Whether a write runs a rule: one that applies to a transition only when that transition is
 * taken (on create, the creating transition); on create every other rule; on an update or a
 * transition the rules that mention a changed field (a transition changes `state`), and those that
 * count related records (`count(Review where talk = this)`), which change without it. A value checked
 * when it was written is not checked again because time passed.
 */
export function ruleRuns(
  rule: ExpressionRule,
  transition: string | null,
  next: RecordValues,
  current: RecordValues | null,
): boolean {
  const applies = rule.rule.appliesTo.transition;
  if (applies !== null && applies !== transition) return false;
  if (current === null || applies !== null) return true;
  // A count changes with other records, not with this one's fields: check it on every write.
  if (rule.expression.counts.length > 0) return true;
  return [...rule.mentions].some((name) => next[name] !== current[name]);
}

/**
 * What a rule's message may name: the record's fields (and `state`), the entity, the field. The
 * fields in `hidden` (those point 6 does not let the reader see) are left out, so their
 * placeholders stay as written, as an empty field's do.
 */
export function ruleMessageParams(
  entity: Entity,
  record: RecordValues,
  field: string | null,
  hidden: ReadonlySet<string> = NO_FIELDS,
): Record<string, string | number | boolean> {
  const params: Record<string, string | number | boolean> = { entity: entity.name };
  for (const f of entity.fields) {
    if (hidden.has(f.name)) continue;
    const value = record[f.name];
    if (value !== null && value !== undefined) params[f.name] = value;
  }
  if (typeof record.state === 'string') params.state = record.state;
  if (field !== null) params.field = field;
  return params;
}

/**
 * The record a transition's guard is evaluated on: the record as the call would leave it (the
 * payload applied), but still in its from-state and with `updated_at` as stored.
 */
export function guardRecord(next: RecordValues, current: RecordValues): RecordValues {
  const state = typeof current.state === 'string' ? current.state : '';
  return { ...next, state, updated_at: current.updated_at ?? null };
}

/**
 * What the message of a guard's own error code (point 4's `error` column) may name: a rule's
 * (`ruleMessageParams`, on the record the guard was evaluated on) and the transition.
 */
export function guardErrorParams(
  entity: Entity,
  transition: Pick<Transition, 'name'>,
  record: RecordValues,
  hidden: ReadonlySet<string> = NO_FIELDS,
): Record<string, string | number | boolean> {
  return { ...ruleMessageParams(entity, record, null, hidden), transition: transition.name };
}

/** The built-in wording of a guard's refusal: the transition, and its condition in words. */
export const GUARD_REFUSAL = '{transition} is allowed only when {condition}.';

/**
 * What a user reads when a transition's guard does not hold (TRANSITION_NOT_ALLOWED, like a wrong
 * from-state, so clients tell refusals by code as before): the spec's own TRANSITION_NOT_ALLOWED
 * message when point 8 gives one that fits a guard (one that does not name `{state}`: a message
 * about the state would blame the wrong thing); otherwise `GUARD_REFUSAL`, with the condition in
 * words (`conditionWords`, compiled once with the guard: `CompiledModelExpressions.guardWords`).
 * The server's answer and the browser's check both say it, word for word.
 */
export function guardRefusal(
  catalogue: MessageCatalogue,
  condition: string,
  params: MessageParams & { transition: string },
  empty: readonly Field[] = [],
): string {
  const first = empty.length > 0 ? `${setFirst(empty)} ` : '';
  const own = catalogue.entry('TRANSITION_NOT_ALLOWED');
  if (own && !own.builtin && !own.message.includes('{state}')) return first + catalogue.fill(own.message, params);
  const said = catalogue.fill(GUARD_REFUSAL, { ...params, condition });
  return first + said.charAt(0).toUpperCase() + said.slice(1);
}

/**
 * The entity's fields a failed guard reads (the heads of its chains: `assignee` of
 * `assignee.roles`, `resolution` of `size(resolution)`) that are empty on the record: most likely
 * why it failed, and what the user can do about it. In the entity's order.
 */
export function emptyFieldsRead(entity: Entity, chains: readonly (readonly string[])[], record: RecordValues): Field[] {
  const heads = new Set(chains.map((c) => c[0]));
  return entity.fields.filter((f) => {
    if (!heads.has(f.name)) return false;
    const value = record[f.name];
    return value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
  });
}

/** "Set an assignee first." — "Set a resolution and an asset tag first.": what to fill in, said first. */
export function setFirst(fields: readonly Pick<Field, 'name' | 'label'>[]): string {
  const named = fields.map((f) => {
    const words = (f.label ?? f.name.replace(/_/g, ' '))
      .split(/\s+/)
      .map((w) => (w.length > 1 && w === w.toUpperCase() ? w : w.toLowerCase()))
      .join(' ');
    return `${/^[aeiou]/i.test(words) && !/^u[a-z]i/i.test(words) ? 'an' : 'a'} ${words}`;
  });
  return `Set ${wordList(named, 'and')} first.`;
}

/**
 * The code a refusal by rules answers with when every failure has the same code (one rule
 * refused, or several sharing a code): that code, with its status, so a client reads a rule's
 * code (OWN_TALK) at the top level as it reads FORBIDDEN or a limit's 409; null when the answer
 * is VALIDATION_FAILED (422) listing codes that differ. `errors[]` lists the failures either way.
 */
export function sharedRefusalCode(codes: readonly string[]): string | null {
  const distinct = new Set(codes);
  const [only] = distinct;
  return distinct.size === 1 && only !== undefined ? only : null;
}
