import type { Model } from './model.ts';

/** The point-9 constant naming the product's time zone. */
export const TIME_ZONE_CONSTANT = 'TIME_ZONE';

/** Whether `name` is an IANA time zone this JavaScript engine knows (`Europe/Berlin`, `UTC`). */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The product's time zone: `TIME_ZONE` from point 9, or `UTC` when it names none. */
export function timeZoneOf(model: Pick<Model, 'constants'>): string {
  const constant = model.constants.find((c) => c.name === TIME_ZONE_CONSTANT);
  return typeof constant?.value === 'string' && isTimeZone(constant.value) ? constant.value : 'UTC';
}

const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * The calendar date and wall-clock time of an instant in a time zone, as numbers (month 1–12,
 * `weekday` 0 for Sunday). One formatter per zone, made once.
 */
export function localParts(
  instant: Date,
  zone: string,
): { year: number; month: number; day: number; hour: number; minute: number; second: number; weekday: number } {
  if (zone === 'UTC') {
    return {
      year: instant.getUTCFullYear(),
      month: instant.getUTCMonth() + 1,
      day: instant.getUTCDate(),
      hour: instant.getUTCHours(),
      minute: instant.getUTCMinutes(),
      second: instant.getUTCSeconds(),
      weekday: instant.getUTCDay(),
    };
  }
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formats.set(zone, format);
  }
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(instant)) parts[part.type] = part.value;
  const year = Number(parts.year);
  return {
    year: parts.era === 'BC' ? 1 - year : year,
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(parts.weekday ?? ''),
  };
}

/** The local calendar date of an instant in a zone, as midnight UTC of that date (how dates are timestamps in expressions). */
export function localDay(instant: Date, zone: string): Date {
  const { year, month, day } = localParts(instant, zone);
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return d;
}

/**
 * The first instant a local wall-clock time shows in a zone (the earlier one of a time repeated
 * when clocks go back). A midnight skipped when clocks go forward begins when they jump.
 */
export function zonedInstant(year: number, month: number, day: number, zone: string, hour = 0, minute = 0): Date {
  const wall = new Date(0);
  wall.setUTCFullYear(year, month - 1, day);
  wall.setUTCHours(hour, minute, 0, 0);
  const target = wall.getTime();
  if (zone === 'UTC') return wall;
  // The zone's offsets a day either side: a daylight-saving change in between is one of them.
  const offsets = [-86_400_000, 0, 86_400_000].map((d) => offsetAt(new Date(target + d), zone));
  const showing = offsets.map((o) => target - o).filter((t) => wallTime(new Date(t), zone) === target);
  return new Date(showing.length > 0 ? Math.min(...showing) : target - Math.min(...offsets));
}

function wallTime(instant: Date, zone: string): number {
  const p = localParts(instant, zone);
  const wall = new Date(0);
  wall.setUTCFullYear(p.year, p.month - 1, p.day);
  wall.setUTCHours(p.hour, p.minute, p.second, instant.getUTCMilliseconds());
  return wall.getTime();
}

function offsetAt(instant: Date, zone: string): number {
  return wallTime(instant, zone) - instant.getTime();
}
