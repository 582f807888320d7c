import type { JsonSchema } from '../compile/json-schemas.ts';
import {
  API,
  type FeatureApi,
  type Operation,
  openApiPath,
  type Parameter,
  type ProblemResponses,
  ref,
  type SecurityRequirement,
  type SecurityScheme,
} from '../compile/openapi.ts';
import {
  ACCEPT_INVITATION_SCHEMA,
  ACCOUNT_CHANGE_SCHEMA,
  ACCOUNT_EVENT_SCHEMA,
  CONFIRM_TWO_FACTOR_SCHEMA,
  DIRECTORY_USER_SCHEMA,
  DISABLE_TWO_FACTOR_SCHEMA,
  ENROLMENT_SCHEMA,
  INVITATION_LIMITS,
  INVITATION_LOOKED_UP_SCHEMA,
  INVITATION_LOOKUP_SCHEMA,
  INVITATION_SCHEMA,
  INVITE_SCHEMA,
  MANAGED_USER_SCHEMA,
  PASSKEY_REGISTER_SCHEMA,
  PASSKEY_SCHEMA,
  PASSKEY_SIGN_IN_SCHEMA,
  PASSWORD_RESET_ACCEPTED_SCHEMA,
  PASSWORD_RESET_CONFIRM_SCHEMA,
  PASSWORD_RESET_DONE_SCHEMA,
  PASSWORD_RESET_LIMITS,
  PASSWORD_RESET_SCHEMA,
  PENDING_SIGN_IN_COOKIE,
  RECOVERY_CODES_SCHEMA,
  SECOND_STEP_ANSWER_SCHEMA,
  SECOND_STEP_SCHEMA,
  SECURE_PENDING_SIGN_IN_COOKIE,
  SECURE_SESSION_COOKIE,
  SESSION_COOKIE,
  SIGN_IN_SCHEMA,
  SIGN_UP_ACCEPTED_SCHEMA,
  SIGN_UP_LIMITS,
  SIGN_UP_SCHEMA,
  TWO_FACTOR_STATUS_SCHEMA,
  USER_SCHEMA,
  VERIFY_EMAIL_SCHEMA,
} from './people-schemas.ts';

const SIGN_IN = 'ninepoint.SignIn';
const USER = 'ninepoint.User';
const DIRECTORY_USER = 'ninepoint.DirectoryUser';
const MANAGED_USER = 'ninepoint.ManagedUser';
const ACCOUNT_CHANGE = 'ninepoint.AccountChange';
const ACCOUNT_EVENT = 'ninepoint.AccountEvent';
const PASSWORD_RESET = 'ninepoint.PasswordReset';
const PASSWORD_RESET_CONFIRM = 'ninepoint.PasswordResetConfirm';
const SIGN_UP = 'ninepoint.SignUp';
const VERIFY_EMAIL = 'ninepoint.VerifyEmail';
const INVITE = 'ninepoint.Invite';
const INVITATION = 'ninepoint.Invitation';
const ACCEPT_INVITATION = 'ninepoint.AcceptInvitation';
const INVITATION_LOOKUP = 'ninepoint.InvitationLookup';
const SECOND_STEP = 'ninepoint.SignInSecondStep';
const CONFIRM_TWO_FACTOR = 'ninepoint.ConfirmTwoFactor';
const DISABLE_TWO_FACTOR = 'ninepoint.DisableTwoFactor';
const PASSKEY = 'ninepoint.Passkey';
const PASSKEY_REGISTER = 'ninepoint.PasskeyRegister';
const PASSKEY_SIGN_IN = 'ninepoint.PasskeySignIn';

/** How a call proves who it is from (`auth.ts`). */
export const SECURITY_SCHEMES: Record<string, SecurityScheme> = {
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description:
      `The session cookie \`POST /api/auth/sign-in\` sets, named \`${SECURE_SESSION_COOKIE}\` over HTTPS. ` +
      'A call that changes anything must come from the app’s own pages (its `Origin`, or ' +
      '`Sec-Fetch-Site: same-origin`); otherwise it answers FORBIDDEN.',
  },
  token: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API token: `Authorization: Bearer npt_…`. A token that is not valid, or was revoked, answers NOT_SIGNED_IN.',
  },
};

