import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_ONLY } from '../packages/server/test/databases.ts';
import { linkTo, type SmtpCatcher, startSmtpCatcher } from '../packages/server/test/smtp-catcher.ts';
import {
  type App,
  accountMenu,
  capture,
  expectAccessible,
  fieldError,
  INSTALL_TIMEOUT_MS,
  type Person,
  printAxeSummary,
  signIn,
  signOut,
  startApp,
} from './app.ts';

/**
 * People joining, end to end in Chromium (on SQLite: the joining store's SQL runs on both databases
 * in packages/server/src/http/people-joining.test.ts): the clinic of
 * `packages/server/test/fixtures/clinic-people.md` (patients sign up; staff sign up with a
 * clinic.example address; doctors invite patients), served with a real SMTP server. A visitor
 * creates an account from the sign-in page, reads the mail and follows its link; a doctor invites
 * a patient from "Invite people", and the invitee accepts and is signed in with the role.
 */

const FIXTURE = 'packages/server/test/fixtures/clinic-people.md';
const PASSWORD = 'a long enough password to join with';
const DATABASES = SQLITE_ONLY.map((db) => db.name);

let smtp: SmtpCatcher;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
});
afterAll(async () => {
  await smtp?.close();
});

describe.each(DATABASES)('joining in Chromium on %s', (database) => {
  let app: App;

  beforeAll(async () => {
    app = await startApp(FIXTURE, { smtpUrl: smtp.url, database });
  }, INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    if (app?.chromium) printAxeSummary(`joining on ${database}`);
    await app?.close();
  });

  /** A person who is not in the app yet: signs in with the name and email they join with. */
  const newcomer = (name: string, email: string): Person => ({
    id: '',
    name,
    email,
    password: PASSWORD,
    role: '',
    token: '',
  });

  it('signs a visitor up from "Create an account", and the mail’s link signs them in as a patient', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const page = await app.page();
    const person = newcomer('Pat Newcomer', `pat.${database}@example.org`);

    await page.goto(`${app.url}/sign-in`);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create an account', level: 1 }).waitFor();
    expect(await page.title()).toBe('Create an account · Clinic people');

    // Staff take clinic.example addresses only: the page says so, and refuses another before sending.
    await page.getByRole('radio', { name: 'staff' }).check();
    await page.getByText('Email addresses at clinic.example only').waitFor();
    const email = page.getByRole('textbox', { name: 'Email' });
    await page.getByRole('textbox', { name: 'Name' }).fill(person.name);
    await email.fill(person.email);
    // No password here: whoever holds the mail chooses it, not whoever typed the address.
    expect(await page.getByRole('textbox', { name: 'Password', exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'Create the account' }).click();
    await expect.poll(() => fieldError(email)).toContain('Use an address at clinic.example.');
    await expectAccessible(page, 'the sign-up page with an error at the email');
    await capture(page, `sign-up-${database}`);

    await page.getByRole('radio', { name: 'patient' }).check();
    await page.getByRole('button', { name: 'Create the account' }).click();
    await page.getByRole('heading', { name: 'Check your email', level: 1 }).waitFor();
    await page.getByRole('status').getByText(person.email).waitFor();
    await expectAccessible(page, 'the sign-up page, link sent');

    const mail = await smtp.next(person.email);
    expect(mail.subject).toBe('Confirm your email for Clinic people');
    const link = linkTo(mail, '/verify-email');
    expect(link.origin).toBe(app.url);

    await page.goto(link.href);
    await page.getByRole('heading', { name: 'Confirm your email', level: 1 }).waitFor();
    await expectAccessible(page, 'the confirm-your-email page');
    const password = page.getByRole('textbox', { name: 'Password', exact: true });
    await password.fill('too short');
    await page.getByRole('button', { name: 'Confirm and sign in' }).click();
    await expect.poll(() => fieldError(password)).toBe('Use at least 10 characters.');
    await password.fill(PASSWORD);
    await page.getByRole('textbox', { name: 'Password again' }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Confirm and sign in' }).click();
    await accountMenu(page, person).waitFor();
    await accountMenu(page, person).click();
    await page.getByRole('menu').getByText('patient', { exact: true }).waitFor();
    await page.keyboard.press('Escape');
    await signOut(page, person);

    // The link worked once; the password chosen at the link signs in.
    await page.goto(link.href);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('another long password');
    await page.getByRole('textbox', { name: 'Password again' }).fill('another long password');
    await page.getByRole('button', { name: 'Confirm and sign in' }).click();
    await page.getByRole('heading', { name: 'This link does not work', level: 1 }).waitFor();
    await expectAccessible(page, 'a used confirmation link');
    await signIn(page, app, person);
    app.expectQuiet();
  });

  it('lets a doctor invite a patient from "Invite people", and the invitee accept and be signed in', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const doctor = app.users.doctor;
    if (!doctor) throw new Error('the clinic has a doctor role');
    const page = await app.page();
    const invitee = newcomer('Ivy Invited', `ivy.${database}@example.org`);

    await signIn(page, app, doctor);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Invite people' }).click();
    await page.getByRole('heading', { name: 'Invite people', level: 1 }).waitFor();
    expect(await page.title()).toBe('Invite people · Clinic people');
    await page.getByText('No invitation is waiting to be accepted.').waitFor();
    // A doctor invites patients only: the one role is offered, and chosen.
    const roles = page.getByRole('group', { name: 'Roles' }).getByRole('checkbox');
    expect(await roles.count()).toBe(1);
    expect(await page.getByRole('checkbox', { name: 'patient' }).isChecked()).toBe(true);

    const email = page.getByRole('textbox', { name: 'Email' });
    await email.fill('not an email');
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await expect.poll(() => fieldError(email)).toBe('Enter an email address, such as ada@example.org.');
    await email.fill(invitee.email);
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await page.getByRole('status').getByText(`Invitation sent to ${invitee.email}.`).waitFor();
    const table = page.getByRole('table', { name: 'Pending invitations' });
    await table.getByRole('cell', { name: invitee.email, exact: true }).waitFor();
    await expectAccessible(page, 'the invite page with a pending invitation');
    await capture(page, `invite-${database}`);

    // A second invitation, revoked: its row goes, and its link stops working.
    const revoked = `revoked.${database}@example.org`;
    await email.fill(revoked);
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await table.getByRole('cell', { name: revoked, exact: true }).waitFor();
    await page.getByRole('button', { name: `Revoke the invitation of ${revoked}` }).click();
    await expect.poll(() => table.getByRole('cell', { name: revoked, exact: true }).count()).toBe(0);
    await signOut(page, doctor);

    const dead = linkTo(await smtp.next(revoked), '/accept-invitation');
    const mail = await smtp.next(invitee.email);
    expect(mail.subject).toBe(`${doctor.name} invites you to Clinic people`);
    const link = linkTo(mail, '/accept-invitation');
    expect(link.origin).toBe(app.url);

    await page.goto(link.href);
    await page.getByRole('heading', { name: 'Accept the invitation', level: 1 }).waitFor();
    expect(await page.title()).toBe('Accept the invitation · Clinic people');
    await page.getByText(`${doctor.name} invites you to Clinic people as patient.`).waitFor();
    await page.getByText(invitee.email, { exact: true }).waitFor();
    const password = page.getByRole('textbox', { name: 'Password', exact: true });
    await page.getByRole('textbox', { name: 'Name' }).fill(invitee.name);
    await password.fill('too short');
    await page.getByRole('button', { name: 'Create the account' }).click();
    await expect.poll(() => fieldError(password)).toBe('Use at least 10 characters.');
    await expectAccessible(page, 'the accept page with an error at a field');
    await password.fill(PASSWORD);
    await page.getByRole('textbox', { name: 'Password again' }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create the account' }).click();
    await accountMenu(page, invitee).waitFor();
    await accountMenu(page, invitee).click();
    await page.getByRole('menu').getByText('patient', { exact: true }).waitFor();
    await page.keyboard.press('Escape');
    // A patient may not invite: no such link.
    expect(
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Invite people' }).count(),
    ).toBe(0);
    await signOut(page, invitee);

    // A revoked invitation says so as soon as its link is opened.
    await page.goto(dead.href);
    await page.getByRole('heading', { name: 'This invitation does not work', level: 1 }).waitFor();
    await expectAccessible(page, 'a revoked invitation');
    app.expectQuiet();
  });
});
