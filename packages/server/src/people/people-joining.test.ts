import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASES } from '../../test/databases.ts';
import { blankModel, modelOf, tempDir } from '../../test/helpers.ts';
import { linkTo, type SmtpCatcher, startSmtpCatcher } from '../../test/smtp-catcher.ts';
import { TEST_PASSWORD, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import { webAppDirectory } from '../http/web-app.ts';
import { mailSettingsFromEnv } from '../mail/mail-settings.ts';
import { smtpMailer } from '../mail/mailer.ts';
import { INVITATIONS_TABLE, SIGN_UPS_TABLE } from './joining-store.ts';
import { SIGN_UP_ACCEPTED } from './people-schemas.ts';

/**
 * Self sign-up and invitations through a real SMTP server (the catcher): each test reads the
 * mail and follows its link, on both databases. The clinic's point 6 opens `patient` to anyone's
 * sign-up, `staff` to clinic.example addresses, and lets doctors invite patients, staff invite
 * staff and patients, and admins (manage) invite anyone.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const HOST = 'app.example:3000';
const ORIGIN = `http://${HOST}`;
const APP_URL = 'https://clinic.example.org';
const PASSWORD = 'a long enough password for joining';
const SPEC = readFileSync(new URL('../../test/fixtures/clinic-people.md', import.meta.url), 'utf8');

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: Json;
  text: string;
}

let addressCounter = 0;
const freshIp = () => `10.8.${(++addressCounter >> 8) & 255}.${addressCounter & 255}`;
let emailCounter = 0;
const freshEmail = (domain = 'example.test') => `joiner${++emailCounter}@${domain}`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let smtp: SmtpCatcher;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
});
afterAll(async () => {
  await smtp?.close();
});

// On PostgreSQL too: the only suite of the joining store (sign-up and invitation SQL with RETURNING).
describe.each(TEST_DATABASES)('people joining on $name', (db) => {
  let server: NinepointServer;
  let remove: () => Promise<void>;
  const clock = { now: Math.floor(Date.now() / HOUR) * HOUR + 10 * MINUTE };

  beforeAll(async () => {
    const fresh = await db.fresh();
    remove = fresh.remove;
    const settings = mailSettingsFromEnv({ SMTP_URL: smtp.url, MAIL_FROM: 'Clinic <desk@clinic.example>', APP_URL });
    const { smtp: smtpSettings, from } = settings;
    if (!smtpSettings || !from) throw new Error('the SMTP settings did not parse');
    server = await createServer({
      model: modelOf(SPEC),
      ...fresh.options,
      logger: false,
      now: () => clock.now,
      mail: { mailer: smtpMailer(smtpSettings, from), appUrl: () => APP_URL },
    });
  });
  afterAll(async () => {
    await server?.close();
    await remove?.();
  });

  const call = async (
    method: string,
    url: string,
    ask: { body?: unknown; ip?: string; origin?: string; cookie?: string; authorization?: string } = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = { host: HOST };
    if (ask.origin !== undefined) headers.origin = ask.origin;
    if (ask.cookie !== undefined) headers.cookie = `np_session=${ask.cookie}`;
    if (ask.authorization !== undefined) headers.authorization = ask.authorization;
    if (ask.body !== undefined) headers['content-type'] = 'application/json';
    const response = await server.app.inject({
      method: method as 'GET',
      url,
      headers,
      remoteAddress: ask.ip ?? freshIp(),
      ...(ask.body !== undefined ? { payload: JSON.stringify(ask.body) } : {}),
    });
    if (response.statusCode >= 400) {
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(server.compiled.catalogue.status((response.json() as { code: string }).code)).toBe(response.statusCode);
    }
    const isJson = String(response.headers['content-type'] ?? '').includes('json');
    return {
      status: response.statusCode,
      headers: response.headers,
      body: isJson && response.body !== '' ? (response.json() as Json) : {},
      text: response.body,
    };
  };
  /** Signs up as a patient unless the body names another role (two roles are open: one must be named). */
  const signUp = (body: Json, ip?: string) =>
    call('POST', '/api/auth/sign-up', { origin: ORIGIN, body: { role: 'patient', ...body }, ...(ip ? { ip } : {}) });
  const verify = (token: string, password = PASSWORD) =>
    call('POST', '/api/auth/verify-email', { origin: ORIGIN, body: { token, password } });
  const accept = (token: string, name = 'Dr. Invitee', password = PASSWORD) =>
    call('POST', '/api/invitations/accept', { origin: ORIGIN, body: { token, name, password } });
  const cookieOf = (answer: Answer) => /np_session=([^;]+)/.exec(String(answer.headers['set-cookie']))?.[1] ?? '';
  const me = async (cookie: string) => (await call('GET', '/api/auth/me', { cookie })).body.user as Json | null;
  const signIn = (email: string, password: string) =>
    call('POST', '/api/auth/sign-in', { origin: ORIGIN, body: { email, password } });
  const invite = (authorization: string, email: string, roles: string[]) =>
    call('POST', '/api/invitations', { authorization, body: { email, roles } });
  const tokenOf = (link: URL) => link.searchParams.get('token') ?? '';

  describe('sign-up', () => {
    it('mails a link to /verify-email that creates the account with the role and signs it in, once', async () => {
      const email = freshEmail();
      const answer = await signUp({ email: ` ${email.toUpperCase()} `, name: ' Pat Ient ' });
      expect(answer.status).toBe(202);
      expect(answer.body).toEqual(SIGN_UP_ACCEPTED);
      // No account until the link is followed.
      expect(await server.auth.users.byEmail(email)).toBeUndefined();

      const mail = await smtp.next(email);
      expect(mail.from).toBe('Clinic <desk@clinic.example>');
      expect(mail.subject).toBe('Confirm your email for Clinic people');
      expect(mail.text).toContain('Hello Pat Ient,');
      expect(mail.text).toContain('within 2 hours');
      const link = linkTo(mail, '/verify-email');
      expect(link.origin).toBe(APP_URL);
      const token = tokenOf(link);
      expect(token).toMatch(/^npv_[A-Za-z0-9_-]{43}$/);

      // Stored: the SHA-256 of the link's secret, never the secret; no password until the link is followed.
      const stored = await server.store.sql.all<Json>(`SELECT * FROM "${SIGN_UPS_TABLE}" WHERE "email" = ?`, [email]);
      expect(stored).toEqual([
        {
          token_hash: sha256(token),
          email,
          name: 'Pat Ient',
          role: 'patient',
          created_at: clock.now,
          expires_at: clock.now + 2 * HOUR,
          used_at: null,
        },
      ]);

      const page = await call('GET', `${link.pathname}${link.search}`);
      expect(page.status).toBe(webAppDirectory() ? 200 : 404);
      const done = await verify(token);
      expect(done.status).toBe(200);
      expect(done.body.user).toMatchObject({ email, name: 'Pat Ient', roles: ['patient'] });
      expect(await me(cookieOf(done))).toMatchObject({ email, roles: ['patient'] });
      expect((await signIn(email, PASSWORD)).status).toBe(200);

      const again = await verify(token);
      expect(again.status).toBe(400);
      expect(again.body.code).toBe('VERIFY_LINK_INVALID');
      expect(again.headers['set-cookie']).toBeUndefined();
    });

    it('answers an email that has an account exactly as a new one, and mails its owner that it has one', async () => {
      const { user } = await userWithToken(server, ['doctor']);
      const fresh = freshEmail();
      const known = await signUp({ email: user.email, name: 'Someone' });
      const unknown = await signUp({ email: fresh, name: 'Someone' });
      expect(known.status).toBe(202);
      expect(known.text).toBe(unknown.text);
      const { date: _d1, 'x-request-id': _r1, ...knownHeaders } = known.headers;
      const { date: _d2, 'x-request-id': _r2, ...unknownHeaders } = unknown.headers;
      expect(knownHeaders).toEqual(unknownHeaders);

      const told = await smtp.next(user.email);
      expect(told.subject).toBe('You already have an account at Clinic people');
      expect(told.text).toContain(`${APP_URL}/sign-in`);
      expect(told.text).not.toMatch(/token=/);
      await smtp.next(fresh);
      // The account stays as it was: same password, same roles.
      expect((await signIn(user.email, TEST_PASSWORD)).status).toBe(200);
      expect((await server.auth.users.byEmail(user.email))?.roles).toEqual(['doctor']);
    });

    it('refuses an email outside the domains of the role with SIGN_UP_DOMAIN naming them', async () => {
      const refused = await signUp({
        email: freshEmail('example.test'),
        name: 'Sam',
        role: 'staff',
      });
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe('SIGN_UP_DOMAIN');
      expect(refused.body.detail).toBe('This role is open to email addresses at clinic.example only.');

      const email = freshEmail('Clinic.Example');
      expect((await signUp({ email, name: 'Sam Staff', role: 'staff' })).status).toBe(202);
      const done = await verify(tokenOf(linkTo(await smtp.next(email), '/verify-email')));
      expect(done.body.user).toMatchObject({ email: email.toLowerCase(), roles: ['staff'] });
    });

    it('refuses a role nobody may sign up to, and asks which role when several are open', async () => {
      for (const role of ['doctor', 'admin', 'nurse']) {
        const refused = await signUp({ email: freshEmail(), name: 'Eve', role });
        expect(refused.status).toBe(403);
        expect(refused.body.code).toBe('FORBIDDEN');
        expect(refused.body.detail).toBe(`Nobody may sign up as ${role}. Sign up as patient, staff.`);
      }
      const unnamed = await call('POST', '/api/auth/sign-up', {
        origin: ORIGIN,
        body: { email: freshEmail(), name: 'Eve' },
      });
      expect(unnamed.status).toBe(400);
      expect(unnamed.body.code).toBe('INVALID_PAYLOAD');
      expect(unnamed.body.detail).toBe('The request is not valid: role is required: one of patient, staff.');
    });

    it('takes the password at the link, not at sign-up: a short one is refused at password and the link keeps working', async () => {
      const email = freshEmail();
      const withPassword = await signUp({ email, name: 'Early', password: PASSWORD });
      expect(withPassword.status).toBe(400);
      expect(withPassword.body.code).toBe('INVALID_PAYLOAD');
      expect((await signUp({ email: 'not an email', name: 'X' })).body.code).toBe('INVALID_PAYLOAD');
      expect(await smtp.arrives(email, 300)).toBe(false);

      expect((await signUp({ email, name: 'Short' })).status).toBe(202);
      const token = tokenOf(linkTo(await smtp.next(email), '/verify-email'));
      const refused = await verify(token, 'short');
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe('VALIDATION_FAILED');
      expect(refused.body.errors).toEqual([
        { field: 'password', code: 'TOO_SHORT', message: 'password must be at least 10 characters long.' },
      ]);
      expect((await verify(token)).status).toBe(200);
    });

    it('never lets whoever typed an address choose its password: only the holder of the mail does', async () => {
      // Someone signs up another person's address; the owner, trusting the mail, confirms it.
      const email = freshEmail();
      expect((await signUp({ email, name: 'Owner' })).status).toBe(202);
      const token = tokenOf(linkTo(await smtp.next(email), '/verify-email'));
      const owner = await verify(token, 'the owner chose this password');
      expect(owner.status).toBe(200);
      // Nothing the first person typed opens the account.
      expect((await signIn(email, PASSWORD)).body.code).toBe('SIGN_IN_FAILED');
      expect((await signIn(email, 'the owner chose this password')).status).toBe(200);
    });

    it('refuses a link EMAIL_VERIFICATION_HOURS after it was sent, and a token no mail carried', async () => {
      const started = clock.now;
      try {
        const email = freshEmail();
        await signUp({ email, name: 'Late' });
        const token = tokenOf(linkTo(await smtp.next(email), '/verify-email'));
        clock.now = started + 2 * HOUR;
        expect((await verify(token)).body.code).toBe('VERIFY_LINK_INVALID');
        expect(await server.auth.users.byEmail(email)).toBeUndefined();
      } finally {
        clock.now = started;
      }
      expect((await verify('npv_not-a-link-anybody-was-sent')).body.code).toBe('VERIFY_LINK_INVALID');
      expect((await verify(`npv_${'A'.repeat(43)}`)).body.code).toBe('VERIFY_LINK_INVALID');
    });

    it('limits sign-ups to 3 per email an hour, counted alike for emails with and without an account', async () => {
      const { user } = await userWithToken(server, ['patient']);
      for (const email of [user.email, freshEmail()]) {
        for (let i = 0; i < 3; i++) expect((await signUp({ email, name: 'Again' })).status).toBe(202);
        const limited = await signUp({ email, name: 'Again' });
        expect(limited.status).toBe(429);
        expect(limited.body.code).toBe('RATE_LIMITED');
        expect(Number(limited.headers['retry-after'])).toBe(50 * 60);
      }
    });

    it('refuses a sign-up sent from another site’s page', async () => {
      const answer = await call('POST', '/api/auth/sign-up', {
        origin: 'https://evil.example',
        body: { email: freshEmail(), name: 'X' },
      });
      expect(answer.status).toBe(403);
      expect(answer.body.code).toBe('FORBIDDEN');
    });
  });

  describe('invitations', () => {
    it('lets a doctor invite a patient whose link sets name and password, signs them in with the role, once', async () => {
      const doctor = await userWithToken(server, ['doctor']);
      const email = freshEmail();
      const made = await invite(doctor.authorization, email.toUpperCase(), ['patient']);
      expect(made.status).toBe(201);
      expect(made.body).toEqual({
        id: expect.any(String),
        email,
        roles: ['patient'],
        invitedBy: { id: doctor.user.id, name: doctor.user.name },
        createdAt: new Date(clock.now).toISOString(),
        expiresAt: new Date(clock.now + 3 * 24 * HOUR).toISOString(),
      });

      const mail = await smtp.next(email);
      expect(mail.subject).toBe(`${doctor.user.name} invites you to Clinic people`);
      expect(mail.text).toContain('as patient');
      expect(mail.text).toContain('within 3 days');
      const link = linkTo(mail, '/accept-invitation');
      expect(link.origin).toBe(APP_URL);
      const token = tokenOf(link);
      expect(token).toMatch(/^npi_[A-Za-z0-9_-]{43}$/);
      const [row] = await server.store.sql.all<Json>(`SELECT "token_hash" FROM "${INVITATIONS_TABLE}" WHERE "id" = ?`, [
        made.body.id,
      ]);
      expect(row?.token_hash).toBe(sha256(token));

      const listed = await call('GET', '/api/invitations', { authorization: doctor.authorization });
      expect(listed.body.items).toEqual([made.body]);
      // The page the link opens shows what the invitation is, without using it.
      const lookUp = () => call('POST', '/api/invitations/lookup', { origin: ORIGIN, body: { token } });
      expect((await lookUp()).body).toEqual({
        email,
        roles: ['patient'],
        invitedBy: doctor.user.name,
        expiresAt: made.body.expiresAt,
      });
      expect((await call('POST', '/api/invitations/lookup', { body: { token: `${token}x` } })).body.code).toBe(
        'INVITATION_INVALID',
      );

      const short = await accept(token, 'Pat', 'short');
      expect(short.body.code).toBe('VALIDATION_FAILED');
      const done = await accept(token, ' Pat Invited ');
      expect(done.status).toBe(200);
      expect(done.body.user).toMatchObject({ email, name: 'Pat Invited', roles: ['patient'] });
      expect(await me(cookieOf(done))).toMatchObject({ email, roles: ['patient'] });
      expect((await signIn(email, PASSWORD)).status).toBe(200);

      const again = await accept(token, 'Someone Else', 'another long password');
      expect(again.status).toBe(400);
      expect(again.body.code).toBe('INVITATION_INVALID');
      expect((await lookUp()).body.code).toBe('INVITATION_INVALID');
      // Accepted: no longer pending.
      expect((await call('GET', '/api/invitations', { authorization: doctor.authorization })).body.items).toEqual([]);
    });

    it('refuses roles the inviter’s people grant does not allow, naming them, and inviters without a grant', async () => {
      const doctor = await userWithToken(server, ['doctor']);
      const refused = await invite(doctor.authorization, freshEmail(), ['patient', 'admin', 'staff']);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('FORBIDDEN');
      expect(refused.body.detail).toBe('Your roles may not invite people as admin, staff. You may invite as patient.');

      const patient = await userWithToken(server, ['patient']);
      const none = await invite(patient.authorization, freshEmail(), ['patient']);
      expect(none.status).toBe(403);
      expect(none.body.detail).toBe('Your roles may not invite people.');
      expect((await call('GET', '/api/invitations', { authorization: patient.authorization })).status).toBe(403);

      const visitor = await call('POST', '/api/invitations', { body: { email: freshEmail(), roles: ['patient'] } });
      expect(visitor.status).toBe(401);
      expect(visitor.body.code).toBe('NOT_SIGNED_IN');

      const admin = await userWithToken(server, ['admin']);
      expect((await invite(admin.authorization, freshEmail(), ['doctor', 'staff'])).status).toBe(201);
      expect((await invite(admin.authorization, freshEmail(), ['surgeon'])).body.code).toBe('INVALID_PAYLOAD');
    });

    it('answers an email that has an account as any other, and mails its owner no link', async () => {
      const staff = await userWithToken(server, ['staff']);
      const existing = await userWithToken(server, ['patient']);
      const fresh = freshEmail();
      const known = await invite(staff.authorization, existing.user.email, ['staff']);
      const unknown = await invite(staff.authorization, fresh, ['staff']);
      expect(known.status).toBe(201);
      expect(unknown.status).toBe(201);
      const strip = (body: Json) => ({ ...body, id: '', email: '' });
      expect(strip(known.body)).toEqual(strip(unknown.body));

      const told = await smtp.next(existing.user.email);
      expect(told.text).toContain('has an account already');
      expect(told.text).not.toMatch(/token=/);
      await smtp.next(fresh);
      // Still listed as pending for the inviter, as any invitation not accepted yet.
      const listed = await call('GET', '/api/invitations', { authorization: staff.authorization });
      expect((listed.body.items as Json[]).map((i) => i.email).sort()).toEqual([existing.user.email, fresh].sort());
      expect((await server.auth.users.byEmail(existing.user.email))?.roles).toEqual(['patient']);
    });

    it('shows a sender only their own invitations, a manage user all, and revokes only those', async () => {
      const doctor = await userWithToken(server, ['doctor']);
      const staff = await userWithToken(server, ['staff']);
      const admin = await userWithToken(server, ['admin']);
      const byDoctor = await invite(doctor.authorization, freshEmail(), ['patient']);
      const byStaff = await invite(staff.authorization, freshEmail(), ['patient']);
      await smtp.next(byDoctor.body.email as string);
      const staffMail = await smtp.next(byStaff.body.email as string);

      const doctorSees = await call('GET', '/api/invitations', { authorization: doctor.authorization });
      expect((doctorSees.body.items as Json[]).map((i) => i.id)).toEqual([byDoctor.body.id]);
      const adminSees = await call('GET', '/api/invitations', { authorization: admin.authorization });
      const ids = (adminSees.body.items as Json[]).map((i) => i.id);
      expect(ids).toContain(byDoctor.body.id);
      expect(ids).toContain(byStaff.body.id);

      // Another's invitation answers as one that does not exist.
      const notTheirs = await call('DELETE', `/api/invitations/${byStaff.body.id}`, {
        authorization: doctor.authorization,
      });
      expect(notTheirs.status).toBe(404);
      expect(notTheirs.body.code).toBe('NOT_FOUND');
      expect(
        (await call('DELETE', `/api/invitations/${byStaff.body.id}`, { authorization: admin.authorization })).status,
      ).toBe(204);
      expect(
        (await call('DELETE', `/api/invitations/${byDoctor.body.id}`, { authorization: doctor.authorization })).status,
      ).toBe(204);
      expect(
        (await call('DELETE', `/api/invitations/${byDoctor.body.id}`, { authorization: doctor.authorization })).status,
      ).toBe(404);
      // A revoked invitation's link no longer works.
      const revoked = await accept(tokenOf(linkTo(staffMail, '/accept-invitation')));
      expect(revoked.body.code).toBe('INVITATION_INVALID');
      expect(await server.auth.users.byEmail(byStaff.body.email as string)).toBeUndefined();
    });

    it('limits invitations to one email address to 3 an hour, whoever sends them', async () => {
      const staff = await userWithToken(server, ['staff']);
      const admin = await userWithToken(server, ['admin']);
      const email = freshEmail();
      for (const by of [staff, admin, staff])
        expect((await invite(by.authorization, email, ['patient'])).status).toBe(201);
      const limited = await invite(admin.authorization, email, ['patient']);
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe('RATE_LIMITED');
      expect(limited.body.detail).toBe(
        'Too many invitations from your account, or to this email address. Try again in 50 minutes.',
      );
      expect((await invite(admin.authorization, freshEmail(), ['patient'])).status).toBe(201);
    });

    it('refuses an invitation whose sender may no longer invite into its roles', async () => {
      const doctor = await userWithToken(server, ['doctor']);
      const email = freshEmail();
      expect((await invite(doctor.authorization, email, ['patient'])).status).toBe(201);
      const token = tokenOf(linkTo(await smtp.next(email), '/accept-invitation'));
      await server.auth.users.setRoles(doctor.user.email, ['patient']);
      expect((await accept(token)).body.code).toBe('INVITATION_INVALID');
      await server.auth.users.setRoles(doctor.user.email, ['doctor']);
      expect((await accept(token)).status).toBe(200);
    });

    it('refuses an invitation whose sender was deactivated, on lookup and accept, and takes it again on reactivation', async () => {
      const doctor = await userWithToken(server, ['doctor']);
      const email = freshEmail();
      expect((await invite(doctor.authorization, email, ['patient'])).status).toBe(201);
      const token = tokenOf(linkTo(await smtp.next(email), '/accept-invitation'));
      await server.auth.setDeactivated(doctor.user.id, new Date(clock.now).toISOString());
      const lookup = await call('POST', '/api/invitations/lookup', { origin: ORIGIN, body: { token } });
      expect(lookup.body.code).toBe('INVITATION_INVALID');
      expect((await accept(token)).body.code).toBe('INVITATION_INVALID');
      expect(await server.auth.users.byEmail(email)).toBeUndefined();
      await server.auth.setDeactivated(doctor.user.id, null);
      expect((await accept(token)).status).toBe(200);
    });

    it('refuses an invitation INVITATION_DAYS after it was sent, and one whose email got an account meanwhile', async () => {
      const staff = await userWithToken(server, ['staff']);
      const started = clock.now;
      const lateEmail = freshEmail();
      try {
        await invite(staff.authorization, lateEmail, ['patient']);
        const late = tokenOf(linkTo(await smtp.next(lateEmail), '/accept-invitation'));
        clock.now = started + 3 * 24 * HOUR;
        expect((await accept(late)).body.code).toBe('INVITATION_INVALID');
        expect((await call('GET', '/api/invitations', { authorization: staff.authorization })).body.items).toEqual([]);
      } finally {
        clock.now = started;
      }

      const email = freshEmail();
      await invite(staff.authorization, email, ['staff']);
      const token = tokenOf(linkTo(await smtp.next(email), '/accept-invitation'));
      await signUp({ email, name: 'Self' });
      expect((await verify(tokenOf(linkTo(await smtp.next(email), '/verify-email')))).status).toBe(200);
      // The invitation cannot take over, nor add roles to, the account made meanwhile.
      expect((await accept(token, 'Taker', 'a takeover password!')).body.code).toBe('INVITATION_INVALID');
      expect((await server.auth.users.byEmail(email))?.roles).toEqual(['patient']);
    });
  });
});

