import type { ExpressionItem } from '../expressions.ts';
import type { Model } from '../model.ts';

/**
 * Point 5's conditions, for the expression type-check (see `validate/expressions.ts`). The rest
 * of a rule (its target, its limit's grammar, its code) is linked as it is read.
 */
export function conditionExpressions(model: Model): ExpressionItem[] {
  const items: ExpressionItem[] = [];
  for (const rule of model.rules) {
    if (rule.condition.kind !== 'expression') continue;
    const { entity, field } = rule.appliesTo;
    items.push({ source: rule.condition.source, span: rule.conditionSpan, entity, field, what: `Rule "${rule.name}"` });
  }
  return items;
}
