import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_ONLY } from '../packages/server/test/databases.ts';
import { resetLink, type SmtpCatcher, startSmtpCatcher } from '../packages/server/test/smtp-catcher.ts';
import {
  type App,
  accountMenu,
  capture,
  expectAccessible,
  fieldError,
  INSTALL_TIMEOUT_MS,
  printAxeSummary,
  startApp,
} from './app.ts';

/**
 * Forgot password, end to end, on SQLite and PostgreSQL: the lending desk served with a real SMTP server (the catcher,
 * through nodemailer as `SMTP_URL` configures it), and a member who clicks "Forgot your
 * password?", reads the mail, opens its link, sets a new password and signs in with it.
 */

const NEW_PASSWORD = 'a new password from the reset link';

describe.each(SQLITE_ONLY)('password reset in Chromium, on $name', (db) => {
  let smtp: SmtpCatcher;
  let app: App;

  beforeAll(async () => {
    smtp = await startSmtpCatcher();
    app = await startApp('lending-desk.md', { smtpUrl: smtp.url, database: db });
  }, INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    if (app?.chromium) printAxeSummary(`password reset on ${db.name}`);
    await app?.close();
    await smtp?.close();
  });

  it('mails a link from "Forgot your password?" that sets a new password, then signs in with it', async (ctx) => {
    if (!app.chromium) return ctx.skip(app.unavailable);
    const member = app.users.member;
    if (!member) throw new Error('the lending desk has a member role');
    const page = await app.page();

    await page.goto(`${app.url}/sign-in`);
    await page.getByRole('textbox', { name: 'Email' }).fill(member.email);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Forgot your password?', level: 1 }).waitFor();
    expect(await page.title()).toBe('Forgot your password · Lending desk');
    // The email typed on the sign-in page comes along.
    const email = page.getByRole('textbox', { name: 'Email' });
    expect(await email.inputValue()).toBe(member.email);
    await email.fill('not an email');
    await page.getByRole('button', { name: 'Send the link' }).click();
    await expect.poll(() => fieldError(email)).toBe('Enter an email address, such as ada@example.org.');
    await expectAccessible(page, 'the forgot-password page with an error at the email');
    await email.fill(member.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByRole('heading', { name: 'Check your email', level: 1 }).waitFor();
    await page.getByRole('status').getByText(member.email).waitFor();
    await expectAccessible(page, 'the forgot-password page, link sent');
    await capture(page, 'password-reset-sent');

    const mail = await smtp.next(member.email);
    expect(mail.subject).toBe('Reset your password for Lending desk');
    const link = resetLink(mail);
    expect(link.origin).toBe(app.url);

    await page.goto(link.href);
    await page.getByRole('heading', { name: 'Choose a new password', level: 1 }).waitFor();
    expect(await page.title()).toBe('Choose a new password · Lending desk');
    const password = page.getByRole('textbox', { name: 'New password', exact: true });
    const again = page.getByRole('textbox', { name: 'New password again', exact: true });
    await password.fill('too short');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await expect.poll(() => fieldError(password)).toBe('Use at least 10 characters.');
    await password.fill(NEW_PASSWORD);
    await again.fill(`${NEW_PASSWORD} but different`);
    await page.getByRole('button', { name: 'Set the password' }).click();
    await expect.poll(() => fieldError(password)).toBe('');
    await expect.poll(() => fieldError(again)).toBe('Type the same password again.');
    await expectAccessible(page, 'the reset page with an error at a field');
    await again.fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set the password' }).click();

    // Back at sign-in, told what happened, the email filled in: the new password lets the member in.
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    await page.getByRole('status').getByText('Your password is changed').waitFor();
    expect(await page.getByRole('textbox', { name: 'Email' }).inputValue()).toBe(member.email);
    await expectAccessible(page, 'sign-in after a password reset');
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await accountMenu(page, member).waitFor();

    // The link worked once.
    await page.goto(link.href);
    await page.getByRole('heading', { name: 'Choose a new password', level: 1 }).waitFor();
    await password.fill('yet another new password');
    await again.fill('yet another new password');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.getByRole('heading', { name: 'This link does not work', level: 1 }).waitFor();
    await page.getByRole('alert').getByText('was used already or has expired').waitFor();
    await expectAccessible(page, 'a used reset link');
    await page.getByRole('link', { name: 'Ask for a new link' }).click();
    await page.getByRole('heading', { name: 'Forgot your password?', level: 1 }).waitFor();
    app.expectQuiet();
  });
});
