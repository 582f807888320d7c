import { assertNever, type Field } from '@ninepoint/spec';
import type { Value } from '../rules/field-checks.ts';
import { webKind } from './field-kinds.ts';

/**
 * What an input holds while the user types: text for most fields (`''` when empty), a number or
 * the text typed so far for numbers, a boolean for a checkbox, a local `YYYY-MM-DDTHH:mm` for a
 * date and time.
 */
export type InputValue = string | number | boolean;

export type InputValues = Record<string, InputValue>;

const pad = (n: number) => String(n).padStart(2, '0');

/** Today in the user's calendar: `YYYY-MM-DD`. */
export function todayText(now = new Date()): string {
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** An ISO date-time as a `datetime-local` input shows it, in the user's time zone. */
export function localDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return `${todayText(date)}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The input for a stored value. */
export function toInput(field: Field, value: unknown): InputValue {
  const form = webKind(field.type).form;
  if (form === 'checkbox') return value === true;
  if (value === null || value === undefined) return '';
  switch (form) {
    case 'instant':
      return localDateTime(String(value));
    case 'number':
      return typeof value === 'number' ? value : '';
    case 'typed':
    case 'picked':
      return String(value);
    default:
      return assertNever(form);
  }
}

/** The input a new record starts with: the field's default (`today`, `now`, `me`, a literal), or empty. */
export function defaultInput(field: Field, me: string | null): InputValue {
  const d = field.default;
  if (d === null) return toInput(field, null);
  if ('literal' in d) return toInput(field, d.literal);
  switch (d.dynamic) {
    case 'today':
      return todayText();
    case 'now':
      return localDateTime(new Date().toISOString());
    case 'me':
      return me ?? '';
  }
}

/**
 * The value to send for an input; `invalid` when it cannot be read as the field's type (then the
 * browser says so before the server has to).
 */
export function fromInput(field: Field, input: InputValue | undefined): { value: Value; invalid: boolean } {
  const form = webKind(field.type).form;
  if (form === 'checkbox') return { value: input === true, invalid: false };
  if (input === undefined || input === '') return { value: null, invalid: false };
  switch (form) {
    case 'number': {
      const n = typeof input === 'number' ? input : Number(String(input).trim());
      return Number.isFinite(n) ? { value: n, invalid: false } : { value: null, invalid: true };
    }
    case 'instant': {
      const ms = Date.parse(String(input));
      return Number.isNaN(ms) ? { value: null, invalid: true } : { value: new Date(ms).toISOString(), invalid: false };
    }
    case 'typed': {
      // Surrounding spaces are a slip of the keyboard, not part of the value.
      const text = String(input).trim();
      return { value: text === '' ? null : text, invalid: false };
    }
    case 'picked':
      return { value: String(input), invalid: false };
    default:
      return assertNever(form);
  }
}

/** Whether the user changed an input from the value it started from. */
export function changed(field: Field, input: InputValue | undefined, stored: unknown): boolean {
  const now = fromInput(field, input);
  const before = fromInput(field, toInput(field, stored));
  return now.invalid || now.value !== before.value;
}
