import { describe, expect, it } from 'vitest';
import { TEST_DATABASES } from '../../test/databases.ts';
import { modelOf, REVIEWS_AND_APPOINTMENTS } from '../../test/helpers.ts';
import { userWithToken } from '../../test/users.ts';
import { createServer } from '../app/server.ts';

/** The clinic of the limits fixture in Berlin: "per day of starts_at" is a Berlin day. */
const BERLIN = REVIEWS_AND_APPOINTMENTS.replace(
  '| MAX_PER_DAY        | 3     |',
  '| TIME_ZONE          | Europe/Berlin | the clinic’s calendar |\n| MAX_PER_DAY        | 3     |',
);

// On PostgreSQL too: a local day is a range of timestamps that each database compares its own way.
describe.each(TEST_DATABASES)('limits per local day on $name', (db) => {
  it('counts a doctor’s day in Berlin across the switch to summer time (a 23-hour day)', async () => {
    expect(BERLIN).not.toBe(REVIEWS_AND_APPOINTMENTS);
    const temp = await db.fresh();
    const server = await createServer({ model: modelOf(BERLIN), ...temp.options, logger: false });
    try {
      const { authorization } = await userWithToken(server);
      const call = async (url: string, body: unknown) => {
        const answer = await server.app.inject({
          method: 'POST',
          url,
          headers: { authorization, 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
        return { status: answer.statusCode, body: answer.json() as Record<string, unknown> };
      };
      const doctor = String((await call('/api/doctors', { name: 'Dr Who' })).body.id);
      const request = (startsAt: string) => call('/api/appointments', { doctor, patient: 'Ada', starts_at: startsAt });
      // 29 March 2026 in Berlin runs from 23:00 UTC the day before to 22:00 UTC (clocks go forward at 02:00).
      expect((await request('2026-03-28T23:30:00Z')).status).toBe(201); // 00:30 local, UTC's 28 March
      expect((await request('2026-03-29T09:00:00Z')).status).toBe(201); // 11:00 local
      expect((await request('2026-03-29T21:30:00Z')).status).toBe(201); // 23:30 local
      const full = await request('2026-03-29T12:00:00Z');
      expect([full.status, full.body.code]).toEqual([409, 'DOCTOR_FULL']);
      // 00:30 on 30 March in Berlin is still 29 March in UTC: another local day.
      expect((await request('2026-03-29T22:30:00Z')).status).toBe(201);
      // The day before, in UTC the same day as the first request, has room.
      expect((await request('2026-03-28T22:30:00Z')).status).toBe(201);
    } finally {
      await server.close();
      await temp.remove();
    }
  });
});
