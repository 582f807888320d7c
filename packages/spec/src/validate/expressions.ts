import type { DiagnosticBag } from '../diagnostics.ts';
import { ExpressionChecker } from '../expressions.ts';
import type { Model } from '../model.ts';
import { effectExpressions } from './effects.ts';
import { conditionExpressions } from './rules.ts';
import { guardExpressions } from './states.ts';

/**
 * Type-checks point 4's guards and sets and point 5's conditions, each against its entity (and field), in
 * one pass: the checker builds one environment per entity from every expression about it, so
 * guards and conditions checked apart would each see only the entities and constants their own
 * half names.
 */
export function validateExpressions(model: Model, bag: DiagnosticBag): void {
  const items = [...guardExpressions(model), ...conditionExpressions(model), ...effectExpressions(model, bag)];
  new ExpressionChecker(model).checkAll(items, bag);
}
