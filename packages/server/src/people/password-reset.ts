import type { RuntimeSettings } from '@ninepoint/spec';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { type ProblemCatalogue, ProblemError } from '../compile/problems.ts';
import { sameOrigin } from '../http/same-origin.ts';
import type { Mailer } from '../mail/mailer.ts';
import { AccountError, checkEmail, recordAccountEvent } from './accounts.ts';
import { afterAnswer, limitPerHour } from './after-answer.ts';
import type { AuthStore } from './auth-store.ts';
import { isDemoEmail } from './dev-mode.ts';
import { hashPassword, MIN_PASSWORD_LENGTH, passwordProblem } from './passwords.ts';
import {
  PASSWORD_RESET_ACCEPTED,
  PASSWORD_RESET_CONFIRM_SCHEMA,
  PASSWORD_RESET_LIMITS,
  PASSWORD_RESET_SCHEMA,
} from './people-schemas.ts';
import { looksLikeSecret, newSecret, secretHash } from './secrets.ts';
import type { UserAccount } from './users-store.ts';

/** The calls of a password reset. */
export const PASSWORD_RESET_ROUTES = {
  /** `POST { email }`: sends a reset link to the account with that email, if there is one. */
  request: '/api/auth/password-reset',
  /** `POST { token, password }`: sets the password of the link's account. */
  confirm: '/api/auth/password-reset/confirm',
  /** The web app's page a link opens: `/reset-password?token=npr_…`. */
  page: '/reset-password',
} as const;

// The limits live with the wire format, which the OpenAPI document describes too.
export { PASSWORD_RESET_LIMITS };

/** How the app sends mail and where its links point; absent when email is not configured. */
export interface MailOptions {
  mailer: Mailer;
  /** The app's origin as people open it (`APP_URL`, or the dev server's own address). */
  appUrl: () => string;
}

export interface PasswordResetOptions {
  auth: AuthStore;
  settings: Readonly<RuntimeSettings>;
  catalogue: ProblemCatalogue;
  /** The product's name, for the mail's subject. */
  productName: string;
  /** Null: mail is not configured; asking answers the same and sends nothing. */
  mail: MailOptions | null;
  now: () => number;
}

/**
 * Password reset by email:
 *
 * - `POST /api/auth/password-reset` answers 202 with the same body whether or not an account has
 *   the email, and answers before the account is even looked up: the link is made and mailed
 *   afterwards, so neither the answer nor its timing tells whether the account exists. Asking is
 *   limited per email address and per client address (`PASSWORD_RESET_LIMITS`), counted the same
 *   way for every email.
 * - The link carries a 256-bit secret (`npr_…`); only its SHA-256 is stored. It works once, for
 *   `PASSWORD_RESET_MINUTES`.
 * - `POST /api/auth/password-reset/confirm` checks the link (unknown, used or expired:
 *   RESET_LINK_INVALID), the password policy of `ninepoint users add`, sets the new argon2id hash,
 *   and ends every session of the user and every other reset link of theirs. API tokens are kept:
 *   they are made on the server's terminal, not with the password.
 */
