import { decimalMultipleTest, type Field, fieldValueSchema, isBlank, type Model, typeWords } from '@ninepoint/spec';
import { fieldLabel } from '../app/screens.ts';
import { catalogueOf, type MessageParams } from './catalogue.ts';

/** A value as the API takes it. */
export type Value = string | number | boolean | null;

/** One field's failure, as the server reports it in a 422's `errors`. */
export interface FieldFailure {
  field: string;
  code: string;
  message: string;
}

/** Close to what the server's `format: email` accepts: something@something.something, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

const patterns = new Map<string, RegExp | null>();

/**
 * A field's pattern as a JavaScript RegExp, or null when it cannot be compiled here. Patterns are
 * RE2 syntax; JavaScript's Unicode mode reads the common subset the same way and refuses escapes
 * it does not know (RE2's `\z`, `(?i)`, `\pL`…), so a pattern it refuses is left to the server.
 */
export function compilePattern(pattern: string): RegExp | null {
  if (!patterns.has(pattern)) {
    let compiled: RegExp | null;
    try {
      compiled = new RegExp(pattern, 'u');
    } catch {
      compiled = null;
    }
    patterns.set(pattern, compiled);
  }
  return patterns.get(pattern) ?? null;
}

export interface CheckOptions {
  /**
   * True when a create leaves an empty field to the server: a required field with a default is
   * then filled in (`default today`), not missing.
   */
  creating: boolean;
}

/**
 * The field rules of point 3 for one value, as the server checks them: required, type, range,
 * length, pattern, choice. The first failure, with its catalogue message; null when it passes.
 * `invalid` marks input that could not be read as the field's type at all (letters in a number).
 */
export function checkField(
  model: Model,
  field: Field,
  value: Value,
  options: CheckOptions,
  invalid = false,
): FieldFailure | null {
  const catalogue = catalogueOf(model);
  const fail = (code: string, params: MessageParams = {}): FieldFailure => ({
    field: field.name,
    code,
    // `{field}` as people read it (`Lent on`), where the server writes the field's name (`lent_on`).
    message: catalogue.message(code, { field: fieldLabel(field), ...params }),
  });
  if (invalid) return fail('INVALID_TYPE', { type: typeWords(field) });
  if (value === null) {
    const filledIn = options.creating && field.default !== null;
    return field.required && !filledIn ? fail('REQUIRED') : null;
  }
  const t = field.type;
  // The bounds are the server's own, read from the JSON Schema it validates the field with.
  const schema = fieldValueSchema(field);
  switch (t.kind) {
    case 'integer':
    case 'decimal': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return fail('INVALID_TYPE', { type: typeWords(field) });
      if (t.kind === 'integer' && !Number.isSafeInteger(value)) return fail('INVALID_TYPE', { type: typeWords(field) });
      if (typeof schema.multipleOf === 'number' && !decimalMultipleTest(schema.multipleOf)(value)) {
        return fail('INVALID_TYPE', { type: typeWords(field) });
      }
      const min = bound(schema.minimum);
      const max = bound(schema.maximum);
      if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
        return fail('OUT_OF_RANGE', { min: min ?? '-∞', max: max ?? '∞' });
      }
      return null;
    }
    case 'text':
    case 'longText':
    case 'email':
    case 'url': {
      if (typeof value !== 'string') return fail('INVALID_TYPE', { type: typeWords(field) });
      // Required means not blank: spaces alone are no title (the server's `NOT_BLANK`).
      if (field.required && isBlank(value)) return fail('REQUIRED');
      const length = Array.from(value).length;
      const minLength = bound(schema.minLength);
      const maxLength = bound(schema.maxLength);
      if (minLength !== undefined && length < minLength) return fail('TOO_SHORT', { min: minLength });
      if (maxLength !== undefined && length > maxLength) return fail('TOO_LONG', { max: maxLength });
      if (t.kind === 'email' && !EMAIL.test(value)) return fail('INVALID_TYPE', { type: typeWords(field) });
      if (t.kind === 'url' && !isWebAddress(value)) return fail('INVALID_TYPE', { type: typeWords(field) });
      if (field.pattern !== null) {
        const pattern = compilePattern(field.pattern);
        if (pattern && !pattern.test(value)) return fail('PATTERN_MISMATCH');
      }
      return null;
    }
    case 'choice':
      return typeof value === 'string' && (schema.enum ?? []).includes(value)
        ? null
        : fail('INVALID_CHOICE', { values: t.values.join(', ') });
    case 'boolean':
      return typeof value === 'boolean' ? null : fail('INVALID_TYPE', { type: typeWords(field) });
    case 'date':
      return typeof value === 'string' && DATE.test(value) && isRealDate(value)
        ? null
        : fail('INVALID_TYPE', { type: typeWords(field) });
    case 'datetime':
      return typeof value === 'string' && DATE_TIME.test(value) && !Number.isNaN(Date.parse(value))
        ? null
        : fail('INVALID_TYPE', { type: typeWords(field) });
    case 'reference':
      return typeof value === 'string' ? null : fail('INVALID_TYPE', { type: typeWords(field) });
  }
}

/** Checks several fields; the failures by field name. */
export function checkFields(
  model: Model,
  fields: readonly Field[],
  values: Readonly<Record<string, Value>>,
  options: CheckOptions,
  invalid: ReadonlySet<string> = new Set(),
): Record<string, FieldFailure> {
  const failures: Record<string, FieldFailure> = {};
  for (const field of fields) {
    const failure = checkField(model, field, values[field.name] ?? null, options, invalid.has(field.name));
    if (failure) failures[field.name] = failure;
  }
  return failures;
}

/**
 * A bound of the schema as people read it: an integer's own safe-integer bound (every integer
 * field has one) is no bound to them, so a range message says -∞ or ∞ there, as before.
 */
function bound(value: unknown): number | undefined {
  return typeof value === 'number' && Math.abs(value) !== Number.MAX_SAFE_INTEGER ? value : undefined;
}

function isRealDate(text: string): boolean {
  const ms = Date.parse(`${text}T00:00:00.000Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === text;
}

function isWebAddress(text: string): boolean {
  if (!/^https?:\/\//.test(text)) return false;
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}
