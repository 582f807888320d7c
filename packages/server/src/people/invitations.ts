import type { RuntimeSettings, SpecLine } from '@ninepoint/spec';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type ProblemCatalogue, ProblemError } from '../compile/problems.ts';
import { sameOrigin } from '../http/same-origin.ts';
import { UUID, uuidv7 } from '../store/uuidv7.ts';
import { AccountError, checkEmail, createJoinedAccount } from './accounts.ts';
import { afterAnswer, limitPerHour } from './after-answer.ts';
import type { SignIn } from './auth.ts';
import type { AuthStore } from './auth-store.ts';
import { isDemoEmail } from './dev-mode.ts';
import type { JoiningStore } from './joining-store.ts';
import type { MailOptions } from './password-reset.ts';
import { hashPassword, MIN_PASSWORD_LENGTH, passwordProblem } from './passwords.ts';
import {
  ACCEPT_INVITATION_SCHEMA,
  INVITATION_LIMITS,
  INVITATION_LOOKUP_SCHEMA,
  INVITE_SCHEMA,
} from './people-schemas.ts';
import { looksLikeSecret, newSecret, secretHash } from './secrets.ts';
import type { UserAccount } from './users-store.ts';

/** The calls and the page of invitations. */
export const INVITATION_ROUTES = {
  /** `POST { email, roles }` invites; `GET` lists the pending ones the caller may see. */
  invitations: '/api/invitations',
  /** `DELETE`: revokes a pending invitation. */
  invitation: '/api/invitations/:id',
  /** `POST { token, name, password }`: creates the invitee's account and signs it in. */
  accept: '/api/invitations/accept',
  /** `POST { token }`: what the invitation is, for its page, without using it. */
  lookup: '/api/invitations/lookup',
  /** The web app's page a link opens: `/accept-invitation?token=npi_…`. */
  page: '/accept-invitation',
} as const;

/** What a user may do with people's accounts (`peopleAccess` of the model, for their roles). */
export interface PeopleAccessOf {
  mayInvite: boolean;
  inviteRoles: string[];
  manage: boolean;
}

export interface InvitationOptions {
  auth: AuthStore;
  joining: JoiningStore;
  settings: Readonly<RuntimeSettings>;
  catalogue: ProblemCatalogue;
  productName: string;
  /** What a user holding these roles may do with people's accounts. */
  peopleAccess: (roles: readonly string[]) => PeopleAccessOf;
  /** The spec line of these roles' row in point 6, which a refusal names (see `roleLines`). */
  roleLine?: (roles: readonly string[]) => SpecLine | null;
  /** The spec's roles: an invitation gives only these. */
  knownRoles: readonly string[];
  /** Null: mail is not configured; an invitation is refused, as nobody could receive it. */
  mail: MailOptions | null;
  signIn: SignIn;
  now: () => number;
}

/**
 * Invitations by email, for users whose `people` grant of point 6 allows them:
 *
 * - `POST /api/invitations` by a user who may invite into every role asked (FORBIDDEN otherwise,
 *   naming the roles) stores the invitation (its link's secret `npi_…` kept as SHA-256, working
 *   once for `INVITATION_DAYS`) and answers 201 with it, before the email is looked up: what it
 *   answers, and when, is the same whether or not the email has an account. Afterwards the
 *   invitee gets the link; an email that has an account gets a mail saying so, with no link
 *   (accepting is for a new account only). An inviter who may not list accounts thus learns
 *   nothing about them.
 * - `GET /api/invitations`: the pending ones the caller sent, or every one for a `manage` user.
 * - `DELETE /api/invitations/:id`: revokes one of those; others answer NOT_FOUND.
 * - `POST /api/invitations/accept`: uses the link once, creates the account with the invitation's
 *   roles (`createJoinedAccount`) and signs it in, if its sender may still invite into them.
 */
