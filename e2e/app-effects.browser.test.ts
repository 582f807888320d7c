import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  expectAccessible,
  INSTALL_TIMEOUT_MS,
  inDays,
  type Json,
  PDF_BYTES,
  type Person,
  printAxeSummary,
  signIn,
  startApp,
  withFiles,
} from './app.ts';

/**
 * Transition effects in Chromium, on expenses.md: rejecting a claim stamps who decided and on
 * which day (point 4's `sets`). The reject dialog asks only for the decision note; the detail page
 * then shows the decider and the day, which nobody typed in.
 */

let app: App;
let employee: Person;
let manager: Person;
let claim: Json;

const TAXI = 'Taxi from the airport at 3 am';

beforeAll(async () => {
  app = await startApp('expenses.md');
  employee = app.users.employee as Person;
  manager = app.users.manager as Person;
  const finance = app.users.finance as Person;
  const ada = await app.api(finance, 'POST', '/api/employees', {
    person: employee.id,
    work_email: 'ada@consultancy.example',
    manager: manager.id,
    cost_center: 'CC-0420',
    single_claim_limit: 500,
  });
  claim = await app.api(
    employee,
    'POST',
    '/api/expenses',
    withFiles(
      {
        employee: ada.id,
        approver: manager.id,
        description: TAXI,
        category: 'travel',
        amount: 64,
        spent_on: inDays(-1),
      },
      [{ field: 'receipt', name: 'taxi.pdf', bytes: PDF_BYTES }],
    ),
  );
  await app.api(employee, 'POST', `/api/expenses/${claim.id}/submit`);
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (app?.chromium) printAxeSummary('effects');
  await app?.close();
});

/** The value the detail page shows for a field, by its label. */
async function shown(page: Page, label: string): Promise<string> {
  return (await page.locator(`xpath=//dt[normalize-space()="${label}"]/following-sibling::dd[1]`).textContent()) ?? '';
}

describe('a transition that sets fields, in the browser', () => {
  it('fills the decider and the day the reject dialog did not ask for, and the detail page shows them', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, manager, `/expenses/${claim.id}`);
    await page.getByRole('heading', { name: new RegExp(TAXI), level: 1 }).waitFor();
    expect((await shown(page, 'Decided by')).trim()).toBe('Not set');
    expect((await shown(page, 'Decided on')).trim()).toBe('Not set');

    const actions = page.getByRole('group', { name: 'What you can do with this expense' });
    await actions.getByRole('button', { name: 'Reject' }).click();
    const dialog = page.getByRole('dialog', { name: new RegExp(`^Reject: ${TAXI}`) });
    await dialog.waitFor();
    // The dialog asks for the transition's payload only: not for what the transition sets.
    expect(
      await dialog
        .getByRole('textbox')
        .evaluateAll((boxes) =>
          boxes.map(
            (b) => b.getAttribute('aria-label') ?? (b as HTMLInputElement).labels?.[0]?.textContent?.trim() ?? '',
          ),
        ),
    ).toEqual(['Decision note']);
    expect(await dialog.getByText('Decided by').count()).toBe(0);
    expect(await dialog.getByText('Decided on').count()).toBe(0);
    await dialog.getByRole('textbox', { name: 'Decision note' }).fill('Taxis need a pre-approval after midnight.');
    await expectAccessible(page, 'the reject dialog');
    await dialog.getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('status').filter({ hasText: 'Reject done: it is now Rejected.' }).waitFor();

    const day = await page.evaluate(
      (iso) =>
        new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' }).format(
          new Date(`${iso}T00:00:00Z`),
        ),
      inDays(0),
    );
    await expect.poll(async () => (await shown(page, 'Decided on')).trim()).toBe(day);
    await expect.poll(async () => (await shown(page, 'Decided by')).trim()).toBe(`${manager.name} (you)`);
    await expectAccessible(page, 'a claim after its rejection');

    const stored = await app.api(manager, 'GET', `/api/expenses/${claim.id}`);
    expect(stored).toMatchObject({ state: 'rejected', decided_by: manager.id, decided_on: inDays(0) });
    app.expectQuiet();
  });
});
