import { chainsOf, type Model, type Rule } from '@ninepoint/spec';
import { planLimitCheck } from './new-limit.ts';
import { planRuleCheck } from './new-rule.ts';
import type { TablePlan } from './table-plan.ts';

/** Steps for the new and changed rules of an entity whose table has rows, each held against the rows. */
export function planChangedRules(plan: TablePlan, previousModel: Model): void {
  const { context, entity, table } = plan;
  for (const rule of context.model.rules) {
    // A rule of a transition applies only when it is taken: existing rows are not held to it.
    if (rule.appliesTo.entity !== entity.name || rule.appliesTo.transition !== null) continue;
    const before = previousModel.rules.find((r) => r.name === rule.name) ?? null;
    if (before && sameRule(before, rule, previousModel, context.model)) continue;
    const where = { entity: entity.name, table: table.name, field: rule.appliesTo.field, column: null };
    const named = `Rule "${rule.name}" (${before ? 'changed' : 'new'}) on ${entity.name}${rule.appliesTo.field ? `.${rule.appliesTo.field}` : ''}`;
    const { condition } = rule;
    if (condition.kind === 'expression') planRuleCheck(plan, rule, condition.source, where, named);
    // Only limits over the rule's own entity are enforced (compile/entity-logic.ts).
    else if (condition.entity === entity.name) planLimitCheck(plan, condition, where, named);
  }
}

/** Two rules hold the same rows to the same thing: same target, same condition, same constants' values. */
function sameRule(before: Rule, after: Rule, previousModel: Model, model: Model): boolean {
  const target = (r: Rule) => `${r.appliesTo.entity}|${r.appliesTo.field ?? ''}|${r.appliesTo.transition ?? ''}`;
  if (target(before) !== target(after)) return false;
  const b = before.condition;
  const a = after.condition;
  if (a.kind === 'limit' || b.kind === 'limit') {
    return (
      a.kind === 'limit' &&
      b.kind === 'limit' &&
      a.max.value === b.max.value &&
      a.entity === b.entity &&
      a.per.join('|') === b.per.join('|') &&
      a.period?.unit === b.period?.unit &&
      a.period?.field === b.period?.field &&
      a.states.join('|') === b.states.join('|')
    );
  }
  if (a.source !== b.source) return false;
  const constants = new Set(model.constants.map((c) => c.name));
  const valueIn = (m: Model, name: string) => JSON.stringify(m.constants.find((c) => c.name === name)?.value ?? null);
  return chainsOf(a.source, constants).every(([name = '']) => valueIn(model, name) === valueIn(previousModel, name));
}
