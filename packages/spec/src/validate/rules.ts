import type { DiagnosticBag } from '../diagnostics.ts';
import type { ExpressionItem } from '../expressions.ts';
import { isMoment } from '../field-kinds.ts';
import type { Model, Rule } from '../model.ts';
import { dateFields, type PeriodDraft } from '../read-rules.ts';
import { typeWords } from '../type-words.ts';

/**
 * Point 5's checks against point 3, once every point is read: a limit counts per period of a date
 * or date-time field. Returns the rules that pass, for the model.
 */
export function validateRules(
  drafts: { rules: readonly Rule[]; periods: readonly PeriodDraft[] },
  model: Model,
  bag: DiagnosticBag,
): Rule[] {
  const failed = new Set<string>();
  for (const { rule, entity: name, cell } of drafts.periods) {
    const entity = model.entities.find((e) => e.name === name);
    const field = entity?.fields.find((f) => f.name === cell.text);
    if (!entity || !field || isMoment(field.type)) continue;
    bag.report(
      'invalid-limit',
      cell.span,
      `Rule "${rule}" counts per period of ${field.name}, whose values are ${typeWords(field)}, not dates.`,
      { hint: `Name a date or date-time field: ${dateFields(entity).join(', ')}.` },
    );
    failed.add(rule);
  }
  return drafts.rules.filter((r) => !failed.has(r.name));
}

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