describe('the links of joining in the log', () => {
  it('shows a confirmation or invitation link opened as token=***, never its secret', async () => {
    const lines: string[] = [];
    const temp = tempDir();
    const server = await createServer({
      model: modelOf(SPEC),
      dbPath: temp.dbPath,
      logger: pino({ level: 'info' }, { write: (line: string) => lines.push(line) }),
    });
    try {
      const verify = `npv_${'v'.repeat(43)}`;
      const invitation = `npi_${'i'.repeat(43)}`;
      await server.app.inject({ method: 'GET', url: `/verify-email?token=${verify}` });
      await server.app.inject({ method: 'GET', url: `/accept-invitation?token=${invitation}` });
      const log = lines.join('');
      expect(log).toContain('/verify-email?token=***');
      expect(log).toContain('/accept-invitation?token=***');
      expect(log).not.toContain(verify);
      expect(log).not.toContain(invitation);
    } finally {
      await server.close();
      temp.remove();
    }
  });
});

describe('joining an app whose point 6 declares no roles', () => {
  it('lets any signed-in user invite, with no roles to give, and nobody sign up', async () => {
    const temp = tempDir();
    const settings = mailSettingsFromEnv({ SMTP_URL: smtp.url, MAIL_FROM: 'App <app@example.org>', APP_URL });
    if (!settings.smtp || !settings.from) throw new Error('the SMTP settings did not parse');
    const server = await createServer({
      model: blankModel(),
      dbPath: temp.dbPath,
      logger: false,
      mail: { mailer: smtpMailer(settings.smtp, settings.from), appUrl: () => APP_URL },
    });
    const inject = async (method: string, url: string, body: unknown, authorization?: string) => {
      const answer = await server.app.inject({
        method: method as 'POST',
        url,
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        payload: JSON.stringify(body),
      });
      return { status: answer.statusCode, body: answer.json() as Json };
    };
    try {
      const { authorization } = await userWithToken(server, []);
      const signUp = await inject('POST', '/api/auth/sign-up', { email: freshEmail(), name: 'X' });
      expect(signUp.status).toBe(403);
      expect(signUp.body.detail).toBe('Nobody may sign up to this app: an account comes by invitation.');

      const email = freshEmail();
      expect((await inject('POST', '/api/invitations', { email, roles: [] }, authorization)).status).toBe(201);
      const token = linkTo(await smtp.next(email), '/accept-invitation').searchParams.get('token');
      const done = await inject('POST', '/api/invitations/accept', { token, name: 'No Role', password: PASSWORD });
      expect(done.status).toBe(200);
      expect(done.body.user).toMatchObject({ email, name: 'No Role', roles: [] });
    } finally {
      await server.close();
      temp.remove();
    }
  });
});
