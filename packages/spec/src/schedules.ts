import { Cron } from 'croner';

/** A schedule read: the cron pattern it stands for, or why it does not parse. */
export type ScheduleReading = { ok: true; cron: string } | { ok: false; why: string };

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const TIME = /^(\d{1,2}):(\d{2})$/;

/** `07:00` → [7, 0]; null for no time of day. */
function timeOf(text: string): [number, number] | null {
  const m = TIME.exec(text);
  if (!m) return null;
  const hour = Number(m[1]);
  const minute = Number(m[2]);
  return hour < 24 && minute < 60 ? [hour, minute] : null;
}

/**
 * Words to cron: `every hour`, `every day at 07:00`, `every monday at 09:00`, `every weekday at
 * 08:30`, `every 15 minutes`, `every month on the 1st at 06:00`. Null when the text is not words
 * (it is then read as a cron pattern).
 */
export function scheduleWordsToCron(text: string): string | null {
  const words = text.trim().toLowerCase().replace(/\s+/g, ' ');
  if (!words.startsWith('every ')) return null;
  const rest = words.slice('every '.length);
  if (rest === 'minute') return '* * * * *';
  if (rest === 'hour') return '0 * * * *';
  const minutes = /^(\d+) minutes$/.exec(rest);
  if (minutes) {
    const n = Number(minutes[1]);
    return n > 0 && n < 60 && 60 % n === 0 ? `*/${n} * * * *` : '';
  }
  const hours = /^(\d+) hours$/.exec(rest);
  if (hours) {
    const n = Number(hours[1]);
    return n > 0 && n < 24 && 24 % n === 0 ? `0 */${n} * * *` : '';
  }
  const at = /^(.+?) at (\S+)$/.exec(rest);
  const when = at ? (at[1] as string) : rest;
  const time = at ? timeOf(at[2] as string) : [0, 0];
  if (!time) return '';
  const [hour, minute] = time;
  if (when === 'day') return `${minute} ${hour} * * *`;
  if (when === 'weekday') return `${minute} ${hour} * * 1-5`;
  const day = DAYS.indexOf(when);
  if (day >= 0) return `${minute} ${hour} * * ${day}`;
  const month = /^month on the (\d{1,2})(?:st|nd|rd|th)?$/.exec(when);
  if (month) {
    const n = Number(month[1]);
    return n >= 1 && n <= 28 ? `${minute} ${hour} ${n} * *` : '';
  }
  return '';
}

/** Reads a schedule in words or in five-field cron syntax, parsing the pattern with croner. */
export function readSchedule(text: string): ScheduleReading {
  const words = scheduleWordsToCron(text);
  if (words === '') return { ok: false, why: `"${text}" is not a schedule in words` };
  const cron = words ?? text.trim().replace(/\s+/g, ' ');
  if (words === null && cron.split(' ').length !== 5) {
    return { ok: false, why: `"${text}" is neither words nor a cron pattern of five fields` };
  }
  try {
    new Cron(cron, { paused: true, mode: '5-part' });
    return { ok: true, cron };
  } catch (error) {
    return { ok: false, why: `"${text}" is not a cron pattern (${(error as Error).message})` };
  }
}

/** The latest time the schedule fell due at or before `at`, in the time zone given; null if none. */
export function lastOccurrence(cron: string, at: Date, timeZone: string): Date | null {
  const job = new Cron(cron, { paused: true, mode: '5-part', timezone: timeZone });
  // previousRuns is strictly before its reference: a run exactly at `at` is due now.
  return job.previousRuns(1, new Date(at.getTime() + 1000))[0] ?? null;
}
