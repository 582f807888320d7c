import type { RuntimeSettings } from '@ninepoint/spec';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type ProblemCatalogue, ProblemError } from '../compile/problems.ts';
import { sameOrigin } from '../http/same-origin.ts';
import { AccountError, checkEmail, createJoinedAccount } from './accounts.ts';
import { afterAnswer, limitPerHour } from './after-answer.ts';
import type { SignIn } from './auth.ts';
import type { AuthStore } from './auth-store.ts';
import { isDemoEmail } from './dev-mode.ts';
import type { JoiningStore } from './joining-store.ts';
import type { MailOptions } from './password-reset.ts';
import { hashPassword, MIN_PASSWORD_LENGTH, passwordProblem } from './passwords.ts';
import { SIGN_UP_ACCEPTED, SIGN_UP_LIMITS, SIGN_UP_SCHEMA, VERIFY_EMAIL_SCHEMA } from './people-schemas.ts';
import { looksLikeSecret, newSecret, secretHash } from './secrets.ts';

/** The calls and the page of self sign-up. */
export const SIGN_UP_ROUTES = {
  /** `POST { email, name, role? }`: mails a link to confirm the email. */
  signUp: '/api/auth/sign-up',
  /** `POST { token, password }`: creates the account of the link's sign-up, with that password, and signs it in. */
  verify: '/api/auth/verify-email',
  /** The web app's page a link opens: `/verify-email?token=npv_…`. */
  page: '/verify-email',
} as const;

/** A role people may sign up to themselves, and the email domains it accepts ([] = any). */
export interface SignUpRole {
  role: string;
  domains: string[];
}

export interface SignUpOptions {
  auth: AuthStore;
  joining: JoiningStore;
  settings: Readonly<RuntimeSettings>;
  catalogue: ProblemCatalogue;
  productName: string;
  /** Point 6's roles whose `joins` is `sign up` (`signUpRoles` of the model). */
  roles: readonly SignUpRole[];
  /** Null: mail is not configured; signing up answers the same and nothing is made. */
  mail: MailOptions | null;
  signIn: SignIn;
  now: () => number;
}

/**
 * Self sign-up with email verification, for the roles point 6 opens to it:
 *
 * - `POST /api/auth/sign-up` checks what can be checked without knowing whether the email has an
 *   account (the role, the email's domain), counts the call against hourly limits per email and
 *   per client address, and answers 202 with the same body either way. Afterwards, a new email
 *   gets a link (`npv_…`, 256 bits, only its SHA-256 stored with the sign-up); an email that has
 *   an account gets a mail saying so instead. Nothing else is made: no account exists until the
 *   link is followed.
 * - `POST /api/auth/verify-email` uses the link once, before `EMAIL_VERIFICATION_HOURS` have
 *   passed, with the password the person chooses there, creates the account
 *   (`createJoinedAccount`) and signs it in. The password is chosen by whoever holds the mail, not
 *   by whoever typed the address: otherwise someone could sign up another person's address with a
 *   password of their own and, once its owner confirms it, sign in to the owner's account.
 */
