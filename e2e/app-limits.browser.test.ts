import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  capture,
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
 * Limits in Chromium (packages/server/test/fixtures/reviews-and-appointments.md): a doctor sees
 * at most MAX_PER_DAY (3) appointments `in state requested, confirmed per doctor per day of
 * starts_at`. The browser cannot count other records: the server refuses with DOCTOR_FULL, and the
 * form shows the catalogue's message; a cancelled appointment reopened into a full day is refused
 * at its button the same way.
 */

let app: App;
let clerk: Person;
let doctor: Json;
let cancelled: Json;

/** Noon on a day of March 2030 in the browser's (this machine's) time zone, as ISO 8601 UTC. */
const onDay = (day: number, minutes = 0) => new Date(2030, 2, day, 12, minutes).toISOString();

beforeAll(async () => {
  app = await startApp('packages/server/test/fixtures/reviews-and-appointments.md');
  clerk = await app.addPerson(null, 'Rosa Diaz');
  doctor = await app.api(clerk, 'POST', '/api/doctors', { name: 'Dr Kofi Mensah' });
  for (const [i, patient] of ['Ines Duarte', 'Tariq Aziz', 'Mei Lin'].entries()) {
    await app.api(clerk, 'POST', '/api/appointments', { doctor: doctor.id, patient, starts_at: onDay(4, i * 10) });
  }
  cancelled = await app.api(clerk, 'POST', '/api/appointments', {
    doctor: doctor.id,
    patient: 'Jonah Fields',
    starts_at: onDay(5),
  });
  await app.api(clerk, 'POST', `/api/appointments/${cancelled.id}/cancel`);
  // The 5th is full by now: Jonah's appointment cannot be moved there and reopened.
  for (const patient of ['Aiko Tanaka', 'Bo Svensson', 'Chidi Okeke']) {
    await app.api(clerk, 'POST', '/api/appointments', { doctor: doctor.id, patient, starts_at: onDay(5, 30) });
  }
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (app?.chromium) printAxeSummary('limits');
  await app?.close();
});

describe('limits in Chromium', () => {
  it('shows the limit’s message in the form when the doctor’s day is full, and books another day', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, clerk, '/appointments/new');
    const form = page.getByRole('form');
    await pick(page, 'Doctor', 'Kofi', 'Dr Kofi Mensah');
    await form.getByRole('textbox', { name: 'Patient' }).fill('Noor Haddad');
    const startsAt = form.getByLabel('Starts at');
    await startsAt.fill('2030-03-04T12:30');
    await form.getByRole('button', { name: /^Create/ }).click();
    const refused = form.getByRole('alert');
    await expect.poll(() => refused.textContent()).toContain('The doctor sees at most 3 patients a day.');
    await expectAccessible(page, 'an appointment refused for a full day');
    await capture(page, 'limits-doctor-full');

    await startsAt.fill('2030-03-06T12:30');
    await form.getByRole('button', { name: /^Create/ }).click();
    await page.waitForURL(/\/appointments\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.locator('dl').textContent()).toContain('Noor Haddad');
    app.expectQuiet();
  });

  it('refuses to reopen a cancelled appointment into a full day, at the button', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, clerk, `/appointments/${cancelled.id}`);
    const actions = page.getByRole('group', { name: 'What you can do with this appointment' });
    await actions.getByRole('button', { name: 'Reopen' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'Not done' });
    await expect.poll(() => refused.textContent()).toContain('The doctor sees at most 3 patients a day.');
    await expectAccessible(page, 'a reopen refused for a full day');
    app.expectQuiet();
  });
});
