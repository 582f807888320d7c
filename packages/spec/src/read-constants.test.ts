import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { MessageCatalogue } from './message-catalogue.ts';
import { readValue } from './read-constants.ts';

/** A spec whose point 9 holds `rows`, each used by a message so none is unused. */
function constants(rows: readonly [string, string][]) {
  const table = rows.map(([name, value]) => `| ${name} | ${value} |`).join('\n');
  const message = rows.map(([name]) => `{${name}}`).join(' ');
  const checked = checkSpec(`# Specification: Constants

## 8. The error catalogue

| code     | status | message      |
| -------- | ------ | ------------ |
| NOT_FOUND | 404   | ${message} |

## 9. Business constants and limits

| name | value |
| ---- | ----- |
${table}
`);
  return { ...checked, diagnostics: checked.diagnostics.filter((d) => d.code !== 'missing-section') };
}

describe('constant values', () => {
  it('reads a number, a boolean, a duration, a date, a date-time and text by their form', () => {
    expect(readValue('5')).toEqual({ type: 'integer', value: 5 });
    expect(readValue('12.50')).toEqual({ type: 'decimal', value: 12.5 });
    expect(readValue('yes')).toEqual({ type: 'boolean', value: true });
    expect(readValue('14 days')).toEqual({ type: 'duration', value: 14 * 86_400 });
    expect(readValue('2026-03-01')).toEqual({ type: 'date', value: '2026-03-01' });
    expect(readValue('2026-03-01T09:00:00Z')).toEqual({ type: 'datetime', value: '2026-03-01T09:00:00.000Z' });
    expect(readValue('2026-03-01T09:00-05:30')).toEqual({ type: 'datetime', value: '2026-03-01T14:30:00.000Z' });
    expect(readValue('2026-03-01T09:00:00.25z')).toEqual({ type: 'datetime', value: '2026-03-01T09:00:00.250Z' });
    expect(readValue('"2026-03-01"')).toEqual({ type: 'text', value: '2026-03-01' });
    expect(readValue('1 month')).toEqual({ type: 'text', value: '1 month' });
  });

  it('checks date constants cleanly and fills a message with the value as written', () => {
    const { diagnostics, model } = constants([
      ['DEADLINE', '2026-03-01'],
      ['CUTOFF', '2026-03-01T09:00:00+01:00'],
    ]);
    expect(diagnostics).toEqual([]);
    expect(model.constants.map((c) => c.raw)).toEqual(['2026-03-01', '2026-03-01T09:00:00+01:00']);
    expect(new MessageCatalogue(model).fill('Closed on {DEADLINE} at {CUTOFF}.')).toBe(
      'Closed on 2026-03-01 at 2026-03-01T09:00:00+01:00.',
    );
  });

  it('refuses a date that does not exist, a date-time without a zone and a value that only starts like a date', () => {
    const { diagnostics, model } = constants([
      ['LEAP', '2026-02-30'],
      ['HOUR', '2026-03-01T25:00:00Z'],
      ['LOCAL', '2026-03-01T09:00:00'],
      ['SPACED', '2026-03-01 09:00'],
      ['FINE', '2028-02-29'],
    ]);
    // A refused constant is left out, so the message naming it names an unknown constant too.
    const refused = diagnostics.filter((d) => d.code === 'invalid-constant');
    expect(refused.map((d) => d.line)).toEqual([13, 14, 15, 16]);
    expect(refused[0]?.message).toContain('not a date that exists');
    expect(refused[2]?.message).toContain('no time zone');
    expect(refused[0]?.column).toBe('| LEAP | '.length + 1);
    expect(model.constants.map((c) => c.name)).toEqual(['FINE']);
  });

  it('says a date constant used as a number is not one', () => {
    const { diagnostics } = checkSpec(`# Specification: Constants

## 3. Entities and their fields

### Book

| field  | type    | rules            |
| ------ | ------- | ---------------- |
| copies | integer | at most DEADLINE |

## 9. Business constants and limits

| name     | value      |
| -------- | ---------- |
| DEADLINE | 2026-03-01 |
`);
    expect(diagnostics.filter((d) => d.code !== 'missing-section').map((d) => [d.code, d.message])).toEqual([
      ['invalid-field-rule', 'Field Book.copies uses constant DEADLINE, which is a date, not a number.'],
    ]);
  });
});