export function registerSignUp(app: FastifyInstance, options: SignUpOptions): void {
  const { auth, joining, settings, catalogue, roles, mail, now } = options;
  const lifetimeMs = settings.EMAIL_VERIFICATION_HOURS * 3_600_000;
  const later = afterAnswer(app);

  const send = async (input: { email: string; name: string; role: string }) => {
    const at = now();
    await joining.pruneSignUps(at);
    if (mail === null) return; // Said once at start: email is not configured.
    // Demo users of dev mode sign in only through sign-in-as; their addresses get no mail.
    if (isDemoEmail(input.email)) return;
    const existing = await auth.users.byEmail(input.email);
    if (existing) {
      await mail.mailer.send(existingAccountMail(existing.name, input.email, mail.appUrl(), options.productName));
      return;
    }
    const secret = newSecret('verify');
    await joining.createSignUp({
      hash: secretHash(secret),
      email: input.email,
      name: input.name,
      role: input.role,
      now: at,
      expiresAt: at + lifetimeMs,
    });
    const link = `${mail.appUrl()}${SIGN_UP_ROUTES.page}?token=${secret}`;
    await mail.mailer.send(verifyMail(input, link, options.productName, settings.EMAIL_VERIFICATION_HOURS));
  };

  app.post(SIGN_UP_ROUTES.signUp, { schema: { body: SIGN_UP_SCHEMA } }, async (request, reply) => {
    refuseOtherSites(request);
    const body = request.body as { email: string; name: string; role?: string };
    const role = chosenRole(roles, body.role);
    let email: string;
    try {
      email = checkEmail(body.email);
    } catch (error) {
      if (error instanceof AccountError)
        throw new ProblemError('INVALID_PAYLOAD', { detail: 'email must be an email address' });
      throw error;
    }
    const domain = email.slice(email.lastIndexOf('@') + 1);
    if (role.domains.length > 0 && !role.domains.includes(domain)) {
      throw new ProblemError('SIGN_UP_DOMAIN', { values: role.domains.join(', '), field: 'email' });
    }
    const name = body.name.trim();
    if (name === '') throw new ProblemError('INVALID_PAYLOAD', { detail: 'name must not be blank' });
    // Counted for every email alike, with an account or not: a refusal says nothing about one.
    await limitPerHour(
      auth,
      request,
      reply,
      now(),
      [
        { key: `sign-up:address:${request.ip}`, limit: SIGN_UP_LIMITS.perAddress },
        { key: `sign-up:email:${email}`, limit: SIGN_UP_LIMITS.perEmail },
      ],
      'sign-up:',
      'Too many sign-ups for this email address or from your address.',
    );
    const input = { email, name, role: role.role };
    later(request.log, 'sending a sign-up mail failed', () => send(input));
    return reply.code(202).send(SIGN_UP_ACCEPTED);
  });

  app.post(SIGN_UP_ROUTES.verify, { schema: { body: VERIFY_EMAIL_SCHEMA } }, async (request, reply) => {
    refuseOtherSites(request);
    const { token, password } = request.body as { token: string; password: string };
    // The password is checked before the link is used: a short one leaves the link working.
    if (passwordProblem(password) !== null) {
      const params = { field: 'password', min: MIN_PASSWORD_LENGTH };
      throw new ProblemError(
        'VALIDATION_FAILED',
        {},
        { errors: [{ field: 'password', code: 'TOO_SHORT', message: catalogue.message('TOO_SHORT', params) }] },
      );
    }
    const signUp = looksLikeSecret('verify', token) ? await joining.useSignUp(secretHash(token), now()) : undefined;
    // A role closed to sign-up since the mail was sent is not given.
    if (!signUp || !roles.some((r) => r.role === signUp.role)) throw new ProblemError('VERIFY_LINK_INVALID');
    const user = await createJoinedAccount(
      auth,
      { email: signUp.email, name: signUp.name, roles: [signUp.role], passwordHash: await hashPassword(password) },
      { via: 'sign-up' },
    );
    await joining.endSignUpsOf(signUp.email);
    // Its owner made an account meanwhile (another link, an invitation): this link is spent.
    if (!user) throw new ProblemError('VERIFY_LINK_INVALID');
    request.log.info({ user: user.id }, 'signed up');
    await options.signIn(request, reply, user);
    return reply.send({ user });
  });
}

/** The role a sign-up asks for: the one open role when none is named. */
function chosenRole(roles: readonly SignUpRole[], asked: string | undefined): SignUpRole {
  const open = roles.map((r) => r.role).join(', ');
  if (roles.length === 0) {
    throw new ProblemError(
      'FORBIDDEN',
      {},
      { detail: 'Nobody may sign up to this app: an account comes by invitation.' },
    );
  }
  if (asked === undefined) {
    const [only] = roles;
    if (roles.length === 1 && only) return only;
    throw new ProblemError('INVALID_PAYLOAD', { detail: `role is required: one of ${open}` });
  }
  const found = roles.find((r) => r.role === asked);
  if (!found) {
    throw new ProblemError('FORBIDDEN', {}, { detail: `Nobody may sign up as ${asked}. Sign up as ${open}.` });
  }
  return found;
}

/** A sign-up call from another site's page is refused, as sign-in's is. */
function refuseOtherSites(request: FastifyRequest): void {
  if (request.headers.origin !== undefined && !sameOrigin(request)) {
    throw new ProblemError('FORBIDDEN', {}, { detail: 'Signing up must come from this app’s own pages.' });
  }
}

/** The mail with the link that confirms the email and creates the account. */
export function verifyMail(
  input: { email: string; name: string },
  link: string,
  productName: string,
  hours: number,
): { to: string; subject: string; text: string } {
  const lifetime =
    hours % 24 === 0 ? `${hours / 24} day${hours === 24 ? '' : 's'}` : `${hours} hour${hours === 1 ? '' : 's'}`;
  return {
    to: input.email,
    subject: `Confirm your email for ${productName}`,
    text: [
      `Hello ${input.name},`,
      '',
      `Someone signed up to ${productName} with this email address. To confirm it, choose your password and finish signing up, open this link within ${lifetime}:`,
      '',
      link,
      '',
      'The link works once. If you did not sign up, ignore this mail: no account is made.',
      '',
    ].join('\n'),
  };
}

/** What someone who has an account gets when their email is signed up again: no link. */
export function existingAccountMail(
  name: string,
  email: string,
  appUrl: string,
  productName: string,
): { to: string; subject: string; text: string } {
  return {
    to: email,
    subject: `You already have an account at ${productName}`,
    text: [
      `Hello ${name},`,
      '',
      `Someone tried to sign up to ${productName} with this email address, which has an account already. Nothing was changed.`,
      '',
      `To sign in, open ${appUrl}/sign-in. If you forgot your password, choose "Forgot your password?" there.`,
      '',
      'If it was not you, ignore this mail.',
      '',
    ].join('\n'),
  };
}
