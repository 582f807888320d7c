import type { LimitPeriod } from './model.ts';

/**
 * What a limit counts per, as a spec would write it (and the checker reads back): "per borrower",
 * "per talk and reviewer", "per doctor per day of starts_at", "per day of created_at".
 */
export function limitGroupWords(limit: { per: readonly string[]; period: LimitPeriod | null }): string {
  const { per, period } = limit;
  const fields = per.length <= 1 ? (per[0] ?? '') : `${per.slice(0, -1).join(', ')} and ${per.at(-1)}`;
  return [fields, period ? `${period.unit} of ${period.field}` : '']
    .filter((part) => part !== '')
    .map((part) => `per ${part}`)
    .join(' ');
}
