import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_ONLY, type TestDatabase } from '../../test/databases.ts';
import { modelOf, REVIEWS_AND_APPOINTMENTS } from '../../test/helpers.ts';
import { knownUser, userWithToken } from '../../test/users.ts';
import { createServer } from '../app/server.ts';

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  body: Json;
}

const reviewer = (n: number) => `0190f3c4-7a2b-7c3d-8e4f-0000000000${String(n).padStart(2, '0')}`;

async function start(db: TestDatabase) {
  const temp = await db.fresh();
  const server = await createServer({ model: modelOf(REVIEWS_AND_APPOINTMENTS), ...temp.options, logger: false });
  const { authorization } = await userWithToken(server);
  for (let n = 1; n <= 9; n++) await knownUser(server, reviewer(n));
  const call = async (method: string, url: string, body?: unknown): Promise<Answer> => {
    const response = await server.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    return { status: response.statusCode, body: response.body === '' ? {} : (response.json() as Json) };
  };
  const created = async (url: string, body: Json): Promise<string> => {
    const answer = await call('POST', url, body);
    expect(answer.status).toBe(201);
    return String(answer.body.id);
  };
  const stop = async () => {
    await server.close();
    await temp.remove();
  };
  return { call, created, stop };
}

describe.each(SQLITE_ONLY)('on $name', (db) => {
  let app: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    app = await start(db);
  });
  afterAll(() => app.stop());

  describe('at most 1 Review per talk, reviewer', () => {
    it('lets exactly 1 of 30 concurrent reviews of one talk by one reviewer through, other pairs unaffected', async () => {
      const talk = await app.created('/api/talks', { title: 'Indexes that pay for themselves' });
      const other = await app.created('/api/talks', { title: 'Advisory locks' });
      const review = (talkId: string, by: string) =>
        app.call('POST', '/api/reviews', { talk: talkId, reviewer: by, score: 4 });
      const answers = await Promise.all(Array.from({ length: 30 }, () => review(talk, reviewer(1))));
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
      const refused = answers.filter((a) => a.status !== 201);
      expect(refused).toHaveLength(29);
      for (const answer of refused) {
        expect(answer.status).toBe(409);
        expect(answer.body.code).toBe('ALREADY_REVIEWED');
        expect(answer.body.errors).toEqual([
          expect.objectContaining({
            field: null,
            code: 'ALREADY_REVIEWED',
            message: 'You have already reviewed this talk.',
          }),
        ]);
      }
      // The same talk by another reviewer, and the same reviewer on another talk, are other groups.
      expect((await review(talk, reviewer(2))).status).toBe(201);
      expect((await review(other, reviewer(1))).status).toBe(201);
      const list = await app.call('GET', `/api/reviews?filter[talk]=${talk}&count=true`);
      expect(list.body.total).toBe(2);
    });

    it('does not count reviews with no reviewer', async () => {
      const talk = await app.created('/api/talks', { title: 'Anonymous feedback' });
      for (let i = 0; i < 3; i++) {
        expect((await app.call('POST', '/api/reviews', { talk, score: 3 })).status).toBe(201);
      }
    });

    it('refuses an update that moves a review into a pair that already has one', async () => {
      const talk = await app.created('/api/talks', { title: 'Counting in SQL' });
      await app.created('/api/reviews', { talk, reviewer: reviewer(3), score: 5 });
      const second = await app.created('/api/reviews', { talk, reviewer: reviewer(4), score: 2 });
      const moved = await app.call('PATCH', `/api/reviews/${second}`, { reviewer: reviewer(3) });
      expect(moved.status).toBe(409);
      expect(moved.body.code).toBe('ALREADY_REVIEWED');
      expect((await app.call('GET', `/api/reviews/${second}`)).body.reviewer).toBe(reviewer(4));
      // Changing another field of a review already in its pair is no new review.
      expect((await app.call('PATCH', `/api/reviews/${second}`, { score: 3 })).status).toBe(200);
    });
  });

  describe('at most MAX_PER_DAY Appointment in state requested, confirmed per doctor per day of starts_at', () => {
    const request = (doctor: string, startsAt: string | null, patient = 'Ada') =>
      app.call('POST', '/api/appointments', { doctor, patient, starts_at: startsAt });

    it('lets exactly 3 of 30 concurrent requests for one doctor on one day through; another day counts apart', async () => {
      const doctor = await app.created('/api/doctors', { name: 'Dr Who' });
      const otherDoctor = await app.created('/api/doctors', { name: 'Dr No' });
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          request(doctor, `2026-03-10T${String(8 + (i % 10)).padStart(2, '0')}:00:00Z`, `patient ${i}`),
        ),
      );
      expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
      const refused = answers.filter((a) => a.status !== 201);
      expect(refused).toHaveLength(27);
      for (const answer of refused) {
        expect(answer.status).toBe(409);
        expect(answer.body.code).toBe('DOCTOR_FULL');
        expect(answer.body.detail).toBe('The doctor sees at most 3 patients a day.');
      }
      // The next day, the last millisecond of the day before and another doctor are other groups.
      const nextDay = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          request(doctor, `2026-03-11T${String(8 + (i % 10)).padStart(2, '0')}:30:00Z`),
        ),
      );
      expect(nextDay.filter((a) => a.status === 201)).toHaveLength(3);
      expect((await request(doctor, '2026-03-09T23:59:59.999Z')).status).toBe(201);
      expect((await request(otherDoctor, '2026-03-10T09:00:00Z')).status).toBe(201);
      // A day is a UTC day: 01:00 at +02:00 on the 11th is 23:00 UTC on the 10th, which is full.
      expect((await request(doctor, '2026-03-11T01:00:00+02:00')).body.code).toBe('DOCTOR_FULL');
      const list = await app.call('GET', `/api/appointments?filter[doctor]=${doctor}&count=true`);
      expect(list.body.total).toBe(7);
    });

    it('counts only appointments in a counted state: a cancelled one makes room, reopening it into a full day is refused', async () => {
      const doctor = await app.created('/api/doctors', { name: 'Dr Jekyll' });
      const ids: string[] = [];
      for (const hour of ['09', '10', '11']) {
        const answer = await request(doctor, `2026-04-01T${hour}:00:00Z`);
        expect(answer.status).toBe(201);
        ids.push(String(answer.body.id));
      }
      expect((await request(doctor, '2026-04-01T12:00:00Z')).body.code).toBe('DOCTOR_FULL');
      // Confirming moves between two counted states: nothing is added.
      expect((await app.call('POST', `/api/appointments/${ids[0]}/confirm`)).status).toBe(200);
      expect((await app.call('POST', `/api/appointments/${ids[1]}/cancel`)).status).toBe(200);
      expect((await request(doctor, '2026-04-01T12:00:00Z')).status).toBe(201);
      const reopened = await app.call('POST', `/api/appointments/${ids[1]}/reopen`);
      expect(reopened.status).toBe(409);
      expect(reopened.body.code).toBe('DOCTOR_FULL');
      expect((await app.call('GET', `/api/appointments/${ids[1]}`)).body.state).toBe('cancelled');
    });

    it('refuses an update moving an appointment into a full day, not one moving it within its own day', async () => {
      const doctor = await app.created('/api/doctors', { name: 'Dr Strange' });
      for (const hour of ['09', '10', '11'])
        expect((await request(doctor, `2026-05-04T${hour}:00:00Z`)).status).toBe(201);
      const elsewhere = await request(doctor, '2026-05-05T09:00:00Z');
      const id = String(elsewhere.body.id);
      const moved = await app.call('PATCH', `/api/appointments/${id}`, { starts_at: '2026-05-04T15:00:00Z' });
      expect(moved.status).toBe(409);
      expect(moved.body.code).toBe('DOCTOR_FULL');
      expect((await app.call('GET', `/api/appointments/${id}`)).body.starts_at).toBe('2026-05-05T09:00:00.000Z');
      const full = await app.call('GET', `/api/appointments?filter[doctor]=${doctor}&limit=1`);
      const inFullDay = String((full.body.items as Json[])[0]?.id);
      expect(
        (await app.call('PATCH', `/api/appointments/${inFullDay}`, { starts_at: '2026-05-04T16:00:00Z' })).status,
      ).toBe(200);
    });

    it('does not count an appointment with no time', async () => {
      const doctor = await app.created('/api/doctors', { name: 'Dr Zhivago' });
      for (let i = 0; i < 5; i++) expect((await request(doctor, null)).status).toBe(201);
    });
  });

  describe('at most 2 Talk per week of slot (a date)', () => {
    it('counts the ISO week from Monday to Sunday, whatever the other fields', async () => {
      const talk = (slot: string) => app.call('POST', '/api/talks', { title: `On ${slot}`, slot });
      // 2026-06-01 is a Monday and 2026-06-07 the Sunday of its week.
      expect((await talk('2026-06-01')).status).toBe(201);
      expect((await talk('2026-06-07')).status).toBe(201);
      const third = await talk('2026-06-03');
      expect(third.status).toBe(409);
      expect(third.body.code).toBe('WEEK_FULL');
      expect((await talk('2026-06-08')).status).toBe(201);
      expect((await talk('2026-05-31')).status).toBe(201);
    });

    it('counts the last week of year 9999 like any other', async () => {
      const talk = (slot: string) => app.call('POST', '/api/talks', { title: `On ${slot}`, slot });
      expect((await talk('9999-12-27')).status).toBe(201);
      expect((await talk('9999-12-31')).status).toBe(201);
      expect((await talk('9999-12-29')).body.code).toBe('WEEK_FULL');
    });
  });

  describe('at most MAX_ORDERS_PER_DAY Order per day of created_at', () => {
    it('lets exactly 3 of 10 concurrent orders through on one day', async () => {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => app.call('POST', '/api/orders', { item: `item ${i}` })),
      );
      const days = new Set(answers.filter((a) => a.status === 201).map((a) => String(a.body.created_at).slice(0, 10)));
      // Run across midnight UTC, each day has its own 3.
      expect(answers.filter((a) => a.status === 201)).toHaveLength(3 * days.size);
      expect(answers.find((a) => a.status !== 201)?.body.code).toBe('SHOP_FULL');
    });
  });
});
