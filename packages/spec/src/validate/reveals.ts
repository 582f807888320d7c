import type { DiagnosticBag } from '../diagnostics.ts';
import { chainsOf } from '../evaluate.ts';
import { findCounts } from '../filled-terms.ts';
import {
  ANYONE,
  type Entity,
  type Field,
  type Model,
  type Permission,
  rolesDeclared,
  type Span,
  type Transition,
} from '../model.ts';
import { USER_ENTITY } from '../names.ts';

/** Every field of a record: the role reads none of the entity's records. */
const EVERYTHING = '*';
const AUTHOR = 'created_by';

/**
 * Point 5's (and point 4's guards') check against point 6: a rule, guard or limit is an oracle.
 * Whether a write passes tells the writer something about every value the condition reads, so a
 * role that can trigger it learns what it reads, hidden or not (17 creates find a budget by
 * halving, with `value <= project.budget`). The checker warns (`reveals-hidden`) when a role that
 * can trigger a rule, guard or limit may not read a field it reads, on the record itself or
 * through a reference, and when a limit counts records the role may not read. A rule meant to
 * tell it says so in its `reveals` column (the paths, `count`, or `yes`), which silences it; a
 * guard has no such column: the same condition as a rule on the transition (`Claim: approve`)
 * may be marked.
 *
 * The runtime keeps its side of the model: a refusal says no more than the rule's message
 * (whose placeholders of hidden fields stay unfilled) and its code.
 */
