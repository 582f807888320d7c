import { INVITATION_LIMITS, PASSWORD_RESET_LIMITS, SIGN_UP_LIMITS } from '../people/people-schemas.ts';

/**
 * The calls every app serves besides the spec's own: they exist even for the blank spec, and a
 * spec call with the same method and path is shadowed by them.
 */
export const SYSTEM_ROUTES = [
  {
    method: 'GET',
    path: '/api/health',
    operationId: 'getHealth',
    summary: 'Whether the server and its database answer',
  },
  {
    method: 'GET',
    path: '/api/spec',
    operationId: 'getSpec',
    summary: 'The checked model of the spec, as JSON',
  },
  {
    method: 'GET',
    path: '/api/openapi.json',
    operationId: 'getOpenApi',
    summary: 'This OpenAPI document',
  },
  {
    method: 'GET',
    path: '/api/docs',
    operationId: 'getApiDocs',
    summary: 'The API reference page: this document rendered by Swagger UI, as HTML',
  },
  {
    method: 'POST',
    path: '/api/auth/sign-in',
    operationId: 'signIn',
    summary: 'Signs in with an email and a password: starts a new session and sets its cookie',
  },
  {
    method: 'POST',
    path: '/api/auth/sign-out',
    operationId: 'signOut',
    summary: 'Ends the session of the cookie sent, if any, and clears the cookie',
  },
  {
    method: 'POST',
    path: '/api/auth/password-reset',
    operationId: 'requestPasswordReset',
    summary:
      'Mails a link to choose a new password to the account with this email, if there is one. ' +
      'Answers the same, at once, whether or not there is: the link is made and sent afterwards. ' +
      `At most ${PASSWORD_RESET_LIMITS.perEmail} requests per email address and ${PASSWORD_RESET_LIMITS.perAddress} per client address an hour (RATE_LIMITED).`,
  },
  {
    method: 'POST',
    path: '/api/auth/password-reset/confirm',
    operationId: 'confirmPasswordReset',
    summary:
      'Sets a new password with the token of a reset link (once, before it expires) and ends every session of the user',
  },
  {
    method: 'POST',
    path: '/api/auth/sign-up',
    operationId: 'signUp',
    summary:
      'Signs up to a role whose point-6 `joins` is `sign up`: mails a link to confirm the email, which creates the account. ' +
      'Answers the same, at once, whether or not the email has an account (its owner is mailed that it has). ' +
      `At most ${SIGN_UP_LIMITS.perEmail} requests per email address and ${SIGN_UP_LIMITS.perAddress} per client address an hour (RATE_LIMITED).`,
  },
  {
    method: 'POST',
    path: '/api/auth/verify-email',
    operationId: 'verifyEmail',
    summary:
      'Confirms a sign-up with the token of its mail (once, before it expires): creates the account and signs it in',
  },
  {
    method: 'POST',
    path: '/api/invitations',
    operationId: 'createInvitation',
    summary:
      'Invites an email into roles the caller’s point-6 `people` grant allows: mails a link to accept. ' +
      'Answers the same whether or not the email has an account (its owner is mailed that it has, with no link). ' +
      `At most ${INVITATION_LIMITS.perUser} an hour per user and ${INVITATION_LIMITS.perEmail} per email address (RATE_LIMITED).`,
  },
  {
    method: 'GET',
    path: '/api/invitations',
    operationId: 'listInvitations',
    summary: 'The pending invitations the caller sent (all of them for a user who manages people), newest first',
  },
  {
    method: 'DELETE',
    path: '/api/invitations/{id}',
    operationId: 'revokeInvitation',
    summary:
      'Revokes a pending invitation the caller sent (any, for a user who manages people): its link stops working',
  },
  {
    method: 'POST',
    path: '/api/invitations/accept',
    operationId: 'acceptInvitation',
    summary:
      'Accepts an invitation with the token of its mail (once, before it expires): creates the account with its roles, ' +
      'the name and password given, and signs it in',
  },
  {
    method: 'POST',
    path: '/api/invitations/lookup',
    operationId: 'lookUpInvitation',
    summary:
      'What an invitation is (the email, roles and sender), with the token of its mail, without using it: ' +
      'for the page its link opens',
  },
  {
    method: 'GET',
    path: '/api/auth/me',
    operationId: 'getMe',
    summary: 'Who the call is from: the signed-in user, or null for a signed-out visitor',
  },
  {
    method: 'GET',
    path: '/api/users',
    operationId: 'listUsers',
    summary:
      'Users whose name contains q, by name: for picking a value of a field referring to User. ' +
      'Open to users who may create or update a record with such a field; with id (repeatable), ' +
      'any signed-in user may ask for the users records name. Shows the id and name of each; ' +
      'email and roles only of the caller. To those whose roles manage people (point 6), without id: ' +
      'a page of every account, active or deactivated, with email, roles and status; q searches names and emails.',
  },
  {
    method: 'PATCH',
    path: '/api/users/:id',
    operationId: 'changeUser',
    summary:
      "Changes an account's roles, or deactivates or reactivates it: for those whose roles manage people. " +
      'A deactivated account cannot sign in; its sessions end and its API tokens stop working at once.',
  },
  {
    method: 'GET',
    path: '/api/users/:id/history',
    operationId: 'getUserHistory',
    summary:
      "An account's history, oldest first: how it was made, role changes, deactivation, reactivation and " +
      'password resets, each with who did it and when. For those whose roles manage people.',
  },
  {
    method: 'GET',
    path: '/api/events',
    operationId: 'streamEvents',
    summary:
      'Live updates: a server-sent event stream (text/event-stream) on which each committed create, ' +
      'update, transition or delete of a record the signed-in user may read arrives as an event ' +
      '`change` with data {entity, id, kind, at}, never field values. Comments every 25 seconds keep ' +
      'it open; it ends when the session or token ends and when the server closes. At most 8 per user (RATE_LIMITED).',
  },
] as const;

export type SystemRoute = (typeof SYSTEM_ROUTES)[number];