/** The `:id` of an account's calls. */
const USER_ID: Parameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The id of the user.',
  schema: { type: 'string', format: 'uuid' },
};

/** The `:id` of a passkey's calls. */
const PASSKEY_ID = (name: string): Parameter => ({
  name,
  in: 'path',
  required: true,
  description: 'The credential id of the passkey (base64url).',
  schema: { type: 'string' },
});
const PASSKEY_OPTIONS: JsonSchema = { type: 'object', description: 'WebAuthn options (JSON form).' };
const PASSKEY_LIST: JsonSchema = {
  type: 'object',
  properties: { items: { type: 'array', items: ref(PASSKEY) } },
  required: ['items'],
  additionalProperties: false,
};

const JSON_USER: JsonSchema = {
  type: 'object',
  properties: { user: ref(USER) },
  required: ['user'],
  additionalProperties: false,
};
const ACCESS: JsonSchema = { type: 'string', enum: ['none', 'own', 'all'] };
const FIELD_LIST: JsonSchema = {
  type: ['array', 'null'],
  items: API.string,
  description: 'The fields the caller may set; null for all.',
};
const STATE_LIST: JsonSchema = {
  type: ['array', 'null'],
  items: API.string,
  description: 'The states a record must be in for the grant to apply (`while`); null for any.',
};
/** `GET /api/auth/me`'s `access`: what point 6 lets the caller do, per entity. */
const ACCESS_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'By entity: create, read, update, delete and each transition, as point 6 allows the caller.',
  additionalProperties: {
    type: 'object',
    properties: {
      create: { type: 'boolean' },
      read: ACCESS,
      update: ACCESS,
      delete: ACCESS,
      transitions: { type: 'object', additionalProperties: ACCESS },
      createFields: FIELD_LIST,
      updateFields: FIELD_LIST,
      updateStates: STATE_LIST,
      deleteStates: STATE_LIST,
      ownedVia: {
        type: 'boolean',
        description: 'Whether `own` records are reached through references (`own via doctor.account`).',
      },
      readFields: {
        type: ['array', 'null'],
        items: API.string,
        description:
          "The fields the caller sees of every record they may read; null for all (a `read own` role may see more of the caller's own records: those come with the record).",
      },
    },
    // `accessSummary` (compile/permissions.ts) always sends every one of these.
    required: [
      'create',
      'read',
      'update',
      'delete',
      'transitions',
      'createFields',
      'updateFields',
      'updateStates',
      'deleteStates',
      'ownedVia',
      'readFields',
    ],
    additionalProperties: false,
  },
};
const SET_COOKIE = (what: string) => ({ 'Set-Cookie': { description: what, schema: API.string } });
/** A call's 200 that starts a session: the user, and the session cookie. */
const SIGNED_IN = (description: string) => ({
  description,
  headers: SET_COOKIE(
    `The session cookie, HttpOnly and SameSite=Lax (\`${SECURE_SESSION_COOKIE}\`, Secure, over HTTPS).`,
  ),
  content: { [API.json]: { schema: JSON_USER } },
});

/** One of people's calls: its route, its words, who may make it, and what it takes and answers. */
export interface PeopleCall {
  method: string;
  /** As Fastify writes it: `/api/users/:id`. */
  path: string;
  operationId: string;
  summary: string;
  /** Who may make it; none given: no credentials are needed (`security: []`). */
  security?: SecurityRequirement[];
  /** The call's parameters, body and answers in the OpenAPI document. */
  describe(responses: ProblemResponses): Pick<Operation, 'parameters' | 'requestBody' | 'responses'>;
}

/**
 * People's calls, one row each: the route, its words and its description in the OpenAPI document
 * together. The handlers are `auth.ts`, `password-reset.ts`, `sign-up.ts`, `invitations.ts` and
 * `user-admin.ts`; the schemas they validate with are `people-schemas.ts`, shared with this table.
 */
