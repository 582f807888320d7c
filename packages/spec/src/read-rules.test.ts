import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { limitGroupWords } from './limit-words.ts';

/** A clinic: doctors, appointments with a date-time and a date, and a state machine. */
const clinic = (condition: string) => `# Specification: Clinic

## 1. What the product does and for whom

Takes appointments with a clinic's doctors.

## 2. Screens and routes

Not shown.

## 3. Entities and their fields

### Doctor

| field | type | rules    |
| ----- | ---- | -------- |
| name  | text | required |

### Appointment

| field     | type     | rules    |
| --------- | -------- | -------- |
| doctor    | Doctor   | required |
| room      | text     | optional |
| starts_at | datetime | required |
| booked_on | date     | optional |

## 4. States and transitions

### Appointment

| transition | from      | to        |
| ---------- | --------- | --------- |
| request    | (new)     | requested |
| confirm    | requested | confirmed |

## 5. Validation rules

| rule  | applies to  | condition    | error |
| ----- | ----------- | ------------ | ----- |
| limit | Appointment | ${condition} | FULL  |

## 6. Roles and permissions

Not shown.

## 7. The calls it makes

Not shown.

## 8. The error catalogue

| code | status | message                                 |
| ---- | ------ | --------------------------------------- |
| FULL | 409    | A doctor sees {MAX_PER_DAY} at most. |

## 9. Business constants and limits

| name        | value |
| ----------- | ----- |
| MAX_PER_DAY | 3     |
`;

const limitOf = (condition: string) => {
  const { model, diagnostics } = checkSpec(clinic(condition));
  return { condition: model.rules[0]?.condition, diagnostics };
};

