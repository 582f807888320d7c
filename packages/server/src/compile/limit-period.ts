import { localParts, type PeriodUnit, zonedInstant } from '@ninepoint/spec';

/**
 * The calendar period holding `value` (a date `YYYY-MM-DD` or an ISO 8601 date-time) as
 * [from, to), written the way the column stores its values: dates as `YYYY-MM-DD`, date-times as
 * ISO 8601 in UTC with milliseconds. A week starts on Monday (ISO 8601). Null for a value that is
 * no date. The end of a period in year 9999 is in year 10000, written `+010000-01-01…` as ISO
 * 8601 writes such years: later than any stored value (`countConditions` leaves it out).
 *
 * A date-time's period is a period of the product's local calendar (`zone`, `TIME_ZONE`): a
 * local day may be 23 or 25 hours long across a daylight-saving change. A date is a calendar
 * date whatever the zone.
 *
 * @example
 * periodBounds('week', '2026-11-26T15:30:00.000Z', 'datetime')
 * // { from: '2026-11-23T00:00:00.000Z', to: '2026-11-30T00:00:00.000Z' }
 */
export function periodBounds(
  unit: PeriodUnit,
  value: string,
  type: 'date' | 'datetime',
  zone = 'UTC',
): { from: string; to: string } | null {
  if (type === 'datetime' && zone !== 'UTC') return zonedPeriod(unit, value, zone);
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

/** The local calendar period (in `zone`) holding a date-time, as instants in UTC. */
function zonedPeriod(unit: PeriodUnit, value: string, zone: string): { from: string; to: string } | null {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return null;
  const { year, month, day, weekday } = localParts(new Date(ms), zone);
  // Calendar arithmetic on the local date (as a UTC date, where days never skip), then each end's instant.
  const start = utc(year, month - 1, day);
  const end = utc(year, month - 1, day);
  switch (unit) {
    case 'day':
      end.setUTCDate(end.getUTCDate() + 1);
      break;
    case 'week':
      start.setUTCDate(start.getUTCDate() - ((weekday + 6) % 7));
      end.setTime(start.getTime());
      end.setUTCDate(end.getUTCDate() + 7);
      break;
    case 'month':
      start.setUTCDate(1);
      end.setUTCFullYear(year, month, 1);
      break;
    case 'year':
      start.setUTCFullYear(year, 0, 1);
      end.setUTCFullYear(year + 1, 0, 1);
      break;
  }
  const instant = (d: Date) =>
    zonedInstant(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), zone).toISOString();
  return { from: instant(start), to: instant(end) };
}