export function validateReveals(model: Model, bag: DiagnosticBag): void {
  if (!rolesDeclared(model)) return;
  const roles = [
    ...model.roles.map((r) => r.name),
    ...(model.permissions.some((p) => p.role === ANYONE) ? [ANYONE] : []),
  ];
  const entities = new Map(model.entities.map((e) => [e.name, e]));
  const grants = new Map(model.permissions.map((p) => [`${p.role}\u0000${p.entity}`, p]));
  const grant = (role: string, entity: string): Permission | undefined => grants.get(`${role}\u0000${entity}`);
  // Worked out once per role and entity: a spec may hold thousands of rules over thousands of fields.
  const hiddenSets = new Map<string, ReadonlySet<string>>();
  /** The fields of an entity a role may not read (`*`: none of its records). */
  const hiddenFrom = (role: string, entity: Entity): ReadonlySet<string> => {
    const key = `${role}\u0000${entity.name}`;
    const known = hiddenSets.get(key);
    if (known) return known;
    const p = grant(role, entity.name);
    const hidden = new Set<string>();
    if (!p || p.read === 'none') hidden.add(EVERYTHING);
    else {
      if (p.readFields !== null) {
        const shown = new Set(p.readFields);
        for (const f of entity.fields) if (!shown.has(f.name)) hidden.add(f.name);
      }
      if (p.hidesAuthor === true) hidden.add(AUTHOR);
    }
    hiddenSets.set(key, hidden);
    return hidden;
  };
  const headSets = new Map<string, ReadonlySet<string>>();
  /** The names a condition on the entity starts a chain with: its fields, `created_by` and `value`. */
  const headsOf = (entity: Entity): ReadonlySet<string> => {
    let heads = headSets.get(entity.name);
    if (!heads) {
      heads = new Set([...entity.fields.map((f) => f.name), AUTHOR, 'value']);
      headSets.set(entity.name, heads);
    }
    return heads;
  };
  const machineOf = (entity: string) => model.machines.find((m) => m.entity === entity);
  const mayTake = (role: string, entity: string, t: Transition): boolean => {
    if (t.automatic && t.who.length === 0) return false;
    if (t.who.length > 0) return t.who.includes(role) || t.who.includes(ANYONE);
    const p = grant(role, entity);
    return t.creates ? p?.create === true : (p?.update ?? 'none') !== 'none';
  };
  /** Whether the role changes existing records (so reads stored values), not only creates them. */
  const changers = new Map<string, boolean>();
  const changes = (role: string, entity: string): boolean => {
    const key = `${role}\u0000${entity}`;
    let answer = changers.get(key);
    if (answer === undefined) {
      answer =
        (grant(role, entity)?.update ?? 'none') !== 'none' ||
        (machineOf(entity)?.transitions.some((t) => !t.creates && mayTake(role, entity, t)) ?? false);
      changers.set(key, answer);
    }
    return answer;
  };
  const writes = (role: string, entity: string): boolean =>
    grant(role, entity)?.create === true || changes(role, entity);

  /** The first hidden step of each chain the source reads, as written (`project.budget`). */
  const hiddenPaths = (chains: string[][], entity: Entity, role: string, valueField: string | null): string[] => {
    const found: string[] = [];
    for (const chain of chains) {
      if (chain[0] === 'value' && !valueField) continue;
      let current: Entity | undefined = entity;
      for (let i = 0; i < chain.length && current; i++) {
        const name = i === 0 && chain[0] === 'value' && valueField ? valueField : (chain[i] as string);
        const hidden = hiddenFrom(role, current);
        // A role that only creates reads on its own record what it sent, not what is stored.
        const own = i === 0 && !changes(role, entity.name);
        if (!own && (hidden.has(name) || (hidden.has(EVERYTHING) && i > 0))) {
          found.push(chain.slice(0, i + 1).join('.'));
          break;
        }
        const field: Field | undefined = current.fields.find((f) => f.name === name);
        current =
          field?.type.kind === 'reference' && field.type.entity !== USER_ENTITY
            ? entities.get(field.type.entity)
            : undefined;
      }
    }
    return [...new Set(found)];
  };

  const report = (what: string, code: string, role: string, read: string, span: Span, silence: string) => {
    bag.report(
      'reveals-hidden',
      span,
      `${what} reads ${read}, which ${role} may not read: ${role} can trigger it, and learns about it from whether the write passes (${code}).`,
      { hint: `Check only what ${role} reads, let ${role} read it, or ${silence}` },
    );
  };

  /**
   * The `count(Review where talk = this)` terms of a condition that count records the role may
   * not read (whose number it learns from whether the write passes): the counted entity is not
   * all the role's to read, and the field the count is by does not make the records its own.
   */
  const unreadCounts = (source: string, role: string): string[] =>
    findCounts(source).terms.flatMap((term) => {
      const counted = entities.get(term.entity);
      if (!counted) return [];
      return countsUnread(grant(role, counted.name), counted, [term.field]) ? [term.entity] : [];
    });
  /**
   * The `Expense.project` of each `count(Expense where project = this)` whose counted records the
   * role may read but whose `where` field it may not: the number tells how many of them point at
   * this record (or the caller), which is what the hidden field holds. Counting the records the
   * caller made (`created_by = user`) tells them only of their own.
   */
  const hiddenCountFields = (source: string, role: string): string[] =>
    findCounts(source).terms.flatMap((term) => {
      const counted = entities.get(term.entity);
      if (!counted || countsUnread(grant(role, counted.name), counted, [term.field])) return [];
      if (term.field === AUTHOR && term.target === 'user') return [];
      return hiddenFrom(role, counted).has(term.field) ? [`${term.entity}.${term.field}`] : [];
    });
  const reportCount = (what: string, code: string, role: string, counted: string, span: Span, silence: string) => {
    bag.report(
      'reveals-hidden',
      span,
      `${what} counts ${counted} records ${role} may not read: ${role} can trigger it, and learns how many there are from whether the write passes (${code}).`,
      { hint: `Count by a field that makes the counted records ${role}'s own, let ${role} read them, or ${silence}` },
    );
  };

  for (const rule of model.rules) {
    const entity = entities.get(rule.appliesTo.entity);
    if (!entity) continue;
    const marked = (path: string) =>
      rule.reveals === 'all' ||
      (rule.reveals ?? []).some((r) => r === path || (path === 'value' && r === rule.appliesTo.field));
    const transition = rule.appliesTo.transition
      ? machineOf(entity.name)?.transitions.find((t) => t.name === rule.appliesTo.transition)
      : undefined;
    const triggers = roles.filter((role) =>
      transition ? mayTake(role, entity.name, transition) : writes(role, entity.name),
    );
    const what = `Rule "${rule.name}"`;
    const silence = (path: string) =>
      `if the rule is meant to tell it, write "${path}" in the rule's "reveals" column (point 5).`;
    const chains = rule.condition.kind === 'expression' ? chainsOf(rule.condition.source, headsOf(entity)) : [];
    for (const role of triggers) {
      if (rule.condition.kind === 'expression') {
        for (const path of hiddenPaths(chains, entity, role, rule.appliesTo.field)) {
          if (!marked(path)) report(what, rule.error, role, path, rule.conditionSpan, silence(path));
        }
        if (!marked('count')) {
          for (const counted of new Set(unreadCounts(rule.condition.source, role))) {
            reportCount(what, rule.error, role, counted, rule.conditionSpan, silence('count'));
          }
        }
        for (const path of new Set(hiddenCountFields(rule.condition.source, role))) {
          if (!marked(path) && !marked('count')) {
            report(what, rule.error, role, path, rule.conditionSpan, silence(path));
          }
        }
        continue;
      }
      const { per, period } = rule.condition;
      const hidden = hiddenFrom(role, entity);
      for (const field of [...per, ...(period ? [period.field] : [])]) {
        if (hidden.has(field) && !hidden.has(EVERYTHING) && !marked(field)) {
          report(what, rule.error, role, field, rule.conditionSpan, silence(field));
        }
      }
      // Per a reference to a record of the role's own (an Employee read own via account): the
      // counted records all share that record, so they are the role's own business.
      const perOwn = per.some((name) => {
        const field = entity.fields.find((f) => f.name === name);
        if (field?.type.kind !== 'reference' || field.type.entity === USER_ENTITY) return false;
        return grant(role, field.type.entity)?.read === 'own';
      });
      if (!marked('count') && !perOwn && countsUnread(grant(role, entity.name), entity, per)) {
        bag.report(
          'reveals-hidden',
          rule.conditionSpan,
          `${what} counts ${entity.name} records ${role} may not read: ${role} can trigger it, and learns how many there are from whether the write passes (${rule.error}).`,
          {
            hint: `Count per a field that makes the counted records ${role}'s own, or, if the count is meant to be told, write "count" in the rule's "reveals" column (point 5).`,
          },
        );
      }
    }
  }

  for (const machine of model.machines) {
    const entity = entities.get(machine.entity);
    if (!entity) continue;
    for (const t of machine.transitions) {
      if (t.guard === null) continue;
      const chains = chainsOf(t.guard, headsOf(entity));
      for (const role of roles.filter((r) => mayTake(r, entity.name, t))) {
        // A hidden field the guard reads, or one a count in it counts by: each told once.
        for (const path of new Set([...hiddenPaths(chains, entity, role, null), ...hiddenCountFields(t.guard, role)])) {
          report(
            `The guard of "${t.name}"`,
            t.error ?? 'TRANSITION_NOT_ALLOWED',
            role,
            path,
            t.guardSpan ?? t.span,
            `if it is meant to tell it, write the condition as a rule of point 5 on "${entity.name}: ${t.name}" with "${path}" in its "reveals" column.`,
          );
        }
        for (const counted of new Set(unreadCounts(t.guard, role))) {
          reportCount(
            `The guard of "${t.name}"`,
            t.error ?? 'TRANSITION_NOT_ALLOWED',
            role,
            counted,
            t.guardSpan ?? t.span,
            `if it is meant to tell it, write the condition as a rule of point 5 on "${entity.name}: ${t.name}" with "count" in its "reveals" column.`,
          );
        }
      }
    }
  }
}

/**
 * Whether a limit counts records the role may not read: it reads only some (own, while) and the
 * counted records need not be its own (no `per` field is the one that makes a record its own).
 */
function countsUnread(p: Permission | undefined, entity: Entity, per: readonly string[]): boolean {
  if (!p || p.read === 'none') return true;
  if (p.read === 'all' && p.inStates.read === null) return false;
  if (p.inStates.read !== null) return true;
  const owners = p.via.read?.map((chain) => chain[0] as string) ?? [
    AUTHOR,
    ...entity.fields.filter((f) => f.type.kind === 'reference' && f.type.entity === USER_ENTITY).map((f) => f.name),
  ];
  return !per.some((field) => owners.includes(field));
}
