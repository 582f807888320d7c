import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  capture,
  columnValues,
  expectAccessible,
  INSTALL_TIMEOUT_MS,
  type Json,
  type Person,
  pick,
  printAxeSummary,
  signIn,
  startApp,
} from './app.ts';

/**
 * The clinic in Chromium (packages/server/test/fixtures/clinic.md): appointments are a doctor's or
 * a patient's own through references (`own via doctor.account`), and a patient may change or
 * delete theirs only `while requested`. A doctor's and a patient's screens (`Appointment where
 * doctor.account = me`) list only theirs; a confirmed appointment offers its patient no Edit and no
 * Delete, a requested one does; the doctor confirms.
 */

let app: App;
let admin: Person;
let nwosu: Person;
let lena: Person;
let omar: Person;
const doctors = new Map<string, Json>();
const patients = new Map<string, Json>();
/** Appointments by "doctor's name, patient's name". */
const booked = new Map<string, Json>();

beforeAll(async () => {
  app = await startApp('packages/server/test/fixtures/clinic.md');
  admin = app.users.admin as Person;
  nwosu = await app.addPerson('doctor', 'Amara Nwosu');
  const berg = await app.addPerson('doctor', 'Jonas Berg');
  lena = await app.addPerson('patient', 'Lena Fischer');
  omar = await app.addPerson('patient', 'Omar Haddad');
  for (const doctor of [nwosu, berg]) {
    doctors.set(
      doctor.name,
      await app.api(admin, 'POST', '/api/doctors', { name: `Dr ${doctor.name}`, account: doctor.id }),
    );
  }
  for (const patient of [lena, omar]) {
    patients.set(
      patient.name,
      await app.api(admin, 'POST', '/api/patients', { name: patient.name, account: patient.id }),
    );
  }
  let hour = 8;
  for (const doctor of [nwosu, berg]) {
    for (const patient of [lena, omar]) {
      const made = await app.api(patient, 'POST', '/api/appointments', {
        doctor: doctors.get(doctor.name).id,
        patient: patients.get(patient.name).id,
        starts_at: `2030-03-0${hour % 2 === 0 ? 4 : 5}T${String(hour++).padStart(2, '0')}:00:00Z`,
        notes: `${patient.name} sees Dr ${doctor.name}`,
      });
      booked.set(`${doctor.name}, ${patient.name}`, made);
    }
  }
  // Lena's appointment with Dr Berg is confirmed: she may no longer change or delete it.
  await app.api(berg, 'POST', `/api/appointments/${booked.get('Jonas Berg, Lena Fischer').id}/confirm`);
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (app?.chromium) printAxeSummary('clinic');
  await app?.close();
});