export function registerInvitations(app: FastifyInstance, options: InvitationOptions): void {
  const { auth, joining, settings, catalogue, mail, now } = options;
  const lifetimeMs = settings.INVITATION_DAYS * 86_400_000;
  const later = afterAnswer(app);

  /** The caller and what they may do with people's accounts; refused when they may not invite. */
  const inviter = (request: FastifyRequest): { user: UserAccount; manage: boolean; inviteRoles: string[] } => {
    const user = request.actor.user;
    if (user === null) throw new ProblemError('NOT_SIGNED_IN');
    const access = options.peopleAccess(user.roles);
    if (!access.mayInvite && !access.manage) {
      throw new ProblemError(
        'FORBIDDEN',
        {},
        { detail: 'Your roles may not invite people.', spec: options.roleLine?.(user.roles) },
      );
    }
    return { user, manage: access.manage, inviteRoles: access.inviteRoles };
  };

  app.post(INVITATION_ROUTES.invitations, { schema: { body: INVITE_SCHEMA } }, async (request, reply) => {
    const { user, inviteRoles } = inviter(request);
    const body = request.body as { email: string; roles: string[] };
    const roles = [...new Set(body.roles)];
    const unknown = roles.filter((r) => !options.knownRoles.includes(r));
    if (unknown.length > 0) {
      throw new ProblemError('INVALID_PAYLOAD', {
        detail: `roles must be roles of the spec: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not`,
      });
    }
    if (roles.length === 0 && options.knownRoles.length > 0) {
      throw new ProblemError('INVALID_PAYLOAD', { detail: 'roles must name at least one role' });
    }
    const refused = roles.filter((r) => !inviteRoles.includes(r));
    if (refused.length > 0) {
      throw new ProblemError(
        'FORBIDDEN',
        {},
        {
          detail: `Your roles may not invite people as ${refused.join(', ')}.${inviteRoles.length > 0 ? ` You may invite as ${inviteRoles.join(', ')}.` : ''}`,
          spec: options.roleLine?.(user.roles),
        },
      );
    }
    let email: string;
    try {
      email = checkEmail(body.email);
    } catch (error) {
      if (error instanceof AccountError)
        throw new ProblemError('INVALID_PAYLOAD', { detail: 'email must be an email address' });
      throw error;
    }
    if (mail === null) {
      throw new ProblemError(
        'FORBIDDEN',
        {},
        { detail: 'Email is not configured on this server: nobody could receive an invitation.' },
      );
    }
    const at = now();
    await limitPerHour(
      auth,
      request,
      reply,
      at,
      [
        { key: `invite:user:${user.id}`, limit: INVITATION_LIMITS.perUser },
        // Counted for every email alike, with an account or not: a refusal says nothing about one.
        { key: `invite:email:${email}`, limit: INVITATION_LIMITS.perEmail },
      ],
      'invite:',
      'Too many invitations from your account, or to this email address.',
    );
    await joining.pruneInvitations(at);
    const secret = newSecret('invitation');
    const id = uuidv7(at);
    await joining.createInvitation({
      id,
      hash: secretHash(secret),
      email,
      roles,
      invitedBy: user.id,
      now: at,
      expiresAt: at + lifetimeMs,
    });
    const link = `${mail.appUrl()}${INVITATION_ROUTES.page}?token=${secret}`;
    later(request.log, 'sending an invitation failed', async () => {
      if (isDemoEmail(email)) return;
      const existing = await auth.users.byEmail(email);
      const sent = existing
        ? invitedWithAccountMail(existing.name, email, user.name, mail.appUrl(), options.productName)
        : invitationMail(email, roles, user.name, link, options.productName, settings.INVITATION_DAYS);
      await mail.mailer.send(sent);
      request.log.info({ invitation: id }, 'invitation sent');
    });
    return reply.code(201).send(await joining.invitation(id, at));
  });

  app.get(INVITATION_ROUTES.invitations, async (request, reply) => {
    const { user, manage } = inviter(request);
    return reply.send({ items: await joining.pendingInvitations(manage ? null : user.id, now()) });
  });

  app.delete(INVITATION_ROUTES.invitation, async (request, reply) => {
    const { user, manage } = inviter(request);
    const id = (request.params as { id: string }).id.toLowerCase();
    // Another's invitation answers as one that does not exist: a sender sees only their own.
    if (!UUID.test(id) || !(await joining.revokeInvitation(id, manage ? null : user.id, now()))) {
      throw new ProblemError('NOT_FOUND', { entity: 'invitation', id });
    }
    request.log.info({ invitation: id }, 'invitation revoked');
    return reply.code(204).send();
  });

  /**
   * The pending invitation of a link, if it may still be accepted: its email has no account (one
   * that had was mailed no link; one made since is not taken over either), and its sender is
   * active and may still invite into its roles (an invitation gives no more than its sender may
   * still give).
   */
  const usable = async (token: string) => {
    const hash = looksLikeSecret('invitation', token) ? secretHash(token) : null;
    const invitation = hash === null ? undefined : await joining.invitationByToken(hash, now());
    if (hash === null || !invitation || (await auth.users.byEmail(invitation.email))) {
      throw new ProblemError('INVITATION_INVALID');
    }
    // A deactivated sender gives nothing: their invitations wait, unusable, until they are back.
    const sender = await auth.users.activeById(invitation.invitedBy.id);
    const grant = sender ? options.peopleAccess(sender.roles) : null;
    if (!grant || !invitation.roles.every((r) => grant.inviteRoles.includes(r) || !options.knownRoles.includes(r))) {
      throw new ProblemError('INVITATION_INVALID');
    }
    return { hash, invitation };
  };

  app.post(INVITATION_ROUTES.lookup, { schema: { body: INVITATION_LOOKUP_SCHEMA } }, async (request, reply) => {
    const { invitation } = await usable((request.body as { token: string }).token);
    return reply.send({
      email: invitation.email,
      roles: invitation.roles.filter((r) => options.knownRoles.includes(r)),
      invitedBy: invitation.invitedBy.name,
      expiresAt: invitation.expiresAt,
    });
  });

  app.post(INVITATION_ROUTES.accept, { schema: { body: ACCEPT_INVITATION_SCHEMA } }, async (request, reply) => {
    if (request.headers.origin !== undefined && !sameOrigin(request)) {
      throw new ProblemError(
        'FORBIDDEN',
        {},
        { detail: 'Accepting an invitation must come from this app’s own pages.' },
      );
    }
    const { token, name, password } = request.body as { token: string; name: string; password: string };
    const { hash, invitation } = await usable(token);
    if (name.trim() === '') throw new ProblemError('INVALID_PAYLOAD', { detail: 'name must not be blank' });
    if (passwordProblem(password) !== null) {
      const params = { field: 'password', min: MIN_PASSWORD_LENGTH };
      throw new ProblemError(
        'VALIDATION_FAILED',
        {},
        { errors: [{ field: 'password', code: 'TOO_SHORT', message: catalogue.message('TOO_SHORT', params) }] },
      );
    }
    const passwordHash = await hashPassword(password);
    // Used in one statement: of two requests with the same link, only one makes an account.
    if ((await joining.acceptInvitation(hash, now())) !== invitation.id) throw new ProblemError('INVITATION_INVALID');
    const user = await createJoinedAccount(
      auth,
      {
        email: invitation.email,
        name,
        roles: invitation.roles.filter((r) => options.knownRoles.includes(r)),
        passwordHash,
      },
      { via: 'invitation', invitationId: invitation.id, invitedBy: invitation.invitedBy.id },
    );
    if (!user) throw new ProblemError('INVITATION_INVALID');
    await joining.endSignUpsOf(user.email);
    request.log.info({ user: user.id, invitation: invitation.id }, 'invitation accepted');
    await options.signIn(request, reply, user);
    return reply.send({ user });
  });
}

