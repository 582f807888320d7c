import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  capture,
  disabledReason,
  expectAccessible,
  fieldError,
  INSTALL_TIMEOUT_MS,
  type Json,
  type Person,
  printAxeSummary,
  signIn,
  startApp,
} from './app.ts';

/**
 * The grant call in Chromium (packages/server/test/fixtures/grant-call.md): date constants in
 * guards and rules. The early-bird round closed on EARLY_BIRD (2001-01-01): fast-tracking answers
 * the guard's own error, EARLY_BIRD_OVER, in its catalogue words. The browser checks guards and
 * rules itself before sending (packages/web/src/rules/record-rules.ts): its refusal must say what
 * the server would, word for word, so each is compared with the server's own answer.
 */

let app: App;
let applicant: Person;
const drafts = new Map<string, Json>();

const SOIL = 'Soil microbes survey';
const BEES = 'Urban bees census';

beforeAll(async () => {
  app = await startApp('packages/server/test/fixtures/grant-call.md');
  applicant = await app.addPerson(null, 'Noor Haddad');
  for (const title of [SOIL, BEES]) {
    drafts.set(title, await app.api(applicant, 'POST', '/api/applications', { title, amount: 12000 }));
  }
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (app?.chromium) printAxeSummary('grant call');
  await app?.close();
});

/** The server's answer to a call, refused or not, as the applicant. */
async function answer(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${app.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${applicant.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

/** The writes a page sent to the API (method and path). */
function writesOf(page: Page): string[] {
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.method() !== 'GET' && new URL(r.url()).pathname.startsWith('/api/applications')) {
      sent.push(`${r.method()} ${new URL(r.url()).pathname}`);
    }
  });
  return sent;
}

/** A date as the app shows dates (in messages too): the reader's locale, in UTC. */
function shownDate(page: Page, iso: string): Promise<string> {
  return page.evaluate(
    (day) =>
      new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' }).format(
        new Date(`${day}T00:00:00Z`),
      ),
    iso,
  );
}

describe('the grant call in Chromium', () => {
  it('refuses a fast track after the early-bird deadline with the guard’s own message, in the server’s words, before sending', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    const sent = writesOf(page);
    await signIn(page, app, applicant, `/applications/${drafts.get(SOIL).id}`);
    await page.getByRole('heading', { name: SOIL, level: 1 }).waitFor();
    const actions = page.getByRole('group', { name: 'What you can do with this application' });
    const server = await answer('POST', `/api/applications/${drafts.get(BEES).id}/fast-track`);
    expect(server.status).toBe(410);
    expect(server.body.code).toBe('EARLY_BIRD_OVER');
    expect(server.body.detail).toBe(`The early-bird round ended on 2001-01-01: submit "${BEES}" the ordinary way.`);
    const said = server.body.detail.replace(BEES, SOIL).replace('2001-01-01', await shownDate(page, '2001-01-01'));
    // Shown as not possible before any click, in the server's words: nothing is sent.
    await expect
      .poll(() => disabledReason(actions.getByRole('button', { name: 'Fast track' })))
      .toBe(`Fast track is not possible now: ${said}`);
    expect(sent).toEqual([]);
    await expectAccessible(page, 'a fast track after the early-bird round');
    await capture(page, 'grant-call-early-bird-over');

    // The ordinary submit holds until the call's DEADLINE and LAST_MOMENT.
    await actions.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('status').filter({ hasText: 'Submit done: it is now Submitted.' }).waitFor();
    expect(sent).toEqual([`POST /api/applications/${drafts.get(SOIL).id}/submit`]);

    // Withdrawing needs a note: a guard without its own error says its condition in words, and
    // as the note is empty it first says which field to set.
    await app.api(applicant, 'POST', `/api/applications/${drafts.get(BEES).id}/submit`);
    const withdraw = await answer('POST', `/api/applications/${drafts.get(BEES).id}/withdraw`);
    expect(withdraw.body.code).toBe('TRANSITION_NOT_ALLOWED');
    expect(withdraw.body.detail).toBe('Set a note first. Withdraw is allowed only when the note is not empty.');
    // Beside the button the short reason, what to do; the server's whole text, guard included, on hover.
    const withdrawButton = actions.getByRole('button', { name: 'Withdraw' });
    await expect
      .poll(() => disabledReason(withdrawButton))
      .toBe('Withdraw: Set a note first. Withdraw is allowed only when the note is not empty.');
    const reasonTitle = await withdrawButton.evaluate(
      (element) => document.getElementById(element.getAttribute('aria-describedby') ?? '')?.title,
    );
    expect(reasonTitle).toBe(withdraw.body.detail);
    expect(sent).toHaveLength(1);
    await capture(page, 'grant-call-withdraw-without-note');
    app.expectQuiet();
  });

  it('refuses an application dated after the deadline at its date, as the server would', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    const sent = writesOf(page);
    await signIn(page, app, applicant, '/applications/new');
    const form = page.getByRole('form');
    await form.getByRole('textbox', { name: 'Title' }).fill('Moss on north walls');
    await form.getByRole('textbox', { name: 'Amount' }).fill('8000');
    const dated = form.getByRole('textbox', { name: 'Submitted on' });
    await dated.fill('3000-01-01');
    await form.getByRole('button', { name: /^Create/ }).click();
    await expect.poll(() => fieldError(dated)).not.toBe('');
    expect(sent).toEqual([]);

    const server = await answer('POST', '/api/applications', {
      title: 'Moss on north walls',
      amount: 8000,
      submitted_on: '3000-01-01',
    });
    expect(server.status).toBe(422);
    const late = (server.body.errors as Json[]).find((e) => e.field === 'submitted_on');
    expect(late?.code).toBe('LATE');
    expect(late?.message).toBe('Applications must be dated 2999-12-31 or earlier.');
    expect(await fieldError(dated)).toContain(late.message.replace('2999-12-31', await shownDate(page, '2999-12-31')));
    await expectAccessible(page, 'an application dated after the deadline');
    await capture(page, 'grant-call-late');
    app.expectQuiet();
  });
});
