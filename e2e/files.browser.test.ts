import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { png } from '../packages/server/test/uploads.ts';
import { type App, INSTALL_TIMEOUT_MS, type Person, signIn, startApp, withFiles } from './app.ts';

/**
 * Files in Chromium (packages/server/test/fixtures/files.md): an uploaded HTML page and an SVG
 * with a script, opened every way a page of the app could open them (a visit, a frame, an
 * object, an image), never run a script in the app's origin; an image shows as a thumbnail in
 * the list at a phone's width; the edit form adds a picture beside those kept and removes one.
 */

let app: App;
let member: Person;
const ids: Record<string, string> = {};

/** Each script, if it ever ran in the app's origin, would mark the app's page and say so. */
const HTML = `<!doctype html><html><body><script>
  try { parent.document.title = 'pwned'; parent.pwned = true; } catch (e) {}
  try { top.pwned = true; } catch (e) {}
  fetch('/api/auth/me').then(() => { try { parent.pwned = true; } catch (e) {} });
  alert('html ran');
</script><p>hello</p></body></html>`;
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="try{parent.pwned=true}catch(e){}">
  <script>try { parent.pwned = true; top.document.title = 'pwned'; } catch (e) {} alert('svg ran');</script>
  <rect width="10" height="10" fill="red"/></svg>`;

/** A real 1×1 PNG. */
const PNG = png();

beforeAll(async () => {
  app = await startApp('packages/server/test/fixtures/files.md');
  member = app.users.member as Person;
  const made = async (title: string, files: Parameters<typeof withFiles>[1]) =>
    (await app.api(member, 'POST', '/api/entries', withFiles({ title }, files))) as Record<string, string>;
  const html = await made('A page', [
    { field: 'attachment', name: 'page.html', bytes: new TextEncoder().encode(HTML) },
  ]);
  const svg = await made('A drawing', [
    { field: 'attachment', name: 'drawing.svg', bytes: new TextEncoder().encode(SVG) },
    { field: 'photo', name: 'dot.png', bytes: PNG },
  ]);
  ids.html = html.attachment as string;
  ids.svg = svg.attachment as string;
  ids.photo = svg.photo as string;
}, INSTALL_TIMEOUT_MS);
afterAll(() => app?.close());

describe('uploaded files in Chromium', () => {
  it('never runs an uploaded HTML or SVG file’s script in the app’s origin', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await signIn(page, app, member, '/entries');
    await page.getByRole('link', { name: 'A page' }).waitFor();
    const title = await page.title();
    // Framed, embedded and drawn as an image, from the app's own page (same origin, signed in): the
    // app's own CSP refuses the frames and the object (a first wall, logged as console errors), the
    // file's headers are the second (attachment, nosniff, a sandbox CSP).
    const loaded = await page.evaluate(async ({ html, svg }) => {
      (window as unknown as { pwned: boolean }).pwned = false;
      const load = (element: HTMLElement) =>
        new Promise<string>((resolve) => {
          element.addEventListener('load', () => resolve('load'));
          element.addEventListener('error', () => resolve('error'));
          document.body.appendChild(element);
          setTimeout(() => resolve('timeout'), 3000);
        });
      const frame = (src: string) => Object.assign(document.createElement('iframe'), { src });
      const object = Object.assign(document.createElement('object'), {
        data: `/api/files/${svg}`,
        type: 'image/svg+xml',
      });
      const image = Object.assign(document.createElement('img'), { src: `/api/files/${svg}` });
      return Promise.all([
        load(frame(`/api/files/${html}`)),
        load(frame(`/api/files/${svg}`)),
        load(object),
        load(image),
      ]);
    }, ids);
    expect(loaded).toHaveLength(4);
    // Visited directly: a download, never a page of the app's origin.
    const download = page.waitForEvent('download');
    await page.evaluate((html) => {
      window.location.href = `/api/files/${html}`;
    }, ids.html);
    expect((await download).suggestedFilename()).toBe('page.html');
    expect(await page.evaluate(() => (window as unknown as { pwned?: boolean }).pwned)).toBe(false);
    expect(await page.title()).toBe(title);
    expect(dialogs).toEqual([]);
    // What the browser was told, whatever it would do.
    const answer = await page.request.get(`${app.url}/api/files/${ids.svg}`);
    expect(answer.headers()['content-disposition']).toMatch(/^attachment; /);
    expect(answer.headers()['x-content-type-options']).toBe('nosniff');
    expect(answer.headers()['content-security-policy']).toContain('sandbox');
    expect(answer.headers()['content-type']).toBe('application/octet-stream');
  });

  it('shows an image as a thumbnail in the list at a phone’s width', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, app, member, '/entries');
    const thumb = page.locator(`img[src="/api/files/${ids.photo}/thumbnail?size=96"]`);
    await thumb.waitFor();
    await expect
      .poll(() => thumb.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBeGreaterThan(0);
    expect(await thumb.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
    // (Not `app.expectQuiet()`: the first test's page logs, as it should, the app's own CSP refusing
    // to frame or embed the uploaded files.)
  });

  it('adds pictures beside the one an entry keeps (picked and dropped), with a progress bar, replaces a photo, removes a picture, and names it in the history', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const made = (await app.api(
      member,
      'POST',
      '/api/entries',
      withFiles({ title: 'An album' }, [
        { field: 'pictures', name: 'first.png', bytes: PNG },
        { field: 'photo', name: 'old.png', bytes: PNG },
      ]),
    )) as Record<string, string>;
    const first = made.pictures as string;
    const entry = async () => (await app.api(member, 'GET', `/api/entries/${made.id}`)) as Record<string, unknown>;
    const pictures = async () => String((await entry()).pictures).split(',');
    const page = await app.page();
    await signIn(page, app, member, `/entries/${made.id}/edit`);
    const form = page.getByRole('form', { name: 'Edit An album' });
    await form.getByRole('link', { name: 'first.png' }).waitFor();
    // An image field's picker offers images, so a phone offers its camera.
    const accepts = String(await page.getByLabel('Pictures', { exact: true }).getAttribute('accept')).split(',');
    expect(accepts).toContain('image/jpeg');
    expect(accepts.filter((type) => !type.startsWith('image/'))).toEqual([]);
    // Picked in the field's input (a drop or the camera fill the same input): sent with the save.
    await page.getByLabel('Pictures', { exact: true }).setInputFiles({
      name: 'second.png',
      mimeType: 'image/png',
      buffer: Buffer.from(PNG),
    });
    await form.getByText('second.png').waitFor();
    // Dropped on the field's zone, as a file dragged from the desktop.
    const dropped = await page.evaluateHandle(
      (bytes) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([new Uint8Array(bytes)], 'third.png', { type: 'image/png' }));
        return transfer;
      },
      [...PNG],
    );
    await page.getByTestId('drop-field-pictures').dispatchEvent('drop', { dataTransfer: dropped });
    await form.getByText('third.png').waitFor();
    // Three is all the field holds: no zone to drop more on.
    await expect.poll(() => page.getByTestId('drop-field-pictures').count()).toBe(0);
    // The upload's answer held back: the form shows its progress bar until it comes.
    let answer: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      answer = resolve;
    });
    await page.route(`**/api/entries/${made.id}`, async (route) => {
      if (route.request().method() === 'PATCH') await held;
      await route.continue();
    });
    await form.getByRole('button', { name: 'Save changes' }).click();
    // (At 0% its filled part has no width: attached, not visible.)
    const bar = form.getByRole('progressbar', { name: 'Upload progress' });
    await bar.waitFor({ state: 'attached' });
    answer();
    await bar.waitFor({ state: 'detached' });
    await page.unroute(`**/api/entries/${made.id}`);
    await page.getByRole('heading', { name: 'An album', level: 1, exact: true }).waitFor();
    await expect.poll(pictures).toHaveLength(3);
    const [kept, added, third] = await pictures();
    // Added beside the one kept, not in its place.
    expect(kept).toBe(first);
    expect(new Set([first, added, third]).size).toBe(3);
    await page.getByRole('link', { name: 'second.png' }).first().waitFor();

    await page.goto(`${app.url}/entries/${made.id}/edit`);
    await form.getByRole('link', { name: 'second.png' }).waitFor();
    // A field of one file: the next one picked replaces it (its line, with its remove button, goes).
    await form.getByText('Drop a file to replace it').waitFor();
    await page.getByLabel('Photo', { exact: true }).setInputFiles({
      name: 'new.png',
      mimeType: 'image/png',
      buffer: Buffer.from(PNG),
    });
    await form.getByText('new.png').waitFor();
    await expect.poll(() => form.getByRole('link', { name: 'old.png' }).count()).toBe(0);
    // The kept files are listed in the field's order: the first remove button is first.png's.
    await form.getByRole('button', { name: 'Remove file' }).first().click();
    await expect.poll(() => form.getByRole('link', { name: 'first.png' }).count()).toBe(0);
    expect(await form.getByRole('link', { name: 'second.png' }).count()).toBe(1);
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'An album', level: 1, exact: true }).waitFor();
    await expect.poll(pictures).toEqual([added, third]);
    const photo = String((await entry()).photo);
    expect(photo).toMatch(/^[0-9a-f-]{36}$/);
    expect(photo).not.toBe(made.photo);
    for (const removed of [first, made.photo]) {
      expect((await page.request.get(`${app.url}/api/files/${removed}`)).status()).toBe(404);
    }
    expect((await page.request.get(`${app.url}/api/files/${photo}`)).status()).toBe(200);
    // The history still names the removed file by its name, size and kind, never a link to it.
    const history = page.getByRole('region', { name: 'History' });
    await history
      .getByText(/first\.png/)
      .first()
      .waitFor();
    await expect.poll(() => history.getByText('no longer kept', { exact: false }).count()).toBeGreaterThan(0);
    expect(await history.getByRole('link', { name: 'first.png' }).count()).toBe(0);
  });
});
