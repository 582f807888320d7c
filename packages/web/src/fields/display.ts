import type { Field } from '@ninepoint/spec';
import { formatDate, formatDateTime, formatNumber as formatShared } from '../format.ts';

const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

// Dates and numbers read the same on every screen: the list's formatting is the one used here.
export { formatDate, formatDateTime };

/** `3 hours ago`, `yesterday`, `in 2 days`. */
export function formatRelative(text: string, now = Date.now()): string {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return text;
  const seconds = Math.round((ms - now) / 1000);
  const steps: [Intl.RelativeTimeFormatUnit, number][] = [
    ['second', 60],
    ['minute', 60],
    ['hour', 24],
    ['day', 30],
    ['month', 12],
    ['year', Number.POSITIVE_INFINITY],
  ];
  let value = seconds;
  for (const [unit, size] of steps) {
    if (Math.abs(value) < size)
      return unit === 'second' && Math.abs(value) < 45 ? 'just now' : RELATIVE.format(value, unit);
    value = Math.round(value / size);
  }
  return RELATIVE.format(value, 'year');
}

/** A number with its field's decimal places (`12.50`), grouped for reading. */
export function formatNumber(value: number, field?: Field): string {
  return formatShared(value, field?.type.kind === 'decimal' ? field.type.scale : null);
}

/** Only web addresses become links: never `javascript:` or `data:`. */
export function safeHref(value: string): string | null {
  return /^https?:\/\//i.test(value) ? value : null;
}

/** Documentation from the spec as a sentence: `the day it left the desk` → `The day it left the desk.` */
export function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  const first = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?:…)"”]$/.test(first) ? first : `${first}.`;
}
