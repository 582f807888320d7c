import { describe, expect, it } from 'vitest';
import { etagOf, ifMatchVersions } from './etag.ts';
import { isDate, normalizeDateTime } from './values.ts';

describe('normalizeDateTime', () => {
  it('writes every accepted date-time in UTC with milliseconds', () => {
    expect(normalizeDateTime('2025-03-01T10:30:00+02:00')).toBe('2025-03-01T08:30:00.000Z');
    expect(normalizeDateTime('2025-03-01t10:30:00.5z')).toBe('2025-03-01T10:30:00.500Z');
    expect(normalizeDateTime('2025-03-01 10:30:00.123456Z')).toBe('2025-03-01T10:30:00.123Z');
  });

  it('answers null for what it cannot hold', () => {
    for (const text of ['2016-12-31T23:59:60Z', '2025-03-01', 'tomorrow', '2025-03-01T10:30:00', '']) {
      expect(normalizeDateTime(text), text).toBeNull();
    }
  });
});

describe('isDate', () => {
  it('accepts calendar dates only', () => {
    expect(isDate('2024-02-29')).toBe(true);
    expect(isDate('2025-02-29')).toBe(false);
    expect(isDate('2030-02-30')).toBe(false);
    expect(isDate('2030-1-1')).toBe(false);
  });
});

describe('ETags', () => {
  it('are the quoted version, and If-Match names the versions it allows', () => {
    expect(etagOf(3)).toBe('"3"');
    expect(ifMatchVersions(undefined)).toBeNull();
    expect(ifMatchVersions('*')).toBeNull();
    expect(ifMatchVersions('"3"')).toEqual([3]);
    expect(ifMatchVersions('"1", W/"4"')).toEqual([1, 4]);
    expect(ifMatchVersions(['"1"', '"2"'])).toEqual([1, 2]);
    // Nothing we gave out: matches no version, so the write is refused.
    expect(ifMatchVersions('3')).toEqual([]);
    expect(ifMatchVersions('"abc"')).toEqual([]);
  });
});
