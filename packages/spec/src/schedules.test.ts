import { describe, expect, it } from 'vitest';
import { lastOccurrence, readSchedule, scheduleWordsToCron } from './schedules.ts';

describe('schedules', () => {
  it('translates words to cron', () => {
    expect(scheduleWordsToCron('every day at 07:00')).toBe('0 7 * * *');
    expect(scheduleWordsToCron('Every Monday at 09:30')).toBe('30 9 * * 1');
    expect(scheduleWordsToCron('every weekday at 08:30')).toBe('30 8 * * 1-5');
    expect(scheduleWordsToCron('every hour')).toBe('0 * * * *');
    expect(scheduleWordsToCron('every 15 minutes')).toBe('*/15 * * * *');
    expect(scheduleWordsToCron('every month on the 1st at 06:00')).toBe('0 6 1 * *');
    expect(scheduleWordsToCron('0 7 * * *')).toBeNull();
  });

  it('reads cron patterns through croner and refuses what does not parse', () => {
    expect(readSchedule('0 7 * * 1-5')).toEqual({ ok: true, cron: '0 7 * * 1-5' });
    expect(readSchedule('61 * * * *').ok).toBe(false);
    expect(readSchedule('0 7 * *').ok).toBe(false);
    expect(readSchedule('every day at 25:00').ok).toBe(false);
    expect(readSchedule('every fortnight').ok).toBe(false);
  });

  it('finds the latest occurrence at or before a time, in the time zone given', () => {
    const at = new Date('2026-03-02T07:00:00Z');
    expect(lastOccurrence('0 7 * * *', at, 'UTC')?.toISOString()).toBe('2026-03-02T07:00:00.000Z');
    expect(lastOccurrence('0 7 * * *', new Date(at.getTime() - 1000), 'UTC')?.toISOString()).toBe(
      '2026-03-01T07:00:00.000Z',
    );
    // 07:00 in Berlin is 06:00 UTC in winter and 05:00 UTC in summer.
    expect(lastOccurrence('0 7 * * *', at, 'Europe/Berlin')?.toISOString()).toBe('2026-03-02T06:00:00.000Z');
    expect(lastOccurrence('0 7 * * *', new Date('2026-03-30T12:00:00Z'), 'Europe/Berlin')?.toISOString()).toBe(
      '2026-03-30T05:00:00.000Z',
    );
  });
});
