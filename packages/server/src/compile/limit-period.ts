import type { PeriodUnit } from '@ninepoint/spec';

/**
 * The UTC calendar period holding `value` (a date `YYYY-MM-DD` or an ISO 8601 date-time) as
 * [from, to), written the way the column stores its values: dates as `YYYY-MM-DD`, date-times as
 * ISO 8601 in UTC with milliseconds. A week starts on Monday (ISO 8601). Null for a value that is
 * no date. The end of a period in year 9999 is in year 10000, written `+010000-01-01…` as ISO
 * 8601 writes such years: later than any stored value (`countConditions` leaves it out).
 *
 * @example
 * periodBounds('week', '2026-11-26T15:30:00.000Z', 'datetime')
 * // { from: '2026-11-23T00:00:00.000Z', to: '2026-11-30T00:00:00.000Z' }
 */
export function periodBounds(
  unit: PeriodUnit,
  value: string,
  type: 'date' | 'datetime',
): { from: string; to: string } | null {
  const ms =
    type === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00.000Z`) : Date.parse(value);
  if (Number.isNaN(ms)) return null;
  const at = new Date(ms);
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth();
  const day = at.getUTCDate();
  let from: Date;
  let to: Date;
  switch (unit) {
    case 'day':
      from = utc(year, month, day);
      to = utc(year, month, day + 1);
      break;
    case 'week': {
      const monday = day - ((at.getUTCDay() + 6) % 7);
      from = utc(year, month, monday);
      to = utc(year, month, monday + 7);
      break;
    }
    case 'month':
      from = utc(year, month, 1);
      to = utc(year, month + 1, 1);
      break;
    case 'year':
      from = utc(year, 0, 1);
      to = utc(year + 1, 0, 1);
      break;
  }
  const text = (d: Date) => {
    const iso = d.toISOString();
    return type === 'date' ? iso.slice(0, iso.indexOf('T')) : iso;
  };
  return { from: text(from), to: text(to) };
}

/** Midnight UTC of a day; days and months past their end roll over. `Date.UTC` would read years 0–99 as 1900–1999. */
function utc(year: number, month: number, day: number): Date {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  return d;
}
