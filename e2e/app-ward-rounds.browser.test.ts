import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  boardCards,
  capture,
  columnValues,
  expectAccessible,
  INSTALL_TIMEOUT_MS,
  type Json,
  type Person,
  printAxeSummary,
  settle,
  signIn,
  startApp,
} from './app.ts';

/**
 * Ward rounds in Chromium (e2e/fixtures/ward-rounds.md): doctors read every visit but may update
 * only their own, `update own via doctor.account while planned or seen`; `see` has an empty `who`,
 * so it is theirs to take exactly where they may update. A visit is a doctor's own through the
 * Doctor record it names, which the page reads to decide: another doctor's visit offers nothing,
 * on its page or its card of the board.
 */

let app: App;
let amara: Person;
const visits = new Map<string, Json>();

beforeAll(async () => {
  app = await startApp('e2e/fixtures/ward-rounds.md');
  const admin = app.users.admin as Person;
  amara = await app.addPerson('doctor', 'Amara Nwosu');
  const jonas = await app.addPerson('doctor', 'Jonas Berg');
  for (const [doctor, patient] of [
    [amara, 'Lena Fischer'],
    [jonas, 'Omar Haddad'],
  ] as const) {
    const record = await app.api(admin, 'POST', '/api/doctors', { name: `Dr ${doctor.name}`, account: doctor.id });
    visits.set(patient, await app.api(admin, 'POST', '/api/visits', { patient, doctor: record.id }));
  }
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (app?.chromium) printAxeSummary('ward rounds');
  await app?.close();
});

describe('ward rounds in Chromium', () => {
  it('offers a doctor Edit and See on their own visits only, on the board and the visit’s page, though they read every visit', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, amara, '/visits');
    await expect
      .poll(() => columnValues(page, 'Patient'))
      .toEqual(expect.arrayContaining(['Lena Fischer', 'Omar Haddad']));

    // The board moves only her own cards.
    await page.goto(`${app.url}/rounds`);
    await expect
      .poll(() => boardCards(page, 'Planned'))
      .toEqual(expect.arrayContaining(['Lena Fischer', 'Omar Haddad']));
    await page.getByRole('button', { name: 'Move to… (Lena Fischer)' }).waitFor();
    await settle(page);
    expect(await page.getByRole('button', { name: 'Move to… (Omar Haddad)' }).count()).toBe(0);
    await expectAccessible(page, 'the ward’s rounds board');
    await capture(page, 'ward-rounds-board');

    const actions = page.getByRole('group', { name: 'What you can do with this visit' });
    await page.goto(`${app.url}/visits/${visits.get('Lena Fischer').id}`);
    await expect.poll(() => actions.getByRole('button').allTextContents()).toEqual(['See']);
    expect(await actions.getByRole('link', { name: 'Edit' }).count()).toBe(1);

    await page.goto(`${app.url}/visits/${visits.get('Omar Haddad').id}`);
    await page.getByRole('heading', { name: /Omar Haddad/, level: 1 }).waitFor();
    await page.locator('dl').getByText('Dr Jonas Berg').waitFor();
    // The visit's owner is read (its doctor's account) before any button shows: let the page settle.
    await settle(page);
    expect(await actions.getByRole('button').count()).toBe(0);
    expect(await actions.getByRole('link').count()).toBe(0);
    await expectAccessible(page, 'another doctor’s visit');
    await capture(page, 'ward-rounds-another-doctors-visit');

    await page.goto(`${app.url}/visits/${visits.get('Lena Fischer').id}`);
    await actions.getByRole('button', { name: 'See' }).click();
    await page.getByRole('status').filter({ hasText: 'See done: it is now Seen.' }).waitFor();
    // Seen is still a state of their update grant: the notes stay theirs to write.
    expect(await actions.getByRole('button').count()).toBe(0);
    expect(await actions.getByRole('link', { name: 'Edit' }).count()).toBe(1);
    app.expectQuiet();
  });
});
