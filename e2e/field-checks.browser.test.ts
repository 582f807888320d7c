import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  type DevApp,
  fieldError,
  INSTALL_TIMEOUT_MS,
  type Person,
  signIn,
  startApp,
  startDevApp,
} from './app.ts';

/**
 * A form's field checks in Chromium, under the app's own Content-Security-Policy (`script-src
 * 'self'`, no 'unsafe-eval'): the page imports the validators the server generated from its JSON
 * Schemas (`/app/validators.js`) and refuses bad values at their fields before sending anything,
 * with no CSP violation. Expenses' employee form has a required reference, an email, a pattern and
 * a decimal's range.
 */

let app: App;
let finance: Person;

beforeAll(async () => {
  app = await startApp('expenses.md');
  finance = app.users.finance as Person;
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  await app?.close();
});

describe("the server's field checks in the browser", () => {
  it('refuse bad values at their fields before sending, with no CSP violation', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    // Every CSP violation the page reports, from before its first script runs.
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (event) =>
        seen.push(`${event.violatedDirective} ${event.blockedURI}`),
      );
    });
    const validators: { status: number; type: string | undefined }[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/app/validators.js') {
        validators.push({ status: response.status(), type: response.headers()['content-type'] });
      }
    });
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/api/employees')) sent.push(request.url());
    });

    await signIn(page, app, finance, '/employees/new');
    const form = page.getByRole('form', { name: /employee/i });
    const answer = await page.goto(`${app.url}/employees/new`);
    expect(answer?.headers()['content-security-policy']).toContain("script-src 'self'");
    await form.getByRole('textbox', { name: 'Work email' }).fill('sam@');
    await form.getByRole('textbox', { name: 'Cost center' }).fill('CC-12');
    const limit = form.getByRole('textbox', { name: 'Single claim limit' });
    // The input keeps a decimal to its scale as it is typed (12.345 cannot be entered): its range it can break.
    await limit.fill('6000');
    await form.getByRole('button', { name: /^Create/ }).click();

    // A field's error, then its description.
    await expect.poll(() => fieldError(limit)).toMatch(/^Single claim limit must be between 0 and 5000\./);
    expect(await fieldError(form.getByRole('textbox', { name: 'Work email' }))).toMatch(
      /^Work email must be an email address\./,
    );
    expect(await fieldError(form.getByRole('textbox', { name: 'Cost center' }))).not.toBe('');
    expect(await fieldError(form.getByRole('combobox', { name: 'Person' }))).toMatch(/^Person is required\./);

    expect(sent, 'the form was sent although its fields were refused').toEqual([]);
    expect(validators.length).toBeGreaterThan(0);
    expect(validators.every((v) => [200, 304].includes(v.status))).toBe(true);
    expect(validators.find((v) => v.status === 200)?.type).toBe('text/javascript; charset=utf-8');
    expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
    app.expectQuiet();
  });
});

describe("the server's field checks under ninepoint dev", () => {
  let devApp: DevApp | null = null;

  beforeAll(async () => {
    devApp = await startDevApp('lending-desk.md');
  }, INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    await devApp?.close();
  });

  it('follow a saved spec: the open form takes the new bound without a reload', async (ctx) => {
    if (!devApp?.chromium) return ctx.skip(devApp?.unavailable);
    const { dev, chromium, specPath } = devApp;
    const spec = readFileSync(specPath, 'utf8');
    const url = dev.url;
    const page = await chromium.newPage();
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/api/books')) sent.push(request.url());
    });
    // Dev mode signs in as a role's demo user.
    const signedIn = await page.request.post(`${url}/api/dev/sign-in-as`, {
      data: { role: 'staff' },
      headers: { origin: url },
    });
    expect(signedIn.ok()).toBe(true);
    await page.goto(`${url}/books/new`);
    const form = page.getByRole('form', { name: /book/i });
    const copies = form.getByRole('textbox', { name: 'Copies' });
    await copies.fill('45');
    await form.getByRole('textbox', { name: 'Title' }).fill('');
    await form.getByRole('button', { name: /^Create/ }).click();
    // 45 copies is within 0..MAX_COPIES (50): the form refuses only what is missing.
    await expect.poll(() => fieldError(form.getByRole('textbox', { name: 'Title' }))).toMatch(/^Title is required\./);
    expect(await fieldError(copies)).toBe('');

    // The dev loop fetches the model, and the validators with it, again (`?load=2`).
    const reloaded = page.waitForResponse((r) => r.url().includes('/app/validators.js?load='));
    const status = await dev.save(spec.replace(/^(\| MAX_COPIES\s+\| )50\b/m, '$140'));
    expect(status.outcome).toBe('applied');
    expect((await reloaded).status()).toBe(200);
    await form.getByRole('button', { name: /^Create/ }).click();
    await expect.poll(() => fieldError(copies)).toMatch(/^Copies must be between 0 and 40\./);
    expect(sent).toEqual([]);
  });
});
