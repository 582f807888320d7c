import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES, TEST_POSTGRES_URL } from '../../test/databases.ts';
import { openEvents } from '../../test/event-reader.ts';
import { modelOf } from '../../test/helpers.ts';
import { callAs, TEST_PASSWORD, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import { channelFor } from './change-feed.ts';

/** Doctors read the appointments made with them (`own via doctor.account`); the admin reads all. */
const CLINIC = readFileSync(new URL('../../test/fixtures/clinic.md', import.meta.url), 'utf8');

// On PostgreSQL too: live updates go through each database's own notifications (PostgreSQL's LISTEN/NOTIFY reaches other servers).
describe.each(TEST_DATABASES)('live updates on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let base: string;
  let admin: string;
  const doctors: { auth: string; id: string; email: string }[] = [];
  let patient: { auth: string; id: string };
  const call = callAs(() => server);

  const book = async (doctor: number, hour: number): Promise<string> => {
    const made = await call(admin, 'POST', '/api/appointments', {
      doctor: doctors[doctor]?.id,
      patient: patient.id,
      starts_at: `2030-02-01T${10 + hour}:00:00Z`,
    });
    expect(made.status).toBe(201);
    return String(made.body.id);
  };

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({
      model: modelOf(CLINIC),
      ...fresh.options,
      logger: false,
      live: { heartbeatMs: 100, maxStreamsPerUser: 2 },
    });
    base = await server.listen({ port: 0 });
    admin = (await userWithToken(server, ['admin'])).authorization;
    for (const name of ['A', 'B']) {
      const { user, authorization } = await userWithToken(server, ['doctor']);
      const created = await call(admin, 'POST', '/api/doctors', { name: `Doctor ${name}`, account: user.id });
      doctors.push({ auth: authorization, id: String(created.body.id), email: user.email });
    }
    const { user, authorization } = await userWithToken(server, ['patient']);
    const created = await call(admin, 'POST', '/api/patients', { name: 'Pat', account: user.id });
    patient = { auth: authorization, id: String(created.body.id) };
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('tells a subscriber of a change to a record they may read, and not of one they may not', async () => {
    const events = await openEvents(base, { authorization: doctors[0]?.auth ?? '', 'accept-encoding': 'br, gzip' });
    try {
      expect(events.status).toBe(200);
      expect(events.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(events.headers.get('x-accel-buffering')).toBe('no');
      expect(events.headers.get('content-encoding')).toBeNull();
      // Doctor B's appointment first: were doctor A told of it, it would be the first event.
      await book(1, 0);
      const mine = await book(0, 1);
      expect(await events.change()).toEqual({
        entity: 'Appointment',
        id: mine,
        kind: 'create',
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      const confirmed = await call(doctors[0]?.auth ?? '', 'POST', `/api/appointments/${mine}/confirm`);
      expect(confirmed.status).toBe(200);
      expect(await events.change()).toMatchObject({ id: mine, kind: 'transition' });
      const edited = await call(doctors[0]?.auth ?? '', 'PATCH', `/api/appointments/${mine}`, { notes: 'bring scans' });
      expect(edited.status).toBe(200);
      expect(await events.change()).toMatchObject({ id: mine, kind: 'update' });
    } finally {
      await events.cancel();
    }
  });

  it('tells of a delete those who could read the record before it', async () => {
    const events = await openEvents(base, { authorization: doctors[1]?.auth ?? '' });
    try {
      const other = await book(0, 2);
      const theirs = await book(1, 3);
      expect(await events.change()).toMatchObject({ id: theirs, kind: 'create' });
      expect((await call(admin, 'DELETE', `/api/appointments/${other}`)).status).toBe(204);
      expect((await call(admin, 'DELETE', `/api/appointments/${theirs}`)).status).toBe(204);
      expect(await events.change()).toEqual(expect.objectContaining({ id: theirs, kind: 'delete' }));
    } finally {
      await events.cancel();
    }
  });

  it('refuses a signed-out visitor', async () => {
    const events = await openEvents(base, {});
    expect(events.status).toBe(401);
    await events.cancel();
  });

  it('keeps at most the bound of streams open per user', async () => {
    const auth = { authorization: patient.auth };
    const first = await openEvents(base, auth);
    const second = await openEvents(base, auth);
    const third = await openEvents(base, auth);
    try {
      expect([first.status, second.status, third.status]).toEqual([200, 200, 429]);
    } finally {
      for (const events of [first, second, third]) await events.cancel();
    }
  });

  it('sends heartbeats, and ends a stream when its session is signed out', async () => {
    const signIn = await fetch(`${base}/api/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ email: doctors[0]?.email, password: TEST_PASSWORD }),
    });
    expect(signIn.status).toBe(200);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';', 1)[0] ?? '';
    const events = await openEvents(base, { cookie });
    expect(events.status).toBe(200);
    let block = await events.block();
    while (block !== null && !block.includes(': keep-alive')) block = await events.block();
    expect(block).toContain(': keep-alive');
    const out = await fetch(`${base}/api/auth/sign-out`, { method: 'POST', headers: { cookie, origin: base } });
    expect(out.status).toBe(204);
    // Ended: no change arrives, the stream closes.
    expect(await events.change()).toBeNull();
  });

  it('ends a stream when its token is revoked, at the next heartbeat', async () => {
    const { user, authorization } = await userWithToken(server, ['admin']);
    const events = await openEvents(base, { authorization });
    expect(events.status).toBe(200);
    const [token] = (await server.auth.tokens.all()).filter((t) => t.userId === user.id);
    expect(await server.auth.tokens.revoke(token?.id ?? '', Date.now())).toBe(true);
    expect(await events.change()).toBeNull();
  });
});

describe.each(TEST_DATABASES)('closing a server with live streams on $name', (db) => {
  it('ends the streams and closes', async () => {
    const fresh = await db.fresh();
    const server = await createServer({ model: modelOf(CLINIC), ...fresh.options, logger: false });
    try {
      const base = await server.listen({ port: 0 });
      const { authorization } = await userWithToken(server, ['admin']);
      const events = await openEvents(base, { authorization });
      expect(events.status).toBe(200);
      await server.close();
      expect(await events.change()).toBeNull();
    } finally {
      await server.close();
      await fresh.remove();
    }
  });
});

describe.each(TEST_DATABASES.filter((db) => db.name === 'postgres'))('live updates across servers on $name', (db) => {
  it('tells a subscriber on one server of a write made on another of the same database', async () => {
    const fresh = await db.fresh();
    const servers: NinepointServer[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        servers.push(await createServer({ model: modelOf(CLINIC), ...fresh.options, logger: false }));
      }
      const [a, b] = servers as [NinepointServer, NinepointServer];
      const callA = callAs(() => a);
      const baseB = await b.listen({ port: 0 });
      const admin = (await userWithToken(a, ['admin'])).authorization;
      const { user, authorization } = await userWithToken(a, ['doctor']);
      const events = await openEvents(baseB, { authorization });
      try {
        expect(events.status).toBe(200);
        const doctor = await callA(admin, 'POST', '/api/doctors', { name: 'Doctor C', account: user.id });
        expect(doctor.status).toBe(201);
        expect(await events.change()).toMatchObject({ entity: 'Doctor', id: doctor.body.id, kind: 'create' });
        const other = (await userWithToken(a, ['patient'])).user;
        const patient = await callA(admin, 'POST', '/api/patients', { name: 'Pat', account: other.id });
        const booking = { doctor: doctor.body.id, patient: patient.body.id, starts_at: '2030-03-01T09:00:00Z' };
        const made = await callA(admin, 'POST', '/api/appointments', booking);
        // Patients are readable by doctors, so the patient comes first; then the appointment, read on B.
        expect(await events.change()).toMatchObject({ entity: 'Patient', kind: 'create' });
        expect(await events.change()).toMatchObject({ entity: 'Appointment', id: made.body.id, kind: 'create' });
      } finally {
        await events.cancel();
      }
    } finally {
      for (const server of servers) await server.close();
      await fresh.remove();
    }
  });
  it('tells the other server of every one of several writes committed at once', async () => {
    const fresh = await db.fresh();
    const servers: NinepointServer[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        servers.push(await createServer({ model: modelOf(CLINIC), ...fresh.options, logger: false }));
      }
      const [a, b] = servers as [NinepointServer, NinepointServer];
      const baseB = await b.listen({ port: 0 });
      const { authorization } = await userWithToken(a, ['admin']);
      const events = await openEvents(baseB, { authorization });
      try {
        const accounts = [];
        for (let i = 0; i < 6; i++) accounts.push((await userWithToken(a, ['patient'])).user.id);
        const made = await Promise.all(
          accounts.map((account, i) =>
            callAs(() => a)(authorization, 'POST', '/api/patients', { name: `P${i}`, account }),
          ),
        );
        for (const answer of made) expect(answer.status).toBe(201);
        const heard: unknown[] = [];
        for (let i = 0; i < 6; i++) {
          const change = await events.change();
          expect(change).toMatchObject({ entity: 'Patient', kind: 'create' });
          heard.push((change as { id: string }).id);
        }
        expect(new Set(heard)).toEqual(new Set(made.map((answer) => answer.body.id)));
      } finally {
        await events.cancel();
      }
    } finally {
      for (const server of servers) await server.close();
      await fresh.remove();
    }
  });
  it('listens again when its connection is lost, and goes on hearing the other server', async () => {
    const fresh = await db.fresh();
    const servers: NinepointServer[] = [];
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    try {
      for (let i = 0; i < 2; i++) {
        servers.push(await createServer({ model: modelOf(CLINIC), ...fresh.options, logger: false }));
      }
      const [a, b] = servers as [NinepointServer, NinepointServer];
      const schema = /search_path=(\w+)/.exec(decodeURIComponent(fresh.env.DATABASE_URL ?? ''))?.[1] ?? '';
      const listening = async () =>
        (
          await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE query = $1', [
            `LISTEN "${channelFor(schema)}"`,
          ])
        ).rows.map((r) => r.pid);
      const before = await listening();
      expect(before).toHaveLength(2);
      // Cut every listening connection: each server must notice and listen again.
      for (const pid of before) await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      for (;;) {
        const now = await listening();
        if (now.length === 2 && now.every((pid) => !before.includes(pid))) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const callA = callAs(() => a);
      const baseB = await b.listen({ port: 0 });
      const { user, authorization } = await userWithToken(a, ['admin']);
      const events = await openEvents(baseB, { authorization });
      try {
        const doctor = await callA(authorization, 'POST', '/api/doctors', { name: 'Doctor D', account: user.id });
        expect(doctor.status).toBe(201);
        expect(await events.change()).toMatchObject({ entity: 'Doctor', id: doctor.body.id, kind: 'create' });
      } finally {
        await events.cancel();
      }
    } finally {
      await admin.end();
      for (const server of servers) await server.close();
      await fresh.remove();
    }
  });
});
