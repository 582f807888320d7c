import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { nextOrOpen, openEvents } from '../../test/event-reader.ts';
import { modelOf } from '../../test/helpers.ts';
import { LIVE_CLINIC } from '../../test/live-clinic.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

// On PostgreSQL too: a change of roles or a deactivation reaches the streams through the change feed, LISTEN/NOTIFY there.
describe.each(TEST_DATABASES)('live updates follow what their user may still see, on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let base: string;
  let admin: string;
  let doctor: { id: string; auth: string; userId: string };
  let patient: { id: string; auth: string; userId: string };
  const call = callAs(() => server);

  const book = async (hour: number): Promise<string> => {
    const made = await call(admin, 'POST', '/api/appointments', {
      doctor: doctor.id,
      patient: patient.id,
      starts_at: `2030-02-01T${10 + hour}:00:00Z`,
    });
    expect(made.status).toBe(201);
    return String(made.body.id);
  };

  beforeAll(async () => {
    fresh = await db.fresh();
    // A heartbeat far off: whatever ends a stream or changes what it carries must not wait for it.
    server = await createServer({
      model: modelOf(LIVE_CLINIC),
      ...fresh.options,
      logger: false,
      live: { heartbeatMs: 600_000 },
    });
    base = await server.listen({ port: 0 });
    admin = (await userWithToken(server, ['admin'])).authorization;
    const d = await userWithToken(server, ['doctor']);
    const madeDoctor = await call(admin, 'POST', '/api/doctors', { name: 'Doctor A', account: d.user.id });
    doctor = { id: String(madeDoctor.body.id), auth: d.authorization, userId: d.user.id };
    const p = await userWithToken(server, ['patient']);
    const madePatient = await call(admin, 'POST', '/api/patients', { name: 'Pat', account: p.user.id });
    patient = { id: String(madePatient.body.id), auth: p.authorization, userId: p.user.id };
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('tells nobody of an update to fields hidden from them, in live updates or history', async () => {
    const id = await book(0);
    const events = await openEvents(base, { authorization: patient.auth });
    try {
      expect((await call(doctor.auth, 'PATCH', `/api/appointments/${id}`, { notes: 'anxious' })).status).toBe(200);
      expect(
        (await call(admin, 'PATCH', `/api/appointments/${id}`, { starts_at: '2030-02-01T12:00:00Z' })).status,
      ).toBe(200);
      // The first event the patient hears of is the change they can see.
      expect(await events.change()).toMatchObject({ id, kind: 'update' });
      const history = await call(patient.auth, 'GET', `/api/appointments/${id}/history`);
      expect((history.body.items as { action: string; changes: object }[]).map((e) => e.action)).toEqual([
        'create',
        'update',
      ]);
      expect(JSON.stringify(history.body)).not.toContain('anxious');
      // Those who see the notes see both.
      const full = await call(doctor.auth, 'GET', `/api/appointments/${id}/history`);
      expect((full.body.items as unknown[]).length).toBe(3);
    } finally {
      await events.cancel();
    }
  });

  it('ends a user’s stream at once when they are deactivated', async () => {
    const { user, authorization } = await userWithToken(server, ['patient']);
    const events = await openEvents(base, { authorization });
    expect(events.status).toBe(200);
    const off = await call(admin, 'PATCH', `/api/users/${user.id}`, { active: false });
    expect(off.status).toBe(200);
    expect(await nextOrOpen(events, 5_000)).toBeNull();
  });

  it('after a demotion, tells the user of nothing they may no longer read', async () => {
    const { user, authorization } = await userWithToken(server, ['doctor']);
    const made = await call(admin, 'POST', '/api/doctors', { name: 'Doctor B', account: user.id });
    const events = await openEvents(base, { authorization });
    try {
      const first = await call(admin, 'POST', '/api/appointments', {
        doctor: made.body.id,
        patient: patient.id,
        starts_at: '2030-03-01T09:00:00Z',
      });
      expect(await events.change()).toMatchObject({ id: first.body.id, kind: 'create' });
      expect((await call(admin, 'PATCH', `/api/users/${user.id}`, { roles: ['patient'] })).status).toBe(200);
      // Their appointment as a doctor changes: no longer theirs to read. Then a doctor is added, which patients read.
      await call(admin, 'PATCH', `/api/appointments/${first.body.id}`, { notes: 'moved' });
      const someone = await userWithToken(server, []);
      const other = await call(admin, 'POST', '/api/doctors', { name: 'Doctor C', account: someone.user.id });
      expect(await events.change()).toMatchObject({ entity: 'Doctor', id: other.body.id, kind: 'create' });
    } finally {
      await events.cancel();
    }
  });
});

describe.each(TEST_DATABASES.filter((db) => db.name === 'postgres'))(
  'a deactivation heard across servers on $name',
  (db) => {
    it('ends the user’s stream on another server of the same database at once', async () => {
      const fresh = await db.fresh();
      const servers: NinepointServer[] = [];
      try {
        for (let i = 0; i < 2; i++) {
          const options = {
            model: modelOf(LIVE_CLINIC),
            ...fresh.options,
            logger: false as const,
            live: { heartbeatMs: 600_000 },
          };
          servers.push(await createServer(options));
        }
        const [a, b] = servers as [NinepointServer, NinepointServer];
        const admin = (await userWithToken(a, ['admin'])).authorization;
        const { user, authorization } = await userWithToken(a, ['patient']);
        const events = await openEvents(await b.listen({ port: 0 }), { authorization });
        expect(events.status).toBe(200);
        const off = await callAs(() => a)(admin, 'PATCH', `/api/users/${user.id}`, { active: false });
        expect(off.status).toBe(200);
        expect(await nextOrOpen(events, 5_000)).toBeNull();
      } finally {
        for (const server of servers) await server.close();
        await fresh.remove();
      }
    });
  },
);
