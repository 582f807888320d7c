import type { Field } from '@ninepoint/spec';

/** A spreadsheet guards a text that would run as a formula with an apostrophe (the app's CSV export does too). */
const GUARDED = /^'[=+\-@\t\r]/;

/**
 * A cell's text as the JSON value a create's body would hold for the field, or undefined for an
 * empty cell (the field is left out: its default applies, or REQUIRED). Text that is not of the
 * field's type is passed on as it is, so that the create's own checks refuse it (INVALID_TYPE)
 * with the message every create gives; nothing is decided here that a create decides.
 */
export function cellValue(field: Field, text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  switch (field.type.kind) {
    case 'integer':
      return /^[+-]?\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
    case 'decimal':
      return /^[+-]?(\d+\.?\d*|\.\d+)$/.test(trimmed) ? Number(trimmed) : trimmed;
    case 'boolean': {
      const word = trimmed.toLowerCase();
      if (['true', 'yes', 'y', '1'].includes(word)) return true;
      if (['false', 'no', 'n', '0'].includes(word)) return false;
      return trimmed;
    }
    case 'choice': {
      // The value as the spec writes it, whatever its case in the file.
      const found = field.type.values.find((v) => v.toLowerCase() === trimmed.toLowerCase());
      return found ?? trimmed;
    }
    case 'date':
    case 'datetime':
    case 'reference':
      return trimmed;
    default:
      return GUARDED.test(text) ? text.slice(1) : text;
  }
}

/** Whether a cell holds a formula as a spreadsheet would read it (`=…`): it is never evaluated. */
export function isFormula(text: string): boolean {
  return text.startsWith('=');
}
