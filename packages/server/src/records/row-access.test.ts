import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

/**
 * The clinic: a doctor's and a patient's own appointments are reached through references
 * (`own via doctor.account`), and some grants hold only in some states (`while requested`).
 */
const CLINIC = readFileSync(new URL('../../test/fixtures/clinic.md', import.meta.url), 'utf8');

type Body = Record<string, unknown>;

// On PostgreSQL too: "own via" chains become SQL subqueries on lists, run by each database.
describe.each(TEST_DATABASES)('own via a chain of references and grants while in a state, on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let admin: string;
  const doctors: { auth: string; id: string }[] = [];
  const patients: { auth: string; id: string }[] = [];
  /** Appointment ids: [doctor index, patient index] → id. */
  const appointments = new Map<string, string>();

  const call = callAs(() => server);
  const ids = (body: Body) => ((body.items as Body[]) ?? []).map((r) => r.id).sort();
  const appointment = (doctor: number, patient: number) => appointments.get(`${doctor},${patient}`) ?? '';

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(CLINIC), ...fresh.options, logger: false });
    admin = (await userWithToken(server, ['admin'])).authorization;
    for (const [list, role, path] of [
      [doctors, 'doctor', '/api/doctors'],
      [patients, 'patient', '/api/patients'],
    ] as const) {
      for (const name of ['A', 'B']) {
        const { user, authorization } = await userWithToken(server, [role]);
        const created = await call(admin, 'POST', path, { name: `${role} ${name}`, account: user.id });
        expect(created.body).toMatchObject({ name: `${role} ${name}` });
        list.push({ auth: authorization, id: String(created.body.id) });
      }
    }
    for (const [d, doctor] of doctors.entries()) {
      for (const [p, patient] of patients.entries()) {
        const made = await call(patient.auth, 'POST', '/api/appointments', {
          doctor: doctor.id,
          patient: patient.id,
          starts_at: `2030-01-0${1 + d}T1${p}:00:00Z`,
        });
        expect(made.body).toMatchObject({ state: 'requested' });
        appointments.set(`${d},${p}`, String(made.body.id));
      }
    }
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('lists to a doctor only the appointments whose doctor is theirs, in SQL', async () => {
    const listed = await call(doctors[0]?.auth ?? '', 'GET', '/api/appointments?count=true');
    expect(listed.status).toBe(200);
    expect(ids(listed.body)).toEqual([appointment(0, 0), appointment(0, 1)].sort());
    expect(listed.body.total).toBe(2);
  });

  it('answers NOT_FOUND to a doctor for another doctor’s appointment, on get, history and writes', async () => {
    const other = appointment(1, 0);
    const auth = doctors[0]?.auth ?? '';
    expect((await call(auth, 'GET', `/api/appointments/${other}`)).status).toBe(404);
    expect((await call(auth, 'GET', `/api/appointments/${other}/history`)).status).toBe(404);
    expect((await call(auth, 'PATCH', `/api/appointments/${other}`, { notes: 'x' })).status).toBe(404);
    expect((await call(auth, 'POST', `/api/appointments/${other}/confirm`)).status).toBe(404);
    expect((await call(auth, 'GET', `/api/appointments/${appointment(0, 1)}`)).status).toBe(200);
  });

  it('filters a screen through references: filter[doctor.account] takes the caller’s own id only', async () => {
    const me = await call(doctors[1]?.auth ?? '', 'GET', '/api/auth/me');
    const user = (me.body.user as Body).id as string;
    const mine = await call(doctors[1]?.auth ?? '', 'GET', `/api/appointments?filter[doctor.account]=${user}`);
    expect(mine.status).toBe(200);
    expect(ids(mine.body)).toEqual([appointment(1, 0), appointment(1, 1)].sort());
    // Another user's id would tell whose appointments are whose.
    const theirs = await call(admin, 'GET', `/api/appointments?filter[doctor.account]=${user}`);
    expect(theirs.status).toBe(400);
    expect(theirs.body.code).toBe('INVALID_PAYLOAD');
  });

  it('lets a patient reach their own patient record through its account, and no other', async () => {
    const listed = await call(patients[0]?.auth ?? '', 'GET', '/api/patients');
    expect(ids(listed.body)).toEqual([patients[0]?.id]);
    expect((await call(patients[0]?.auth ?? '', 'GET', `/api/patients/${patients[1]?.id}`)).status).toBe(404);
  });

  it('lets a patient edit their appointment while it is requested, and not once it is confirmed', async () => {
    const id = appointment(0, 0);
    const patient = patients[0]?.auth ?? '';
    expect((await call(patient, 'PATCH', `/api/appointments/${id}`, { notes: 'knee, left' })).status).toBe(200);
    expect((await call(doctors[0]?.auth ?? '', 'POST', `/api/appointments/${id}/confirm`)).status).toBe(200);
    const refused = await call(patient, 'PATCH', `/api/appointments/${id}`, { notes: 'knee, right' });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('FORBIDDEN');
    expect((await call(patient, 'DELETE', `/api/appointments/${id}`)).status).toBe(403);
    const stored = await call(admin, 'GET', `/api/appointments/${id}`);
    expect(stored.body.notes).toBe('knee, left');
    // The doctor's own grant holds while confirmed.
    expect((await call(doctors[0]?.auth ?? '', 'PATCH', `/api/appointments/${id}`, { notes: 'x-ray' })).status).toBe(
      200,
    );
  });

  it('lets a patient delete a requested appointment of theirs, and not another patient’s', async () => {
    const mine = appointment(1, 1);
    const theirs = appointment(1, 0);
    const patient = patients[1]?.auth ?? '';
    expect((await call(patient, 'DELETE', `/api/appointments/${theirs}`)).status).toBe(404);
    expect((await call(patient, 'DELETE', `/api/appointments/${mine}`)).status).toBe(204);
  });

  it('refuses a patient who books for another patient as for a patient who does not exist', async () => {
    // The patient may not read the other's record: the rule that would name it never runs.
    const answer = await call(patients[0]?.auth ?? '', 'POST', '/api/appointments', {
      doctor: doctors[0]?.id,
      patient: patients[1]?.id,
      starts_at: '2030-02-01T09:00:00Z',
    });
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe('UNKNOWN_REFERENCE');
    expect(answer.body.errors).toEqual([expect.objectContaining({ field: 'patient', code: 'UNKNOWN_REFERENCE' })]);
  });
});