export const PEOPLE_CALLS: readonly PeopleCall[] = [
  {
    method: 'POST',
    path: '/api/auth/sign-in',
    operationId: 'signIn',
    summary:
      'Signs in with an email and a password: starts a new session and sets its cookie; ' +
      'for an account with two-factor sign-in on, waits for a code instead (202)',

    describe: (responses) => ({
      requestBody: { required: true, content: { [API.json]: { schema: ref(SIGN_IN) } } },
      responses: {
        '200': SIGNED_IN('Signed in: the user, and a new session cookie (any session the browser had ends).'),
        '202': {
          description:
            'The password is right and the account has two-factor sign-in on: no session yet. ' +
            'Send a code to `POST /api/auth/sign-in/two-factor` before `expiresAt`, from the same browser.',
          headers: SET_COOKIE(
            `The waiting sign-in's cookie \`${PENDING_SIGN_IN_COOKIE}\` (\`${SECURE_PENDING_SIGN_IN_COOKIE}\` over HTTPS), HttpOnly and SameSite=Strict.`,
          ),
          content: { [API.json]: { schema: SECOND_STEP_ANSWER_SCHEMA } },
        },
        ...responses.for([...API.posted, 'SIGN_IN_FAILED', 'ACCOUNT_DEACTIVATED', 'SIGN_IN_LOCKED', ...API.anyCall]),
      },
    }),
  },
  {
    method: 'POST',
    path: '/api/auth/sign-out',
    operationId: 'signOut',
    summary: 'Ends the session of the cookie sent, if any, and clears the cookie',

    describe: (responses) => ({
      responses: {
        '204': {
          description: 'Signed out: the session ended on the server.',
          headers: SET_COOKIE('Clears the session cookie.'),
        },
        ...responses.for([...API.posted, ...API.anyCall]),
      },
      security: [{ session: [] }, {}],
    }),
  },
  {
    method: 'POST',
    path: '/api/auth/password-reset',
    operationId: 'requestPasswordReset',
    summary:
      'Mails a link to choose a new password to the account with this email, if there is one. ' +
      'Answers the same, at once, whether or not there is: the link is made and sent afterwards. ' +
      `At most ${PASSWORD_RESET_LIMITS.perEmail} requests per email address and ${PASSWORD_RESET_LIMITS.perAddress} per client address an hour (RATE_LIMITED).`,

    describe: (responses) => ({
      requestBody: { required: true, content: { [API.json]: { schema: ref(PASSWORD_RESET) } } },
      responses: {
        '202': {
          description:
            'Taken: the same answer whether or not an account has the email. If one has, a link to ' +
            '`/reset-password?token=…` is mailed to it.',
          content: { [API.json]: { schema: PASSWORD_RESET_ACCEPTED_SCHEMA } },
        },
        // RATE_LIMITED here also counts requests per email address and per client address.
        ...responses.for([...API.posted, ...API.anyCall]),
      },
      security: [],
    }),
  },
  {
    method: 'POST',
    path: '/api/auth/password-reset/confirm',
    operationId: 'confirmPasswordReset',
    summary:
      'Sets a new password with the token of a reset link (once, before it expires) and ends every session of the user',

    describe: (responses) => ({
      requestBody: { required: true, content: { [API.json]: { schema: ref(PASSWORD_RESET_CONFIRM) } } },
      responses: {
        '200': {
          description: 'The password is set; every session of the user has ended. Sign in with it.',
          content: { [API.json]: { schema: PASSWORD_RESET_DONE_SCHEMA } },
        },
        ...responses.for([...API.posted, 'RESET_LINK_INVALID', 'VALIDATION_FAILED', ...API.anyCall]),
      },
      security: [],
    }),
  },
  {
    method: 'POST',
    path: '/api/auth/sign-up',
    operationId: 'signUp',
    summary:
      'Signs up to a role whose point-6 `joins` is `sign up`: mails a link to confirm the email, which creates the account. ' +
      'Answers the same, at once, whether or not the email has an account (its owner is mailed that it has). ' +
      `At most ${SIGN_UP_LIMITS.perEmail} requests per email address and ${SIGN_UP_LIMITS.perAddress} per client address an hour (RATE_LIMITED).`,

    describe: (responses) => ({
      requestBody: { required: true, content: { [API.json]: { schema: ref(SIGN_UP) } } },
      responses: {
        '202': {
          description:
            'Taken: the same answer whether or not the email has an account. A new email is mailed a link to ' +
            '`/verify-email?token=…`; an email with an account is mailed that it has one.',
          content: { [API.json]: { schema: SIGN_UP_ACCEPTED_SCHEMA } },
        },
        // FORBIDDEN also answers a role nobody may sign up to; RATE_LIMITED counts per email and address.
        ...responses.for([...API.posted, 'SIGN_UP_DOMAIN', 'VALIDATION_FAILED', ...API.anyCall]),
      },
    }),
  },
  {
    method: 'POST',
    path: '/api/auth/verify-email',
    operationId: 'verifyEmail',
    summary:
      'Confirms a sign-up with the token of its mail (once, before it expires): creates the account and signs it in',

    describe: (responses) => ({
      requestBody: {
        required: true,
        content: {
          [API.json]: { schema: ref(VERIFY_EMAIL) },
        },
      },
      responses: {
        '200': SIGNED_IN('The account is made: signed in as it, with a new session cookie.'),
        // The password chosen at the link is checked there: too short answers VALIDATION_FAILED.
        ...responses.for([...API.posted, 'VERIFY_LINK_INVALID', 'VALIDATION_FAILED', ...API.anyCall]),
      },
    }),
  },
  {
    method: 'POST',
    path: '/api/invitations',
    operationId: 'createInvitation',
    summary:
      'Invites an email into roles the caller’s point-6 `people` grant allows: mails a link to accept. ' +
      'Answers the same whether or not the email has an account (its owner is mailed that it has, with no link). ' +
      `At most ${INVITATION_LIMITS.perUser} an hour per user and ${INVITATION_LIMITS.perEmail} per email address (RATE_LIMITED).`,

    describe: (responses) => ({
      requestBody: { required: true, content: { [API.json]: { schema: ref(INVITE) } } },
      responses: {
        '201': {
          description:
            'Invited: the same answer whether or not the email has an account. A new email is mailed a link to ' +
            '`/accept-invitation?token=…`; an email with an account is mailed that it has one, with no link.',
          content: { [API.json]: { schema: ref(INVITATION) } },
        },
        ...responses.for([...API.posted, ...API.anyCall]),
      },
      security: API.signedIn,
    }),
  },
  {
    method: 'GET',
    path: '/api/invitations',
    operationId: 'listInvitations',
    summary: 'The pending invitations the caller sent (all of them for a user who manages people), newest first',

    describe: (responses) => ({
      responses: {
        '200': {
          description: 'The pending invitations: neither accepted, revoked nor expired.',
          content: {
            [API.json]: {
              schema: {
                type: 'object',
                properties: { items: { type: 'array', items: ref(INVITATION) } },
                required: ['items'],
                additionalProperties: false,
              },
            },
          },
        },
        ...responses.for(['FORBIDDEN', ...API.anyCall]),
      },
      security: API.signedIn,
    }),
  },
  {
    method: 'DELETE',
    path: '/api/invitations/{id}',
    operationId: 'revokeInvitation',
    summary:
      'Revokes a pending invitation the caller sent (any, for a user who manages people): its link stops working',

    describe: (responses) => ({
      parameters: [
        {
          name: 'id',
          in: 'path',
          required: true,
          description: 'The invitation’s id.',
          schema: { type: 'string', format: 'uuid' },
        },
      ],
      responses: {
        '204': { description: 'Revoked: its link no longer works.' },
        ...responses.for(['FORBIDDEN', 'NOT_FOUND', ...API.anyCall]),
      },
      security: API.signedIn,
    }),
  },
  {
    method: 'POST',
    path: '/api/invitations/accept',
    operationId: 'acceptInvitation',
    summary:
      'Accepts an invitation with the token of its mail (once, before it expires): creates the account with its roles, ' +
      'the name and password given, and signs it in',

    describe: (responses) => ({
      requestBody: {
        required: true,
        content: {
          [API.json]: { schema: ref(ACCEPT_INVITATION) },
        },
      },
      responses: {
        '200': SIGNED_IN('The account is made: signed in as it, with a new session cookie.'),
        ...responses.for([...API.posted, 'INVITATION_INVALID', 'VALIDATION_FAILED', ...API.anyCall]),
      },
    }),
  },
  {
    method: 'POST',
    path: '/api/invitations/lookup',
    operationId: 'lookUpInvitation',
    summary:
      'What an invitation is (the email, roles and sender), with the token of its mail, without using it: ' +
      'for the page its link opens',

    describe: (responses) => ({
      requestBody: { required: true, content: { [API.json]: { schema: ref(INVITATION_LOOKUP) } } },
      responses: {
        '200': {
          description: 'The invitation, which may still be accepted.',
          content: { [API.json]: { schema: INVITATION_LOOKED_UP_SCHEMA } },
        },
        ...responses.for([...API.posted, 'INVITATION_INVALID', ...API.anyCall]),
      },
    }),
  },
  {
    method: 'GET',
    path: '/api/auth/me',
    operationId: 'getMe',
    summary: 'Who the call is from: the signed-in user, or null for a signed-out visitor',

    describe: (responses) => ({
      responses: {
        '200': {
          description: 'The signed-in user, or null.',
          content: {
            [API.json]: {
              schema: {
                ...JSON_USER,
                properties: {
                  user: { anyOf: [ref(USER), { type: 'null' }] },
                  access: ACCESS_SCHEMA,
                  people: {
                    description:
                      "What the user may do with people's accounts (point 6's people column); null when signed out.",
                    anyOf: [
                      {
                        type: 'object',
                        properties: {
                          mayInvite: { type: 'boolean' },
                          inviteRoles: { type: 'array', items: { type: 'string' } },
                          manage: { type: 'boolean' },
                        },
                        required: ['mayInvite', 'inviteRoles', 'manage'],
                        additionalProperties: false,
                      },
                      { type: 'null' },
                    ],
                  },
                  singleSignOn: {
                    description:
                      'Sign-in with an OpenID Connect provider, when the server is configured for one: what its button says, and the path that starts it (a browser navigation).',
                    anyOf: [
                      {
                        type: 'object',
                        properties: { name: { type: 'string' }, start: { type: 'string' } },
                        required: ['name', 'start'],
                        additionalProperties: false,
                      },
                      { type: 'null' },
                    ],
                  },
                  twoFactor: TWO_FACTOR_STATUS_SCHEMA,
                  signUp: {
                    description:
                      "The roles people may sign up to themselves (point 6's joins column), with the email domains each accepts (none: any).",
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: {
                        role: { type: 'string' },
                        domains: { type: 'array', items: { type: 'string' } },
                      },
                      required: ['role', 'domains'],
                      additionalProperties: false,
                    },
                  },
                },
                required: ['user', 'access', 'people', 'signUp', 'singleSignOn', 'twoFactor'],
              },
            },
          },
        },
        ...responses.for(API.anyCall),
      },
      security: API.anybody,
    }),
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

    describe: (responses) => ({
      parameters: [
        {
          name: 'id',
          in: 'query',
          required: false,
          description: 'A user id, repeatable (at most 100): answers those users, for any signed-in caller.',
          schema: { type: 'string', format: 'uuid' },
        },
        {
          name: 'q',
          in: 'query',
          required: false,
          description:
            'Text the name contains (emails are not searched: they are not shown). For those who manage people: ' +
            'text the name or the email contains.',
          schema: { type: 'string', maxLength: 200 },
        },
        {
          name: 'limit',
          in: 'query',
          required: false,
          description: 'At most this many (default 20; 50 in the list of accounts of those who manage people).',
          schema: { type: 'integer', minimum: 1, maximum: 100 },
        },
        {
          name: 'offset',
          in: 'query',
          required: false,
          description: 'For those who manage people: how many accounts to skip (paging).',
          schema: { type: 'integer', minimum: 0, maximum: 1_000_000 },
        },
      ],
      responses: {
        '200': {
          description:
            'The users found: of each, the id and the name; the whole account (email, roles) only of the caller. ' +
            'To those who manage people (without id): a page of every account, with how many there are.',
          content: {
            [API.json]: {
              schema: {
                anyOf: [
                  {
                    type: 'object',
                    properties: {
                      items: { type: 'array', items: { anyOf: [ref(DIRECTORY_USER), ref(USER)] } },
                    },
                    required: ['items'],
                    additionalProperties: false,
                  },
                  {
                    type: 'object',
                    properties: {
                      items: { type: 'array', items: ref(MANAGED_USER) },
                      total: { type: 'integer', minimum: 0, description: 'How many accounts match q.' },
                      limit: { type: 'integer' },
                      offset: { type: 'integer' },
                    },
                    required: ['items', 'total', 'limit', 'offset'],
                    additionalProperties: false,
                  },
                ],
              },
            },
          },
        },
        ...responses.for(['INVALID_PAYLOAD', 'FORBIDDEN', ...API.anyCall]),
      },
      security: API.signedIn,
    }),
  },
  {
    method: 'PATCH',
    path: '/api/users/:id',
    operationId: 'changeUser',
    summary:
      "Changes an account's roles, or deactivates or reactivates it: for those whose roles manage people. " +
      'A deactivated account cannot sign in; its sessions end and its API tokens stop working at once.',

    describe: (responses) => ({
      parameters: [USER_ID],
      requestBody: { required: true, content: { [API.json]: { schema: ref(ACCOUNT_CHANGE) } } },
      responses: {
        '200': {
          description: 'The account as changed.',
          content: { [API.json]: { schema: ref(MANAGED_USER) } },
        },
        ...responses.for([
          ...API.posted,
          'NOT_FOUND',
          'VALIDATION_FAILED',
          'CANNOT_DEACTIVATE_SELF',
          'LAST_MANAGER',
          ...API.anyCall,
        ]),
      },
      security: API.signedIn,
    }),
  },
  {
    method: 'GET',
    path: '/api/users/:id/history',
    operationId: 'getUserHistory',
    summary:
      "An account's history, oldest first: how it was made, role changes, deactivation, reactivation, " +
      'password resets and two-factor sign-in turned on, off, reset or a recovery code used, each with who did it and when. For those whose roles manage people.',

    describe: (responses) => ({
      parameters: [USER_ID],
      responses: {
        '200': {
          description: "The account's history, oldest first.",
          content: {
            [API.json]: {
              schema: {
                type: 'object',
                properties: { items: { type: 'array', items: ref(ACCOUNT_EVENT) } },
                required: ['items'],
                additionalProperties: false,
              },
            },
          },
        },
        ...responses.for(['FORBIDDEN', 'NOT_FOUND', ...API.anyCall]),
      },
      security: API.signedIn,
    }),
  },
  {
    method: 'POST',
    path: '/api/auth/sign-in/two-factor',
    operationId: 'signInSecondStep',
    summary:
      'The second step of a sign-in that answered 202: a code from the authenticator app, or a recovery code ' +
      '(each used once). Starts a new session and sets its cookie',

    describe: (responses) => ({
      requestBody: { required: true, content: { [API.json]: { schema: ref(SECOND_STEP) } } },
      responses: {
        '200': SIGNED_IN('Signed in: the user, and a new session cookie; the waiting sign-in has ended.'),
        // TWO_FACTOR_EXPIRED: no waiting sign-in for this browser (none, expired, or too many wrong codes).
        ...responses.for([...API.posted, 'TWO_FACTOR_FAILED', 'TWO_FACTOR_EXPIRED', 'SIGN_IN_LOCKED', ...API.anyCall]),
      },
    }),
  },
  {
    method: 'POST',
    path: '/api/auth/two-factor/enrol',
    operationId: 'enrolTwoFactor',
    summary:
      'Starts setting up two-factor sign-in for the signed-in user: a new secret and its QR code. ' +
      'It is on only once a code confirms it (`POST /api/auth/two-factor/confirm`)',

    describe: (responses) => ({
      responses: {
        '200': {
          description: 'The new secret: scan the QR code, or type the secret, into an authenticator app.',
          content: { [API.json]: { schema: ENROLMENT_SCHEMA } },
        },
        ...responses.for([...API.posted, 'TWO_FACTOR_ENABLED', ...API.anyCall]),
      },
      security: [{ session: [] }],
    }),
  },
  {
    method: 'POST',
    path: '/api/auth/two-factor/confirm',
    operationId: 'confirmTwoFactor',
    summary:
      'Turns two-factor sign-in on with a code the app shows for the new secret; answers ten recovery codes, shown this once',

    describe: (responses) => ({
      requestBody: { required: true, content: { [API.json]: { schema: ref(CONFIRM_TWO_FACTOR) } } },
      responses: {
        '200': {
          description: 'On: from now on sign-in asks for a code. Keep the recovery codes somewhere safe.',
          content: { [API.json]: { schema: RECOVERY_CODES_SCHEMA } },
        },
        ...responses.for([...API.posted, 'TWO_FACTOR_FAILED', 'TWO_FACTOR_ENABLED', 'SIGN_IN_LOCKED', ...API.anyCall]),
      },
      security: [{ session: [] }],
    }),
  },
  {
    method: 'POST',
    path: '/api/auth/two-factor/disable',
    operationId: 'disableTwoFactor',
    summary:
      "Turns the signed-in user's two-factor sign-in off, with a current code, a recovery code or the password. " +
      'Refused (TWO_FACTOR_REQUIRED) when one of their roles requires it',

    describe: (responses) => ({
      requestBody: { required: true, content: { [API.json]: { schema: ref(DISABLE_TWO_FACTOR) } } },
      responses: {
        '204': { description: 'Off (or it was not on): sign-in asks for the password only.' },
        ...responses.for([
          ...API.posted,
          'TWO_FACTOR_FAILED',
          'SIGN_IN_FAILED',
          'TWO_FACTOR_REQUIRED',
          'SIGN_IN_LOCKED',
          ...API.anyCall,
        ]),
      },
      security: [{ session: [] }],
    }),
  },
  {
    method: 'DELETE',
    path: '/api/users/:id/two-factor',
    operationId: 'resetUserTwoFactor',
    summary:
      "Resets a user's two-factor sign-in (a lost phone): it is off, their recovery codes are void, and the " +
      "account's history records who did it. For those whose roles manage people",

    describe: (responses) => ({
      parameters: [USER_ID],
      responses: {
        '204': {
          description: 'Reset (or it was not on). If their role requires it, they set it up again at their next call.',
        },
        ...responses.for(['FORBIDDEN', 'NOT_FOUND', ...API.anyCall]),
      },
      security: API.signedIn,
    }),
  },
  {
    method: 'POST',
    path: '/api/auth/passkeys/register/options',
    operationId: 'passkeyRegisterOptions',
    summary:
      'Starts registering a passkey for the signed-in user: the options for `navigator.credentials.create` ' +
      '(WebAuthn, user verification required), and a cookie binding its challenge to this browser for 5 minutes',
    describe: (responses) => ({
      responses: {
        '200': {
          description: 'PublicKeyCredentialCreationOptionsJSON, as `@simplewebauthn/browser` takes it.',
          content: { [API.json]: { schema: PASSKEY_OPTIONS } },
        },
        ...responses.for([...API.posted, ...API.anyCall]),
      },
      security: [{ session: [] }],
    }),
  },
  {
    method: 'POST',
    path: '/api/auth/passkeys/register',
    operationId: 'registerPasskey',
    summary:
      "Keeps the new passkey the authenticator made for this browser's challenge (taken once); the account's history records it",
    describe: (responses) => ({
      requestBody: { required: true, content: { [API.json]: { schema: ref(PASSKEY_REGISTER) } } },
      responses: {
        '201': { description: 'The passkey.', content: { [API.json]: { schema: ref(PASSKEY) } } },
        ...responses.for([...API.posted, ...API.anyCall]),
      },
      security: [{ session: [] }],
    }),
  },
  {
    method: 'GET',
    path: '/api/auth/passkeys',
    operationId: 'listPasskeys',
    summary: "The signed-in user's passkeys, oldest first",
    describe: (responses) => ({
      responses: {
        '200': { description: 'Their passkeys.', content: { [API.json]: { schema: PASSKEY_LIST } } },
        ...responses.for(['FORBIDDEN', ...API.anyCall]),
      },
      security: [{ session: [] }],
    }),
  },
  {
    method: 'DELETE',
    path: '/api/auth/passkeys/:id',
    operationId: 'removePasskey',
    summary: "Removes one of the signed-in user's passkeys: it signs nobody in any more",
    describe: (responses) => ({
      parameters: [PASSKEY_ID('id')],
      responses: {
        '204': { description: 'Removed.' },
        ...responses.for(['FORBIDDEN', 'NOT_FOUND', ...API.anyCall]),
      },
      security: [{ session: [] }],
    }),
  },
  {
    method: 'POST',
    path: '/api/auth/passkeys/sign-in/options',
    operationId: 'passkeySignInOptions',
    summary:
      'Starts a sign-in with a passkey: the options for `navigator.credentials.get`, and a cookie binding its ' +
      'challenge to this browser for 5 minutes',
    describe: (responses) => ({
      responses: {
        '200': {
          description: 'PublicKeyCredentialRequestOptionsJSON, as `@simplewebauthn/browser` takes it.',
          content: { [API.json]: { schema: PASSKEY_OPTIONS } },
        },
        ...responses.for([...API.posted, ...API.anyCall]),
      },
    }),
  },
  {
    method: 'POST',
    path: '/api/auth/passkeys/sign-in',
    operationId: 'signInWithPasskey',
    summary:
      "Signs in with a passkey answering this browser's challenge (taken once): starts a new session and sets its " +
      'cookie. No code is asked after it, even where a role requires two-factor sign-in: a passkey is both factors',
    describe: (responses) => ({
      requestBody: { required: true, content: { [API.json]: { schema: ref(PASSKEY_SIGN_IN) } } },
      responses: {
        '200': SIGNED_IN('Signed in: the user, and a new session cookie.'),
        ...responses.for([...API.posted, 'SIGN_IN_FAILED', 'SIGN_IN_LOCKED', ...API.anyCall]),
      },
    }),
  },
  {
    method: 'GET',
    path: '/api/users/:id/passkeys',
    operationId: 'listUserPasskeys',
    summary: "A user's passkeys. For those whose roles manage people",
    describe: (responses) => ({
      parameters: [USER_ID],
      responses: {
        '200': { description: 'Their passkeys.', content: { [API.json]: { schema: PASSKEY_LIST } } },
        ...responses.for(['FORBIDDEN', 'NOT_FOUND', ...API.anyCall]),
      },
      security: API.signedIn,
    }),
  },
  {
    method: 'DELETE',
    path: '/api/users/:id/passkeys/:passkeyId',
    operationId: 'removeUserPasskey',
    summary:
      "Removes one of a user's passkeys (a lost device); the account's history records who did it. For those whose roles manage people",
    describe: (responses) => ({
      parameters: [USER_ID, PASSKEY_ID('passkeyId')],
      responses: {
        '204': { description: 'Removed.' },
        ...responses.for(['FORBIDDEN', 'NOT_FOUND', ...API.anyCall]),
      },
      security: API.signedIn,
    }),
  },
];