describe('a cross-record limit', () => {
  it('counts per one field, as before', () => {
    const { condition, diagnostics } = limitOf('at most 2 Appointment in state requested per doctor');
    expect(diagnostics).toEqual([]);
    expect(condition).toEqual({
      kind: 'limit',
      max: { value: 2, constant: null },
      entity: 'Appointment',
      states: ['requested'],
      per: ['doctor'],
      period: null,
    });
  });

  it('counts per several fields, written with commas or "and"', () => {
    for (const grouping of ['per doctor, room', 'per doctor and room', 'per doctor , room']) {
      const { condition, diagnostics } = limitOf(`at most 1 Appointment ${grouping}`);
      expect(diagnostics).toEqual([]);
      expect(condition).toMatchObject({ per: ['doctor', 'room'], period: null, states: [] });
    }
    expect(limitOf('at most 1 Appointment per doctor, room and created_by').condition).toMatchObject({
      per: ['doctor', 'room', 'created_by'],
    });
  });

  it('counts per fields and a calendar period of a date-time, the state list ending at "per"', () => {
    const { condition, diagnostics } = limitOf(
      'at most MAX_PER_DAY Appointment in state requested, confirmed per doctor per day of starts_at',
    );
    expect(diagnostics).toEqual([]);
    expect(condition).toEqual({
      kind: 'limit',
      max: { value: 3, constant: 'MAX_PER_DAY' },
      entity: 'Appointment',
      states: ['requested', 'confirmed'],
      per: ['doctor'],
      period: { unit: 'day', field: 'starts_at' },
    });
  });

  it('counts per a period alone, of a date field or of created_at and updated_at', () => {
    expect(limitOf('at most 100 Appointment per week of booked_on').condition).toMatchObject({
      per: [],
      period: { unit: 'week', field: 'booked_on' },
    });
    expect(limitOf('at most 100 Appointment per Month of created_at').condition).toMatchObject({
      per: [],
      period: { unit: 'month', field: 'created_at' },
    });
    expect(limitOf('at most 100 Appointment per doctor per year of updated_at').diagnostics).toEqual([]);
  });

  it('refuses a period of a field that holds no date, with the date fields as a hint', () => {
    const { diagnostics } = limitOf('at most 3 Appointment per doctor per day of room');
    expect(diagnostics).toMatchObject([
      {
        code: 'invalid-limit',
        message: 'Rule "limit" counts per period of room, whose values are text, not dates.',
        hint: 'Name a date or date-time field: starts_at, booked_on, created_at, updated_at.',
      },
    ]);
  });

  it('reports an unknown field of the grouping or the period with did-you-mean', () => {
    const fields = limitOf('at most 1 Appointment per doctr, room').diagnostics;
    expect(fields).toMatchObject([{ code: 'unknown-field', expected: ['doctor'] }]);
    const period = limitOf('at most 3 Appointment per doctor per day of start_at').diagnostics;
    expect(period).toMatchObject([{ code: 'unknown-field', expected: ['starts_at'] }]);
    // Where the mistake is, so the editor underlines it.
    const source = clinic('at most 3 Appointment per doctor per day of start_at');
    const [found] = checkSpec(source).diagnostics;
    const line = source.split('\n')[(found?.line ?? 0) - 1] ?? '';
    expect(line.slice((found?.column ?? 0) - 1, (found?.endColumn ?? 0) - 1)).toBe('start_at');
  });

  it('refuses a period that is not day, week, month or year', () => {
    const { diagnostics } = limitOf('at most 3 Appointment per doctor per hour of starts_at');
    expect(diagnostics).toMatchObject([
      { code: 'invalid-limit', message: 'Rule "limit" counts per "hour", which is not a period.' },
    ]);
    expect(diagnostics[0]?.hint).toContain('per week of');
  });

  it('asks of which date a bare period is', () => {
    const { diagnostics } = limitOf('at most 3 Appointment per doctor per day');
    expect(diagnostics).toMatchObject([
      {
        code: 'invalid-limit',
        message: 'Rule "limit" counts per day without saying of which date.',
        hint: 'Name a date or date-time field of Appointment: "per day of starts_at".',
      },
    ]);
  });

  it('wants the period last and the fields named once', () => {
    expect(limitOf('at most 3 Appointment per day of starts_at per doctor').diagnostics).toMatchObject([
      { code: 'invalid-limit', message: 'Rule "limit" counts per day of starts_at before its other groups.' },
    ]);
    expect(limitOf('at most 3 Appointment per doctor per room').diagnostics).toMatchObject([
      {
        code: 'invalid-limit',
        message: 'Rule "limit" names the fields it counts per in two places.',
        hint: 'List the fields once, before any period: "per doctor, room".',
      },
    ]);
    expect(limitOf('at most 3 Appointment per doctor, doctor').diagnostics).toMatchObject([
      { code: 'invalid-limit', message: 'Rule "limit" counts per doctor twice.' },
    ]);
    expect(limitOf('at most 3 Appointment per doctor,, room').diagnostics).toMatchObject([
      { code: 'invalid-limit', message: 'Rule "limit" counts per "", which is not a field name.' },
    ]);
    expect(limitOf('at most 3 Appointment per the doctor').diagnostics).toMatchObject([
      {
        code: 'invalid-limit',
        message: 'Rule "limit" counts per "the doctor", which is not a field name.',
        hint: 'Name fields of Appointment separated by commas or "and": "per doctor, room".',
      },
    ]);
  });

  it('refuses a limit with nothing to count per, pointing to the grammar', () => {
    const { diagnostics } = limitOf('at most 3 Appointment in state requested');
    expect(diagnostics).toMatchObject([{ code: 'invalid-limit' }]);
    expect(diagnostics[0]?.hint).toContain('per day of');
  });
});

describe('limitGroupWords', () => {
  it('writes a limit grouping the way the checker reads it back', () => {
    for (const grouping of [
      'per doctor',
      'per doctor and room',
      'per doctor, room and created_by',
      'per doctor per day of starts_at',
      'per week of booked_on',
    ]) {
      const { condition } = limitOf(`at most 3 Appointment ${grouping}`);
      if (condition?.kind !== 'limit') throw new Error(`no limit read from "${grouping}"`);
      expect(limitGroupWords(condition)).toBe(grouping);
    }
  });
});
