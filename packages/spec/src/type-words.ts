import { valueWords } from './field-kinds.ts';
import type { Field } from './model.ts';

/** What a field's values are, in words, for INVALID_TYPE's `{type}`: the same in the server's answers and the browser's checks. */
export function typeWords(field: Field): string {
  return valueWords(field.type);
}
