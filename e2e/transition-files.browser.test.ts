import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdf, png } from '../packages/server/test/uploads.ts';
import { type App, INSTALL_TIMEOUT_MS, type Person, signIn, startApp, withFiles } from './app.ts';

/**
 * Files sent with a transition, in Chromium (packages/server/test/fixtures/repairs.md): a job is
 * finished with the customer's signed form and a photo of the work, picked in the step's dialog.
 * The step's rule wants the form; the photo the job had stays beside the new one.
 */

let app: App;
let technician: Person;
let job: Record<string, string>;

beforeAll(async () => {
  app = await startApp('packages/server/test/fixtures/repairs.md');
  technician = app.users.technician as Person;
  job = (await app.api(
    technician,
    'POST',
    '/api/jobs',
    withFiles({ title: 'Boiler in flat 3' }, [{ field: 'photos', name: 'before.png', bytes: png() }]),
  )) as Record<string, string>;
}, INSTALL_TIMEOUT_MS);
afterAll(() => app?.close());

describe('files sent with a transition in Chromium', () => {
  it('finishes a job with the signed form and a photo picked in its dialog, keeping the photo it had', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, technician, `/jobs/${job.id}`);
    await page.getByRole('heading', { name: 'Boiler in flat 3', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Finish', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Finish: Boiler in flat 3' });
    // The photo the job holds is listed without a remove button: a step adds files, never removes one.
    await dialog.getByRole('link', { name: 'before.png' }).waitFor();
    expect(await dialog.getByRole('button', { name: 'Remove file' }).count()).toBe(0);

    // Without the signed form, the step's rule refuses it before anything is sent.
    await dialog.getByRole('button', { name: 'Finish', exact: true }).click();
    await dialog.getByText("A job is finished with the customer's signed form.").first().waitFor();
    expect((await app.api(technician, 'GET', `/api/jobs/${job.id}`)).state).toBe('open');

    await dialog.getByLabel('Sign off', { exact: true }).setInputFiles({
      name: 'signed.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from(pdf('signed by the customer')),
    });
    await dialog.getByLabel('Photos', { exact: true }).setInputFiles({
      name: 'after.png',
      mimeType: 'image/png',
      buffer: Buffer.from(png()),
    });
    await dialog.getByText('signed.pdf').waitFor();
    await dialog.getByText('after.png').waitFor();
    await dialog.getByRole('button', { name: 'Finish', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });

    const done = (await app.api(technician, 'GET', `/api/jobs/${job.id}`)) as Record<string, string>;
    expect(done.state).toBe('done');
    expect(String(done.photos).split(',')).toEqual([job.photos, expect.any(String)]);
    expect(done.sign_off).toEqual(expect.any(String));
    // The detail page shows the step's files at once.
    const fields = page.getByRole('main');
    await fields.getByRole('link', { name: 'signed.pdf' }).first().waitFor();
    await fields.getByRole('link', { name: 'after.png' }).first().waitFor();
    app.expectQuiet();
  });
});
