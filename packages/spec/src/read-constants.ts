import type { Constant, ConstantType } from './model.ts';
import { CONSTANT_NAME } from './names.ts';
import type { Section } from './parse-sections.ts';
import { allTables, docOf, NameSet, requiredCell, rowsOf, validName } from './read-helpers.ts';
import { RUNTIME_CONSTANTS } from './runtime-constants.ts';
import type { Scope } from './scope.ts';
import { isTimeZone, TIME_ZONE_CONSTANT } from './time-zone.ts';

const COLUMNS = [
  { key: 'name', names: ['name', 'constant', 'limit', 'setting'], required: true },
  { key: 'value', names: ['value', 'default'], required: true },
];

const DURATION_UNITS: Record<string, number> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86400,
  week: 604800,
};

/** Point 9: constants with typed values. A runtime setting out of its range is not read. */
export function readConstants(section: Section, scope: Scope): Constant[] {
  const { bag } = scope;
  const names = new NameSet(bag, 'constant');
  const constants: Constant[] = [];
  for (const row of rowsOf(allTables(section), COLUMNS, bag, 'constants')) {
    const name = requiredCell(row, 'name', bag, 'A constant');
    const value = requiredCell(row, 'value', bag, `Constant ${name?.text ?? ''}`.trim());
    if (!name || !value) continue;
    if (!validName(name, CONSTANT_NAME, bag, 'constant', 'Constants are UPPER_SNAKE_CASE, e.g. MAX_LOANS')) continue;
    if (!names.add(name)) continue;
    const typed = readValue(value.text);
    if (typed.invalid !== undefined) {
      bag.report('invalid-constant', value.span, `Constant ${name.text}: "${value.text}" ${typed.invalid}.`, {
        hint: 'Write a date as YYYY-MM-DD (2026-03-01) or a date-time as ISO 8601 with its zone (2026-03-01T09:00:00Z); quote text that only looks like one ("2026-03-01").',
      });
      continue;
    }
    const constant: Constant = {
      name: name.text,
      type: typed.type,
      value: typed.value,
      raw: value.text,
      meaning: docOf(row),
      span: row.span,
    };
    if (name.text === TIME_ZONE_CONSTANT) {
      scope.usedConstants.add(name.text);
      if (typed.type !== 'text' || !isTimeZone(String(typed.value))) {
        bag.report('unknown-time-zone', value.span, `TIME_ZONE "${value.text}" is not an IANA time zone name.`, {
          hint: 'Write a name from the IANA time zone database, such as Europe/Berlin, America/New_York or UTC.',
        });
        continue;
      }
    }
    const setting = RUNTIME_CONSTANTS[name.text as keyof typeof RUNTIME_CONSTANTS];
    if (setting) {
      scope.usedConstants.add(name.text);
      if (typed.type !== 'integer' || (typed.value as number) < setting.min || (typed.value as number) > setting.max) {
        bag.report(
          'invalid-constant',
          value.span,
          `${name.text} sets the runtime's ${setting.meaning}; "${value.text}" is not allowed.`,
          {
            hint: `Write a whole number from ${setting.min} to ${setting.max} (default ${setting.default}).`,
          },
        );
        continue;
      }
    }
    constants.push(constant);
    scope.constants.set(constant.name, constant);
  }
  return constants;
}

/**
 * Reads a constant's value: number, boolean, duration, date (`2026-03-01`), date-time (ISO 8601
 * with its zone), or text (quoted or bare). A value that starts like a date but is not a valid one
 * (`2026-02-30`, a date-time without a zone) is `invalid`, saying why, rather than read as text.
 */
export function readValue(text: string): { type: ConstantType; value: number | boolean | string; invalid?: string } {
  if (/^-?\d+$/.test(text)) return { type: 'integer', value: Number(text) };
  if (/^-?\d+\.\d+$/.test(text)) return { type: 'decimal', value: Number(text) };
  if (/^(true|yes)$/i.test(text)) return { type: 'boolean', value: true };
  if (/^(false|no)$/i.test(text)) return { type: 'boolean', value: false };
  const duration = /^(\d+(?:\.\d+)?)\s*(second|minute|hour|day|week)s?$/i.exec(text);
  if (duration) {
    const unit = DURATION_UNITS[(duration[2] ?? '').toLowerCase()] ?? 1;
    return { type: 'duration', value: Number(duration[1]) * unit };
  }
  if (/^\d{4}-\d{2}-\d{2}(?:$|[Tt ]\d)/.test(text)) return readMoment(text);
  const quoted = /^"(.*)"$/.exec(text);
  return { type: 'text', value: quoted ? (quoted[1] ?? '') : text };
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/i;

function readMoment(text: string): { type: 'date' | 'datetime'; value: string; invalid?: string } {
  const date = DATE.exec(text);
  if (date) {
    const [, y, m, d] = date.map(Number) as [number, number, number, number];
    if (!realDate(y, m, d)) return { type: 'date', value: text, invalid: 'is not a date that exists' };
    return { type: 'date', value: text };
  }
  const moment = DATE_TIME.exec(text);
  if (!moment) {
    return {
      type: 'datetime',
      value: text,
      invalid: 'starts like a date but is neither a date nor an ISO 8601 date-time',
    };
  }
  const [, y, m, d, h, min, sec = '0', fraction = '', zone] = moment as unknown as string[];
  if (!realDate(Number(y), Number(m), Number(d)) || Number(h) > 23 || Number(min) > 59 || Number(sec) > 59) {
    return { type: 'datetime', value: text, invalid: 'is not a date and time that exists' };
  }
  if (zone === undefined) {
    return { type: 'datetime', value: text, invalid: 'has no time zone, so the moment it names is unclear' };
  }
  const offset = /^z$/i.test(zone)
    ? 0
    : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4)));
  const millis = Math.floor(Number(`0${fraction || '.0'}`) * 1000);
  const utc =
    Date.UTC(Number(y), Number(m) - 1, Number(d), Number(h), Number(min), Number(sec), millis) - offset * 60_000;
  return { type: 'datetime', value: new Date(utc).toISOString() };
}

function realDate(year: number, month: number, day: number): boolean {
  const at = new Date(Date.UTC(year, month - 1, day));
  return at.getUTCFullYear() === year && at.getUTCMonth() === month - 1 && at.getUTCDate() === day;
}
