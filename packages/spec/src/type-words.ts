import type { Field } from './model.ts';

/** What a field's values are, in words, for INVALID_TYPE's `{type}`: the same in the server's answers and the browser's checks. */
export function typeWords(field: Field): string {
  const t = field.type;
  switch (t.kind) {
    case 'text':
    case 'longText':
      return 'text';
    case 'integer':
      return 'a whole number';
    case 'decimal':
      return t.scale === null
        ? 'a number'
        : `a number with at most ${t.scale} decimal place${t.scale === 1 ? '' : 's'}`;
    case 'boolean':
      return 'true or false';
    case 'date':
      return 'a date (YYYY-MM-DD)';
    case 'datetime':
      return 'a date and time with a time zone (ISO 8601)';
    case 'email':
      return 'an email address';
    case 'url':
      return 'a web address starting with http:// or https://';
    case 'choice':
      return `one of ${t.values.join(', ')}`;
    case 'reference':
      return `the id of a ${t.entity}`;
  }
}
