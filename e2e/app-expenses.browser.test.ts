import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type App,
  addFilter,
  boardCards,
  columnValues,
  disabledReason,
  expectAccessible,
  fieldError,
  INSTALL_TIMEOUT_MS,
  inDays,
  type Json,
  localDateTime,
  moveTo,
  navigationLinks,
  PDF_BYTES,
  type Person,
  pick,
  printAxeSummary,
  signIn,
  signOut,
  startApp,
  withFiles,
} from './app.ts';

/**
 * Expenses in Chromium: a manager opens their approvals board from a deep link and approves and
 * rejects claims there (a rejection without a long enough reason refused in its dialog); an
 * employee files a claim through the form (refused over their limit at the amount, then fixed)
 * and submits it from its detail page once the receipt is attached; finance pay an approved
 * claim and filter and sort every claim. The tests run in order and build on each other's claims.
 */

let app: App;
let employee: Person;
let manager: Person;
let finance: Person;
const staff = new Map<string, Json>();

const TRAIN = 'Train to Leeds for the Acme kickoff';
const HOTEL = 'Hotel in Leeds, two nights';
const CHARGER = 'USB-C charger for the office';
const CONFERENCE = 'Conference ticket for JSConf EU';
const LUNCH = 'Client lunch with Acme';

beforeAll(async () => {
  app = await startApp('expenses.md');
  employee = app.users.employee as Person;
  manager = app.users.manager as Person;
  finance = app.users.finance as Person;
  const leo = await app.addPerson('employee', 'Leo Rossi');
  const hire = async (person: Person, boss: Person, limit: number, center: string) => {
    const email = `${person.name.toLowerCase().replace(/\W+/g, '.')}@consultancy.example`;
    const body = {
      person: person.id,
      work_email: email,
      manager: boss.id,
      cost_center: center,
      single_claim_limit: limit,
    };
    staff.set(person.name, await app.api(finance, 'POST', '/api/employees', body));
  };
  await hire(employee, manager, 500, 'CC-0420');
  await hire(leo, manager, 1000, 'CC-0420');
  await hire(manager, finance, 2000, 'CC-0100');
  const claim = async (by: Person, description: string, fields: Json, submit = true) => {
    const body = {
      employee: staff.get(by.name).id,
      approver: manager.id,
      description,
      ...fields,
    };
    // With its receipt's scan, uploaded beside the claim.
    const made = await app.api(
      by,
      'POST',
      '/api/expenses',
      withFiles(body, [{ field: 'receipt', name: 'scan.pdf', bytes: PDF_BYTES }]),
    );
    if (submit) await app.api(by, 'POST', `/api/expenses/${made.id}/submit`);
    return made;
  };
  await claim(employee, TRAIN, { category: 'travel', amount: 86.4, currency: 'GBP', spent_on: inDays(-5) });
  const hotel = await claim(employee, HOTEL, { category: 'lodging', amount: 240, spent_on: inDays(-5) });
  await app.api(manager, 'POST', `/api/expenses/${hotel.id}/approve`, { decision_note: 'Agreed rate.' });
  await claim(employee, CHARGER, { category: 'equipment', amount: 24.99, spent_on: inDays(-2) }, false);
  await claim(leo, CONFERENCE, { category: 'training', amount: 450, spent_on: inDays(-10) });
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (app?.chromium) printAxeSummary('expenses');
  await app?.close();
});