/** People's calls, schemas and the two ways to prove who a call is from, for the OpenAPI document. */
export const PEOPLE_API: FeatureApi = {
  schemas: () => ({
    [SIGN_IN]: SIGN_IN_SCHEMA,
    [USER]: USER_SCHEMA,
    [DIRECTORY_USER]: DIRECTORY_USER_SCHEMA,
    [MANAGED_USER]: MANAGED_USER_SCHEMA,
    [ACCOUNT_CHANGE]: ACCOUNT_CHANGE_SCHEMA,
    [ACCOUNT_EVENT]: ACCOUNT_EVENT_SCHEMA,
    [PASSWORD_RESET]: PASSWORD_RESET_SCHEMA,
    [PASSWORD_RESET_CONFIRM]: PASSWORD_RESET_CONFIRM_SCHEMA,
    [SIGN_UP]: SIGN_UP_SCHEMA,
    [VERIFY_EMAIL]: VERIFY_EMAIL_SCHEMA,
    [INVITE]: INVITE_SCHEMA,
    [INVITATION]: INVITATION_SCHEMA,
    [ACCEPT_INVITATION]: ACCEPT_INVITATION_SCHEMA,
    [INVITATION_LOOKUP]: INVITATION_LOOKUP_SCHEMA,
    [SECOND_STEP]: SECOND_STEP_SCHEMA,
    [CONFIRM_TWO_FACTOR]: CONFIRM_TWO_FACTOR_SCHEMA,
    [DISABLE_TWO_FACTOR]: DISABLE_TWO_FACTOR_SCHEMA,
    [PASSKEY]: PASSKEY_SCHEMA,
    [PASSKEY_REGISTER]: PASSKEY_REGISTER_SCHEMA,
    [PASSKEY_SIGN_IN]: PASSKEY_SIGN_IN_SCHEMA,
  }),
  securitySchemes: SECURITY_SCHEMES,
  calls: ({ responses }) =>
    PEOPLE_CALLS.map((call) => ({
      path: openApiPath(call.path),
      method: call.method,
      operation: {
        operationId: call.operationId,
        summary: call.summary,
        tags: [API.systemTag],
        security: call.security ?? [],
        ...call.describe(responses),
      },
    })),
};
