import { describe, expect, it } from 'vitest';
import { periodBounds } from './limit-period.ts';

describe('periodBounds', () => {
  it('gives the UTC day, ISO week (from Monday), month and year of a date-time', () => {
    const at = '2026-11-26T15:30:00.000Z'; // a Thursday
    expect(periodBounds('day', at, 'datetime')).toEqual({
      from: '2026-11-26T00:00:00.000Z',
      to: '2026-11-27T00:00:00.000Z',
    });
    expect(periodBounds('week', at, 'datetime')).toEqual({
      from: '2026-11-23T00:00:00.000Z',
      to: '2026-11-30T00:00:00.000Z',
    });
    expect(periodBounds('month', at, 'datetime')).toEqual({
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-12-01T00:00:00.000Z',
    });
    expect(periodBounds('year', at, 'datetime')).toEqual({
      from: '2026-01-01T00:00:00.000Z',
      to: '2027-01-01T00:00:00.000Z',
    });
  });

  it('reads a date-time with an offset in UTC', () => {
    expect(periodBounds('day', '2026-03-11T01:00:00+02:00', 'datetime')?.from).toBe('2026-03-10T00:00:00.000Z');
  });

  it('writes the bounds of a date column as dates, a Sunday belonging to the week before it', () => {
    expect(periodBounds('week', '2026-03-01', 'date')).toEqual({ from: '2026-02-23', to: '2026-03-02' });
    expect(periodBounds('week', '2026-03-02', 'date')).toEqual({ from: '2026-03-02', to: '2026-03-09' });
    expect(periodBounds('month', '2024-02-29', 'date')).toEqual({ from: '2024-02-01', to: '2024-03-01' });
    expect(periodBounds('year', '2026-12-31', 'date')).toEqual({ from: '2026-01-01', to: '2027-01-01' });
  });

  it('crosses month and year ends, and keeps years below 100 as they are', () => {
    expect(periodBounds('week', '2026-12-31', 'date')).toEqual({ from: '2026-12-28', to: '2027-01-04' });
    expect(periodBounds('day', '2026-12-31T23:59:59.999Z', 'datetime')?.to).toBe('2027-01-01T00:00:00.000Z');
    expect(periodBounds('year', '0042-06-01', 'date')).toEqual({ from: '0042-01-01', to: '0043-01-01' });
  });

  it('ends a period of year 9999 in year 10000, written as ISO 8601 writes it', () => {
    expect(periodBounds('year', '9999-06-01', 'date')).toEqual({ from: '9999-01-01', to: '+010000-01-01' });
    expect(periodBounds('day', '9999-12-31T12:00:00.000Z', 'datetime')).toEqual({
      from: '9999-12-31T00:00:00.000Z',
      to: '+010000-01-01T00:00:00.000Z',
    });
  });

  it('answers null for a value that is no date', () => {
    expect(periodBounds('day', 'soon', 'datetime')).toBeNull();
  });
});

describe('periodBounds in a product time zone', () => {
  it('gives the local day of a date-time, 23 hours long when clocks go forward and 25 when they go back', () => {
    // Berlin goes from UTC+1 to UTC+2 at 01:00 UTC on 29 March 2026, and back at 01:00 UTC on 25 October.
    expect(periodBounds('day', '2026-03-29T10:00:00.000Z', 'datetime', 'Europe/Berlin')).toEqual({
      from: '2026-03-28T23:00:00.000Z',
      to: '2026-03-29T22:00:00.000Z',
    });
    expect(periodBounds('day', '2026-10-25T10:00:00.000Z', 'datetime', 'Europe/Berlin')).toEqual({
      from: '2026-10-24T22:00:00.000Z',
      to: '2026-10-25T23:00:00.000Z',
    });
  });

  it('puts an instant in the local day it falls on, not the UTC one', () => {
    // 23:30 UTC on 28 March is 00:30 on 29 March in Berlin.
    expect(periodBounds('day', '2026-03-28T23:30:00.000Z', 'datetime', 'Europe/Berlin')?.from).toBe(
      '2026-03-28T23:00:00.000Z',
    );
    expect(periodBounds('day', '2026-03-28T22:30:00.000Z', 'datetime', 'Europe/Berlin')?.from).toBe(
      '2026-03-27T23:00:00.000Z',
    );
  });

  it('gives the local week from Monday and the local month across a switch', () => {
    expect(periodBounds('week', '2026-03-29T10:00:00.000Z', 'datetime', 'Europe/Berlin')).toEqual({
      from: '2026-03-22T23:00:00.000Z',
      to: '2026-03-29T22:00:00.000Z',
    });
    expect(periodBounds('month', '2026-03-15T10:00:00.000Z', 'datetime', 'Europe/Berlin')).toEqual({
      from: '2026-02-28T23:00:00.000Z',
      to: '2026-03-31T22:00:00.000Z',
    });
    expect(periodBounds('year', '2026-06-01T00:00:00.000Z', 'datetime', 'America/New_York')).toEqual({
      from: '2026-01-01T05:00:00.000Z',
      to: '2027-01-01T05:00:00.000Z',
    });
  });

  it('keeps a date a calendar date whatever the zone', () => {
    expect(periodBounds('day', '2026-03-29', 'date', 'Europe/Berlin')).toEqual({
      from: '2026-03-29',
      to: '2026-03-30',
    });
  });
});