describe('the clinic in Chromium', () => {
  it('lists a doctor only their own appointments, filtered by the server through doctor.account, and lets them confirm one', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    const asked: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/appointments') asked.push(r.url());
    });
    await signIn(page, app, nwosu, '/my/appointments');
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await expect
      .poll(() => columnValues(page, 'Patient'))
      .toEqual(expect.arrayContaining(['Lena Fischer', 'Omar Haddad']));
    // Every row is hers: the doctor is no column of her list (Doctor.account is unique).
    expect((await page.getByRole('columnheader').allTextContents()).join(' | ')).not.toMatch(/Doctor/);
    expect(asked.length).toBeGreaterThan(0);
    await page.getByRole('group', { name: 'Filters in effect' }).getByText('Doctor’s account: you').waitFor();
    for (const url of asked) expect(new URL(url).searchParams.get('filter[doctor.account]')).toBe(nwosu.id);
    await expectAccessible(page, "a doctor's appointments");
    await capture(page, 'clinic-doctor-appointments');

    await page
      .getByRole('row', { name: /Lena Fischer/ })
      .getByRole('link', { name: /^Open/ })
      .click();
    await page.waitForURL(`${app.url}/appointments/${booked.get('Amara Nwosu, Lena Fischer').id}`);
    const actions = page.getByRole('group', { name: /What you can do with this/ });
    await expect.poll(() => actions.getByRole('button').allTextContents()).toEqual(['Confirm', 'Cancel']);
    await actions.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('status').filter({ hasText: 'Confirm done: it is now Confirmed.' }).waitFor();
    // Confirmed is still a state the doctor may add notes in.
    await expect.poll(() => actions.getByRole('button').allTextContents()).toEqual(['Cancel']);
    expect(await actions.getByRole('link', { name: 'Edit' }).count()).toBe(1);
    await expectAccessible(page, 'an appointment the doctor confirmed');

    // Omar cancelled his: nothing is left to do with it, not even notes (`while requested or confirmed`).
    const omars = booked.get('Amara Nwosu, Omar Haddad').id;
    await app.api(omar, 'POST', `/api/appointments/${omars}/cancel`);
    await page.goto(`${app.url}/appointments/${omars}`);
    await page.locator('dl').getByText('Omar Haddad sees Dr Amara Nwosu').waitFor();
    expect(await actions.getByRole('button').count()).toBe(0);
    expect(await actions.getByRole('link').count()).toBe(0);
    app.expectQuiet();
  });

  it('lists a patient their visits; a confirmed one has no Edit or Delete for them, one she books through the form has both', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    const asked: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/appointments') asked.push(r.url());
    });
    await signIn(page, app, lena, '/my/visits');
    await expect
      .poll(() => columnValues(page, 'Doctor'))
      .toEqual(expect.arrayContaining(['Dr Amara Nwosu', 'Dr Jonas Berg']));
    expect(await columnValues(page, 'Doctor')).toHaveLength(2);
    expect((await page.getByRole('columnheader').allTextContents()).join(' | ')).not.toMatch(/Patient/);
    for (const url of asked) expect(new URL(url).searchParams.get('filter[patient.account]')).toBe(lena.id);
    await expectAccessible(page, "a patient's visits");
    await capture(page, 'clinic-patient-visits');

    const actions = page.getByRole('group', { name: /What you can do with this/ });
    await page
      .getByRole('row', { name: /Jonas Berg/ })
      .getByRole('link', { name: /^Open/ })
      .click();
    await page.waitForURL(`${app.url}/appointments/${booked.get('Jonas Berg, Lena Fischer').id}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await expect.poll(() => actions.getByRole('button').allTextContents()).toEqual(['Cancel']);
    expect(await actions.getByRole('link', { name: 'Edit' }).count()).toBe(0);
    await expectAccessible(page, 'a confirmed visit, seen by its patient');
    await capture(page, 'clinic-patient-confirmed-visit');

    // She books another through the form: the patient she may pick is herself.
    await page.goto(`${app.url}/appointments/new`);
    const form = page.getByRole('form');
    await pick(page, 'Doctor', 'Berg', 'Dr Jonas Berg');
    await pick(page, 'Patient', 'Lena', 'Lena Fischer');
    await form.getByLabel('Starts at').fill('2030-03-06T10:00');
    await form.getByRole('button', { name: /^Create/ }).click();
    await page.waitForURL(/\/appointments\/[0-9a-f-]{36}$/);
    const requested = page.url().split('/').pop() ?? '';
    await expect.poll(() => actions.getByRole('button').allTextContents()).toEqual(['Cancel', 'Delete']);
    await actions.getByRole('link', { name: 'Edit' }).click();
    // `update own via patient.account (notes)`: the notes alone are hers to change (counted once
    // the form is there).
    const notes = page.getByRole('textbox', { name: 'Notes' });
    await notes.waitFor();
    expect(await page.getByRole('form').getByRole('textbox').count()).toBe(1);
    await notes.fill('Bring the X-ray from March.');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(`${app.url}/appointments/${requested}`);
    await page.locator('dl').getByText('Bring the X-ray from March.').waitFor();

    // Another patient's appointment is not found for her, as the server answers.
    await page.goto(`${app.url}/appointments/${booked.get('Amara Nwosu, Omar Haddad').id}`);
    const refused = page.getByRole('alert');
    await expect.poll(() => refused.textContent()).toMatch(/not found/i);
    await capture(page, 'clinic-patient-other-visit');
    app.expectQuiet();
  });
});