export function registerPasswordReset(app: FastifyInstance, options: PasswordResetOptions): void {
  const { auth, settings, catalogue, mail, now } = options;
  const lifetimeMs = settings.PASSWORD_RESET_MINUTES * 60_000;
  // Links are made and mailed after their answer; closing the app waits for them.
  const later = afterAnswer(app);

  const sendLink = async (email: string, log: FastifyBaseLogger) => {
    const at = now();
    await auth.resets.prune(at);
    if (mail === null) return; // Said once at start: email is not configured.
    // Demo users of dev mode sign in only through sign-in-as: a password set by mail would let
    // them in under `serve` on the same database.
    // A deactivated account gets nothing either: the answer was the same 202.
    const user = isDemoEmail(email) ? undefined : await auth.users.activeByEmail(email);
    if (!user) {
      log.info('password reset asked for an email no active account has');
      return;
    }
    const secret = newSecret('reset');
    await auth.resets.create({ hash: secretHash(secret), userId: user.id, now: at, expiresAt: at + lifetimeMs });
    await mail.mailer.send(resetMail(user, `${mail.appUrl()}${PASSWORD_RESET_ROUTES.page}?token=${secret}`, options));
    log.info({ user: user.id }, 'password reset link sent');
  };

  app.post(PASSWORD_RESET_ROUTES.request, { schema: { body: PASSWORD_RESET_SCHEMA } }, async (request, reply) => {
    refuseOtherSites(request);
    let email: string;
    try {
      email = checkEmail((request.body as { email: string }).email);
    } catch (error) {
      if (error instanceof AccountError)
        throw new ProblemError('INVALID_PAYLOAD', { detail: 'email must be an email address' });
      throw error;
    }
    // Counted for every email alike, known or not: a refusal says nothing about an account.
    await limitPerHour(
      auth,
      request,
      reply,
      now(),
      [
        { key: `reset:address:${request.ip}`, limit: PASSWORD_RESET_LIMITS.perAddress },
        { key: `reset:email:${email}`, limit: PASSWORD_RESET_LIMITS.perEmail },
      ],
      'reset:',
      'Too many password reset requests for this email address or from your address.',
    );
    // After the answer has gone: the account is looked up, and the link made and mailed, only then.
    later(request.log, 'sending a password reset link failed', () => sendLink(email, request.log));
    return reply.code(202).send(PASSWORD_RESET_ACCEPTED);
  });

  app.post(
    PASSWORD_RESET_ROUTES.confirm,
    { schema: { body: PASSWORD_RESET_CONFIRM_SCHEMA } },
    async (request, reply) => {
      refuseOtherSites(request);
      const { token, password } = request.body as { token: string; password: string };
      const hash = looksLikeSecret('reset', token) ? secretHash(token) : null;
      const user = hash === null ? undefined : await auth.resets.user(hash, now());
      if (hash === null || !user) throw new ProblemError('RESET_LINK_INVALID');
      if (passwordProblem(password) !== null) {
        const params = { field: 'password', min: MIN_PASSWORD_LENGTH };
        throw new ProblemError(
          'VALIDATION_FAILED',
          {},
          { errors: [{ field: 'password', code: 'TOO_SHORT', message: catalogue.message('TOO_SHORT', params) }] },
        );
      }
      const passwordHash = await hashPassword(password);
      // Used in one statement: of two requests with the same link, only one sets a password.
      if ((await auth.resets.use(hash, now())) !== user.id) throw new ProblemError('RESET_LINK_INVALID');
      await auth.setPasswordOf(user.id, passwordHash);
      await recordAccountEvent(auth, user.id, { kind: 'password-reset', how: 'email' }, user.id, now());
      request.log.info({ user: user.id }, 'password reset: sessions ended');
      return reply.send({ email: user.email });
    },
  );
}

/** A reset call from another site's page is refused, as sign-in's is. */
function refuseOtherSites(request: FastifyRequest): void {
  if (request.headers.origin !== undefined && !sameOrigin(request)) {
    throw new ProblemError('FORBIDDEN', {}, { detail: 'A password reset must come from this app’s own pages.' });
  }
}

/** The mail with the link: what it is for, how long it works, and what to do if it was not you. */
export function resetMail(
  user: UserAccount,
  link: string,
  options: Pick<PasswordResetOptions, 'productName' | 'settings'>,
): { to: string; subject: string; text: string } {
  const minutes = options.settings.PASSWORD_RESET_MINUTES;
  const lifetime = minutes % 60 === 0 ? `${minutes / 60} hour${minutes === 60 ? '' : 's'}` : `${minutes} minutes`;
  return {
    to: user.email,
    subject: `Reset your password for ${options.productName}`,
    text: [
      `Hello ${user.name},`,
      '',
      `Someone asked to reset the password of your account at ${options.productName}. To choose a new password, open this link within ${lifetime}:`,
      '',
      link,
      '',
      'The link works once. If you did not ask for it, ignore this mail: your password stays as it is.',
      '',
    ].join('\n'),
  };
}
