import { assertNever, type FieldType, kindFacts } from '@ninepoint/spec';

/**
 * A date and time in one form, UTC with milliseconds (`2025-01-31T09:30:00.000Z`), so stored
 * values sort and compare as the times they are whatever offset they were sent with; null when
 * it is not a time JavaScript can represent (a leap second, say). Finer fractions are cut to ms.
 */
export function normalizeDateTime(text: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/.test(text)) return null;
  const ms = Date.parse(text.replace(' ', 'T'));
  if (Number.isNaN(ms)) return null;
  const iso = new Date(ms).toISOString();
  // Years past 9999 print as +010000-…: not a date-time any schema accepts.
  return iso.length === 24 ? iso : null;
}

/**
 * A field's text in the one form it is stored in, so values that mean the same are the same:
 * ids in lower case (`0190…` and `0190…` in capitals name one record), date-times in UTC
 * (`normalizeDateTime`, null when it is none), as a list filter reads them. Other text is stored as sent.
 */
export function storedText(type: FieldType, text: string): string | null {
  const kind = kindFacts(type).filter;
  switch (kind) {
    case 'reference':
      return text.toLowerCase();
    case 'datetime':
      return normalizeDateTime(text);
    case 'text':
    case 'choice':
    case 'date':
    case 'integer':
    case 'decimal':
    case 'boolean':
      return text;
    default:
      return assertNever(kind);
  }
}

/** A real calendar date written as YYYY-MM-DD (no 30 February). */
export function isDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const ms = Date.parse(`${text}T00:00:00.000Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}