/** The invitation: who invites, as what, the link and how long it works. */
export function invitationMail(
  email: string,
  roles: readonly string[],
  inviterName: string,
  link: string,
  productName: string,
  days: number,
): { to: string; subject: string; text: string } {
  const as = roles.length > 0 ? ` as ${roles.join(' and ')}` : '';
  return {
    to: email,
    subject: `${inviterName} invites you to ${productName}`,
    text: [
      'Hello,',
      '',
      `${inviterName} invites you to join ${productName}${as}. To accept, open this link within ${days} day${days === 1 ? '' : 's'}, and choose your name and a password:`,
      '',
      link,
      '',
      'The link works once. If you do not want to join, ignore this mail.',
      '',
    ].join('\n'),
  };
}

/** What someone who has an account gets when invited: no link, their account stays as it is. */
export function invitedWithAccountMail(
  name: string,
  email: string,
  inviterName: string,
  appUrl: string,
  productName: string,
): { to: string; subject: string; text: string } {
  return {
    to: email,
    subject: `${inviterName} invites you to ${productName}`,
    text: [
      `Hello ${name},`,
      '',
      `${inviterName} invited this email address to ${productName}, where it has an account already. Nothing was changed.`,
      '',
      `Sign in at ${appUrl}/sign-in. If your account needs other roles, ask someone who manages people's accounts.`,
      '',
    ].join('\n'),
  };
}
