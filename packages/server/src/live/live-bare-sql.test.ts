import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { nextOrOpen, openEvents } from '../../test/event-reader.ts';
import { modelOf } from '../../test/helpers.ts';
import { LIVE_CLINIC } from '../../test/live-clinic.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import type { IdentityChange } from '../store/sql-runner.ts';

// PostgreSQL only: there a statement of another tool reaches the servers through the identity
// tables' trigger (SQLite's server sees another process's commit by `data_version`, tested apart).
describe.each(TEST_DATABASES.filter((db) => db.name === 'postgres'))(
  'live updates after a bare SQL statement on $name',
  (db) => {
    let fresh: FreshDatabase;
    let server: NinepointServer;
    let base: string;
    let admin: string;
    let patient: string;
    /** Another tool's connection: no server, no change feed, only SQL. */
    let sql: pg.Client;
    const call = callAs(() => server);
    /**
     * Settles once the server hears a write to the identity tables that `which` picks (5 s at most):
     * its check of the streams is then queued ahead of every change after it.
     */
    const heard = (which: (change: IdentityChange) => boolean) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          stop?.();
          reject(new Error('the server heard no such write to the identity tables'));
        }, 5_000);
        const stop = server.store.sql.onIdentityChange?.((change) => {
          if (!which(change)) return;
          clearTimeout(timer);
          stop?.();
          resolve();
        });
      });
    const naming = (userId: string) => (change: IdentityChange) => change.users?.includes(userId) === true;
    /** A doctor (a record every patient may read), with an account of their own. */
    const addDoctor = async (name: string): Promise<string> => {
      const account = await userWithToken(server, []);
      const made = await call(admin, 'POST', '/api/doctors', { name, account: account.user.id });
      expect(made.status).toBe(201);
      return String(made.body.id);
    };

    beforeAll(async () => {
      fresh = await db.fresh();
      // A heartbeat far off: nothing here may wait for it.
      server = await createServer({
        model: modelOf(LIVE_CLINIC),
        ...fresh.options,
        logger: false,
        live: { heartbeatMs: 600_000 },
      });
      base = await server.listen({ port: 0 });
      admin = (await userWithToken(server, ['admin'])).authorization;
      const p = await userWithToken(server, ['patient']);
      const made = await call(admin, 'POST', '/api/patients', { name: 'Pat', account: p.user.id });
      patient = String(made.body.id);
      sql = new pg.Client({ connectionString: fresh.options.databaseUrl });
      await sql.connect();
    });
    afterAll(async () => {
      await sql.end();
      await server.close();
      await fresh.remove();
    });

    it('ends the stream of a user deactivated by a bare UPDATE within a second, and leaves another user’s open', async () => {
      const gone = await userWithToken(server, ['patient']);
      const stays = await userWithToken(server, ['patient']);
      const goneEvents = await openEvents(base, { authorization: gone.authorization });
      const staysEvents = await openEvents(base, { authorization: stays.authorization });
      try {
        expect(goneEvents.status).toBe(200);
        const started = Date.now();
        await sql.query(`UPDATE "_ninepoint_users" SET "deactivated_at" = $1 WHERE "id" = $2`, [
          new Date().toISOString(),
          gone.user.id,
        ]);
        expect(await nextOrOpen(goneEvents, 5_000)).toBeNull();
        const delay = Date.now() - started;
        if (process.env.MEASURE)
          console.log(`bare SQL deactivation: stream ended ${delay} ms after the UPDATE was sent`);
        expect(delay).toBeLessThan(1_000);
        // The other user's stream still carries what they may read.
        const doctor = await addDoctor('Doctor Z');
        expect(await nextOrOpen(staysEvents, 5_000)).toMatchObject({ entity: 'Doctor', id: doctor });
      } finally {
        await goneEvents.cancel();
        await staysEvents.cancel();
      }
    });

    it('after a bare UPDATE that removes a role, tells the user of nothing that role let them read', async () => {
      const { user, authorization } = await userWithToken(server, ['doctor']);
      const doctor = await call(admin, 'POST', '/api/doctors', { name: 'Doctor B', account: user.id });
      const events = await openEvents(base, { authorization });
      try {
        const booked = await call(admin, 'POST', '/api/appointments', {
          doctor: doctor.body.id,
          patient,
          starts_at: '2030-03-01T09:00:00Z',
        });
        expect(await events.change()).toMatchObject({ id: booked.body.id, kind: 'create' });
        // Once the server has heard the UPDATE (however long its check takes on a loaded machine),
        // the stream's next change is one a patient may read.
        const demoted = heard(naming(user.id));
        await sql.query(`UPDATE "_ninepoint_users" SET "roles" = '["patient"]' WHERE "id" = $1`, [user.id]);
        await demoted;
        await call(admin, 'PATCH', `/api/appointments/${booked.body.id}`, { notes: 'moved' });
        const other = await addDoctor('Doctor C');
        expect(await nextOrOpen(events, 5_000)).toMatchObject({ entity: 'Doctor', id: other });
      } finally {
        await events.cancel();
      }
    });

    it('ends the stream of a token revoked by a bare UPDATE within a second', async () => {
      const { user, authorization } = await userWithToken(server, ['patient']);
      const events = await openEvents(base, { authorization });
      try {
        expect(events.status).toBe(200);
        const started = Date.now();
        await sql.query(`UPDATE "_ninepoint_tokens" SET "revoked_at" = $1 WHERE "user_id" = $2`, [Date.now(), user.id]);
        expect(await nextOrOpen(events, 5_000)).toBeNull();
        const delay = Date.now() - started;
        if (process.env.MEASURE) console.log(`bare SQL revocation: stream ended ${delay} ms after the UPDATE was sent`);
        expect(delay).toBeLessThan(1_000);
      } finally {
        await events.cancel();
      }
    });

    it('leaves every stream open after a bare UPDATE of an unrelated user', async () => {
      const watcher = await userWithToken(server, ['patient']);
      const unrelated = await userWithToken(server, ['patient']);
      const events = await openEvents(base, { authorization: watcher.authorization });
      try {
        // Both heard (the token's update names no user: every stream opened with a token is
        // checked) before the next change: a stream those checks ended would end ahead of it.
        const both = Promise.all([heard(naming(unrelated.user.id)), heard((c) => c.table === '_ninepoint_tokens')]);
        await sql.query(`UPDATE "_ninepoint_users" SET "name" = 'Renamed', "roles" = '[]' WHERE "id" = $1`, [
          unrelated.user.id,
        ]);
        await sql.query(`UPDATE "_ninepoint_tokens" SET "revoked_at" = $1 WHERE "user_id" = $2`, [
          Date.now(),
          unrelated.user.id,
        ]);
        await both;
        const doctor = await addDoctor('Doctor D');
        expect(await nextOrOpen(events, 5_000)).toMatchObject({ entity: 'Doctor', id: doctor });
      } finally {
        await events.cancel();
      }
    });
  },
);