describe('expenses in Chromium', () => {
  it('takes a manager from a deep link to their approvals board, where they approve and reject claims', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await page.goto(app.url);
    await page.getByRole('heading', { name: 'Expenses', level: 1 }).waitFor();
    expect(await navigationLinks(page)).toEqual(['Home']);
    await expectAccessible(page, 'the home page of a visitor');

    await page.goto(`${app.url}/approvals`);
    await page.getByRole('heading', { name: 'Sign in to continue', level: 1 }).waitFor();
    await page.getByRole('main').getByRole('link', { name: 'Sign in' }).click();
    await page.getByRole('textbox', { name: 'Email' }).fill(manager.email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(manager.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${app.url}/approvals`);
    await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
    expect(await navigationLinks(page)).toEqual(['Home', 'Approvals']);
    await expect.poll(() => boardCards(page, 'Submitted')).toEqual([CONFERENCE, TRAIN]);
    expect(await boardCards(page, 'Approved')).toEqual([HOTEL]);
    await expectAccessible(page, 'the approvals board');

    await moveTo(page, TRAIN, 'Approved — Approve');
    const approve = page.getByRole('dialog', { name: `Approve: ${TRAIN}` });
    await approve.getByRole('textbox', { name: 'Decision note' }).fill('Thanks for booking early.');
    await approve.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => boardCards(page, 'Approved')).toEqual([TRAIN, HOTEL]);

    // A rejection needs a reason of MIN_REASON_LENGTH characters: the dialog says so and stays.
    await moveTo(page, CONFERENCE, 'Rejected — Reject');
    const reject = page.getByRole('dialog', { name: `Reject: ${CONFERENCE}` });
    const reason = reject.getByRole('textbox', { name: 'Decision note' });
    await reason.fill('No budget');
    await reject.getByRole('button', { name: 'Reject' }).click();
    const refused = reject.getByRole('alert');
    await expect(refused.textContent()).resolves.toMatch(/Not done/);
    await expect(refused.textContent()).resolves.toContain(
      'Reject is allowed only when you are the approver and the decision note has at least 10 characters.',
    );
    await expectAccessible(page, 'the reject dialog with a refusal');
    await reason.fill('Not in this year’s training budget; ask again in January.');
    await reject.getByRole('button', { name: 'Reject' }).click();
    await expect.poll(() => boardCards(page, 'Rejected')).toEqual([CONFERENCE]);
    expect(await boardCards(page, 'Submitted')).toEqual([]);
    await signOut(page, manager);
    app.expectQuiet();
  });

  it('lets an employee file a claim: refused over their limit at the amount, fixed, then submitted', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, employee);
    expect(await navigationLinks(page)).toEqual(['Home', 'My expenses']);
    await page.getByRole('main').getByRole('link', { name: 'New expense' }).click();
    await page.getByRole('heading', { name: 'New expense', level: 1 }).waitFor();
    const form = page.getByRole('form', { name: 'New expense' });
    await pick(page, 'Employee', 'Ana', /^Ana Costa/);
    await pick(page, 'Approver', 'Ben', /^Ben Müller/);
    await form.getByRole('textbox', { name: 'Description' }).fill(LUNCH);
    await form.getByRole('combobox', { name: 'Category', exact: true }).click();
    await page.getByRole('listbox', { name: 'Category' }).getByRole('option', { name: 'Meals' }).click();
    const amount = form.getByRole('textbox', { name: 'Amount' });
    await amount.fill('900');
    expect(await form.getByRole('combobox', { name: 'Currency' }).inputValue()).toBe('EUR');
    expect(await form.getByRole('textbox', { name: 'Spent on' }).inputValue()).toBe(inDays(0));
    await form.getByRole('button', { name: 'Create expense' }).click();

    // OVER_LIMIT reads the employee's own limit through the reference: a rule only the server knows.
    await expect
      .poll(() => fieldError(amount))
      .toContain('is more than your limit for one claim. Ask finance@example.com to raise it.');
    await expectAccessible(page, 'the new expense form over the limit');
    await amount.fill('42.50');
    await form.getByRole('button', { name: 'Create expense' }).click();
    await page.waitForURL(/\/expenses\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: LUNCH, level: 1 }).waitFor();

    // Submitting a claim over RECEIPT_THRESHOLD needs the receipt: shown as not possible before
    // any click, with the rule's words, then fixed in the form.
    const actions = page.getByRole('group', { name: 'What you can do with this expense' });
    await expect.poll(() => actions.getByRole('button').allTextContents()).toEqual(['Submit', 'Withdraw', 'Delete']);
    await expect
      .poll(() => disabledReason(actions.getByRole('button', { name: 'Submit' })))
      .toBe('Submit is not possible now: Claims over 25.00 need their receipt: upload a photo or a PDF of it.');
    await expectAccessible(page, 'a draft claim with a refused submit');
    await actions.getByRole('link', { name: 'Edit' }).click();
    // The receipt, picked in the form's file input, goes with the save.
    await page.getByLabel('Receipt', { exact: true }).setInputFiles({
      name: 'lunch-receipt.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from(PDF_BYTES),
    });
    await page.getByText('lunch-receipt.pdf').waitFor();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: LUNCH, level: 1 }).waitFor();
    await actions.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('status').filter({ hasText: 'Submit done: it is now Submitted.' }).waitFor();

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: /^My expenses/ })
      .click();
    await page.getByRole('heading', { name: 'My expenses', level: 1 }).waitFor();
    // Ascending, then descending. The second click waits for the first to reach the address: two
    // clicks before the list renders again sort ascending twice (see the report on ListPage).
    const byAmount = page.getByRole('table').getByRole('button', { name: /^Amount/ });
    await byAmount.click();
    await page.waitForURL((u) => u.searchParams.get('sort') === 'amount');
    await byAmount.click();
    await page.waitForURL((u) => u.searchParams.get('sort') === '-amount');
    await expect.poll(() => columnValues(page, 'Description')).toEqual([HOTEL, TRAIN, LUNCH, CHARGER]);
    await addFilter(page, 'State', 'is', { any: ['Draft'] });
    await expect.poll(() => columnValues(page, 'Description')).toEqual([CHARGER]);
    await expectAccessible(page, 'my expenses, filtered');
    await page.goto(`${app.url}/payments`);
    await page.getByRole('heading', { name: 'Not available to you', level: 1 }).waitFor();
    await signOut(page, employee);
    app.expectQuiet();
  });

  it('lets finance pay an approved claim from the payments list, and sort and filter every claim', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    await signIn(page, app, finance);
    expect(await navigationLinks(page)).toEqual([
      'Home',
      'Expenses',
      'Payments',
      'Employees',
      'Users',
      'Deliveries',
      'Invite people',
    ]);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: /^Payments/ })
      .click();
    await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
    await expect.poll(() => columnValues(page, 'Description')).toEqual([TRAIN, HOTEL]);
    await expectAccessible(page, 'the payments list');
    await page.getByRole('link', { name: HOTEL }).click();
    await page.getByRole('heading', { name: HOTEL, level: 1 }).waitFor();
    const actions = page.getByRole('group', { name: 'What you can do with this expense' });
    await actions.getByRole('button', { name: 'Pay' }).click();
    const dialog = page.getByRole('dialog', { name: `Pay: ${HOTEL}` });
    await dialog.getByRole('textbox', { name: 'Paid at' }).fill(localDateTime());
    await expectAccessible(page, 'the pay dialog');
    await dialog.getByRole('button', { name: 'Pay' }).click();
    await page.getByRole('status').filter({ hasText: 'Pay done: it is now Paid.' }).waitFor();
    await expect.poll(() => actions.getByRole('button').count()).toBe(0);

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: /^Expenses/ })
      .click();
    await page.getByRole('heading', { name: 'Expenses', level: 1 }).waitFor();
    await page
      .getByRole('table')
      .getByRole('button', { name: /^Amount/ })
      .click();
    await page.waitForURL((u) => u.searchParams.get('sort') === 'amount');
    await expect.poll(() => columnValues(page, 'Description')).toEqual([CHARGER, LUNCH, TRAIN, HOTEL, CONFERENCE]);
    await addFilter(page, 'State', 'is', { any: ['Approved'] });
    await expect.poll(() => columnValues(page, 'Description')).toEqual([TRAIN]);
    await page.getByRole('button', { name: 'Remove the filter State' }).click();
    await addFilter(page, 'Category', 'is', { any: ['travel'] });
    await expect.poll(() => columnValues(page, 'Description')).toEqual([TRAIN]);
    await expectAccessible(page, 'every claim, filtered');

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: /^Employees/ })
      .click();
    await page.getByRole('heading', { name: 'Employees', level: 1 }).waitFor();
    await expect.poll(() => columnValues(page, 'Cost center')).toEqual(['CC-0420', 'CC-0420', 'CC-0100']);
    await expectAccessible(page, 'the employees list');
    await signOut(page, finance);
    expect(await navigationLinks(page)).toEqual(['Home']);
    app.expectQuiet();
  });
});
