import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { timestampToIso } from './pg-store.ts';

const viaDate = (text: string) => (pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ)(text) as Date).toISOString();

describe('timestampToIso', () => {
  it('answers what parsing to a Date and writing it out answers, for UTC text of any fraction', () => {
    const fractions = ['', '.5', '.05', '.029', '.0291', '.999999', '.123456', '.1', '.000001'];
    for (const day of ['2025-01-01', '1999-12-31', '2024-02-29', '1000-01-01', '9999-12-31']) {
      for (const time of ['00:00:00', '23:59:59', '12:34:56']) {
        for (const fraction of fractions) {
          const text = `${day} ${time}${fraction}+00`;
          expect(timestampToIso(text), text).toBe(viaDate(text));
        }
      }
    }
    for (let ms = 0; ms < 1000; ms++) {
      const text = `2025-06-01 10:00:00.${String(ms).padStart(3, '0')}+00`;
      expect(timestampToIso(text)).toBe(viaDate(text));
    }
  });

  it('converts text in another zone, or with an odd year, through pg’s parser to UTC', () => {
    for (const text of [
      '2025-01-01 01:00:00+01',
      '2025-01-01 05:30:00.25+05:30',
      '0099-01-01 00:00:00+00',
      '2025-01-01 00:00:00-08',
    ]) {
      expect(timestampToIso(text), text).toBe(viaDate(text));
    }
    expect(timestampToIso('2025-01-01 01:00:00+01')).toBe('2025-01-01T00:00:00.000Z');
  });
});
