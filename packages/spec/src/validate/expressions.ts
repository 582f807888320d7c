import type { DiagnosticBag } from '../diagnostics.ts';
import { ExpressionChecker } from '../expressions.ts';
import type { Model } from '../model.ts';
import { conditionExpressions } from './rules.ts';
import { guardExpressions } from './states.ts';

/**
 * Type-checks point 4's guards and point 5's conditions, each against its entity (and field), in
 * one pass: the checker builds one environment per entity from every expression about it, so
 * guards and conditions checked apart would each see only the entities and constants their own
 * half names.
 */
export function validateExpressions(model: Model, bag: DiagnosticBag): void {
  new ExpressionChecker(model).checkAll([...guardExpressions(model), ...conditionExpressions(model)], bag);
}
