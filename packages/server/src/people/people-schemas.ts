import type { JsonSchema } from '../compile/json-schemas.ts';

/**
 * What sign-in looks like on the wire, shared by the server (`auth.ts`), which validates and
 * sets cookies with it, and the OpenAPI document, which describes it: one source for both.
 */

/** The session cookie over plain HTTP (loopback, development). */
export const SESSION_COOKIE = 'np_session';
/** Over HTTPS: `__Host-` makes the browser refuse it unless Secure, host-only and `Path=/`. */
export const SECURE_SESSION_COOKIE = '__Host-np_session';

/** The body of `POST /api/auth/sign-in`. */
export const SIGN_IN_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    email: { type: 'string', minLength: 1, maxLength: 320 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
  required: ['email', 'password'],
  additionalProperties: false,
};

/** A user as sign-in and `GET /api/auth/me` answer it (`UserAccount`): never a password hash. */
export const USER_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    email: { type: 'string' },
    name: { type: 'string' },
    roles: { type: 'array', items: { type: 'string' }, description: 'The roles of point 6 the user has.' },
    createdAt: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'email', 'name', 'roles', 'createdAt'],
  additionalProperties: false,
};

/**
 * Another user as the user directory (`GET /api/users`) shows them: id and name, for pickers and
 * for naming who a record refers to. The caller's own entry is a whole `USER_SCHEMA`.
 */
export const DIRECTORY_USER_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
  },
  required: ['id', 'name'],
  additionalProperties: false,
};

/** An account as those who manage people see it (`GET /api/users`, `PATCH /api/users/:id`). */
export const MANAGED_USER_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    ...(USER_SCHEMA.properties as Record<string, JsonSchema>),
    active: { type: 'boolean', description: 'False once the account is deactivated: it cannot sign in.' },
    deactivatedAt: { type: ['string', 'null'], format: 'date-time' },
    twoFactor: {
      type: 'boolean',
      description: 'In the list of accounts: whether their two-factor sign-in is on (a reset turns it off).',
    },
  },
  required: ['id', 'email', 'name', 'roles', 'createdAt', 'active', 'deactivatedAt'],
  additionalProperties: false,
};

/** The body of `PATCH /api/users/:id`: the account's new roles, and whether it is active. */
export const ACCOUNT_CHANGE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    roles: {
      type: 'array',
      items: { type: 'string', minLength: 1, maxLength: 100 },
      maxItems: 50,
      uniqueItems: true,
      description: "The account's roles from now on: roles of point 6 only, all of them replaced.",
    },
    active: { type: 'boolean', description: 'false deactivates the account, true reactivates it.' },
  },
  minProperties: 1,
  additionalProperties: false,
};

/** One entry of an account's history (`GET /api/users/:id/history`). */
export const ACCOUNT_EVENT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    at: { type: 'string', format: 'date-time' },
    kind: {
      type: 'string',
      enum: [
        'created',
        'roles-changed',
        'deactivated',
        'reactivated',
        'password-reset',
        'two-factor-enabled',
        'two-factor-disabled',
        'two-factor-reset',
        'recovery-code-used',
        'passkey-added',
        'passkey-removed',
      ],
    },
    by: {
      anyOf: [
        {
          type: 'object',
          properties: { id: { type: 'string' }, name: { type: 'string' } },
          required: ['id', 'name'],
          additionalProperties: false,
        },
        { type: 'null' },
      ],
      description: 'Who did it; null at the server’s terminal (`ninepoint users`).',
    },
    how: {
      type: 'string',
      enum: ['terminal', 'sign-up', 'invitation', 'single-sign-on', 'email'],
      description: 'created: how the account was made; password-reset: by a mailed link or at the terminal.',
    },
    roles: { type: 'array', items: { type: 'string' }, description: 'created: the roles it was given.' },
    from: { type: 'array', items: { type: 'string' }, description: 'roles-changed: the roles before.' },
    to: { type: 'array', items: { type: 'string' }, description: 'roles-changed: the roles after.' },
    left: { type: 'integer', minimum: 0, description: 'recovery-code-used: how many unused recovery codes are left.' },
  },
  required: ['id', 'at', 'kind', 'by'],
  additionalProperties: false,
};

/** The body of `POST /api/auth/password-reset`: the email of the account. */
export const PASSWORD_RESET_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { email: { type: 'string', minLength: 1, maxLength: 320 } },
  required: ['email'],
  additionalProperties: false,
};

/** The body of `POST /api/auth/password-reset/confirm`: the link's token and the new password. */
export const PASSWORD_RESET_CONFIRM_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    token: { type: 'string', minLength: 1, maxLength: 200, description: 'The `token` of the link in the mail.' },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
  required: ['token', 'password'],
  additionalProperties: false,
};

/**
 * What `POST /api/auth/password-reset` answers, whether or not an account has the email: the
 * same status and the very same body.
 */
export const PASSWORD_RESET_ACCEPTED = {
  message:
    'If an account has this email address, a link to choose a new password has been sent to it. ' +
    'It works once, for a limited time.',
} as const;

export const PASSWORD_RESET_ACCEPTED_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { message: { type: 'string', enum: [PASSWORD_RESET_ACCEPTED.message] } },
  required: ['message'],
  additionalProperties: false,
};

/** What a password reset answers: the email of the account, to sign in with. */
export const PASSWORD_RESET_DONE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { email: { type: 'string' } },
  required: ['email'],
  additionalProperties: false,
};

/** How many reset mails may be asked for, per email address and per client address, in one clock hour. */
export const PASSWORD_RESET_LIMITS = { perEmail: 3, perAddress: 10, windowMs: 3_600_000 } as const;

/** The body of `POST /api/auth/sign-up`: who joins, with which role (optional when only one is open). */
export const SIGN_UP_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    email: { type: 'string', minLength: 1, maxLength: 320 },
    name: { type: 'string', minLength: 1, maxLength: 200, description: 'The name others see.' },
    role: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: 'A role of point 6 whose `joins` is `sign up`; optional when only one is.',
    },
  },
  required: ['email', 'name'],
  additionalProperties: false,
};

/**
 * What `POST /api/auth/sign-up` answers, whether or not the email has an account already: the
 * same status and the very same body.
 */
export const SIGN_UP_ACCEPTED = {
  message:
    'Check your email: a link to confirm the address and finish signing up has been sent to it. ' +
    'It works once, for a limited time.',
} as const;

export const SIGN_UP_ACCEPTED_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { message: { type: 'string', enum: [SIGN_UP_ACCEPTED.message] } },
  required: ['message'],
  additionalProperties: false,
};

/** The body of `POST /api/auth/verify-email`: the token of the link in the sign-up mail. */
export const VERIFY_EMAIL_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    token: { type: 'string', minLength: 1, maxLength: 200, description: 'The `token` of the link in the mail.' },
    password: {
      type: 'string',
      minLength: 1,
      maxLength: 1024,
      description:
        'The password of the new account, chosen here by whoever holds the mail: never at sign-up, where anyone could type any address.',
    },
  },
  required: ['token', 'password'],
  additionalProperties: false,
};

/** How many sign-ups may be asked for, per email address and per client address, in one clock hour. */
export const SIGN_UP_LIMITS = { perEmail: 3, perAddress: 10, windowMs: 3_600_000 } as const;

/** The body of `POST /api/invitations`. */
export const INVITE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    email: { type: 'string', minLength: 1, maxLength: 320 },
    roles: {
      type: 'array',
      items: { type: 'string', minLength: 1, maxLength: 100 },
      maxItems: 50,
      description: 'The roles the account will have: those the caller’s `people` grant allows.',
    },
  },
  required: ['email', 'roles'],
  additionalProperties: false,
};

/** The body of `POST /api/invitations/accept`: the link's token, and the invitee's name and password. */
export const ACCEPT_INVITATION_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    token: { type: 'string', minLength: 1, maxLength: 200, description: 'The `token` of the link in the mail.' },
    name: { type: 'string', minLength: 1, maxLength: 200 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
  required: ['token', 'name', 'password'],
  additionalProperties: false,
};

/** The body of `POST /api/invitations/lookup`: the token of the link in the mail. */
export const INVITATION_LOOKUP_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    token: { type: 'string', minLength: 1, maxLength: 200, description: 'The `token` of the link in the mail.' },
  },
  required: ['token'],
  additionalProperties: false,
};

/** What the invitee's page shows before they accept: for whom, as what, from whom, until when. */
export const INVITATION_LOOKED_UP_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    email: { type: 'string', description: 'The email the account will have, to sign in with.' },
    roles: { type: 'array', items: { type: 'string' } },
    invitedBy: { type: 'string', description: 'The name of who sent it.' },
    expiresAt: { type: 'string', format: 'date-time' },
  },
  required: ['email', 'roles', 'invitedBy', 'expiresAt'],
  additionalProperties: false,
};

/** A pending invitation, as `GET /api/invitations` lists it: never its link. */
export const INVITATION_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    email: { type: 'string' },
    roles: { type: 'array', items: { type: 'string' } },
    invitedBy: {
      type: 'object',
      properties: { id: { type: 'string', format: 'uuid' }, name: { type: 'string' } },
      required: ['id', 'name'],
      additionalProperties: false,
    },
    createdAt: { type: 'string', format: 'date-time' },
    expiresAt: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'email', 'roles', 'invitedBy', 'createdAt', 'expiresAt'],
  additionalProperties: false,
};

/** How many invitations one user may send, and one email address receive, in one clock hour. */
export const INVITATION_LIMITS = { perUser: 50, perEmail: 3, windowMs: 3_600_000 } as const;

/** The cookie of a sign-in waiting for its second step (over plain HTTP). */
export const PENDING_SIGN_IN_COOKIE = 'np_sign_in';
/** Over HTTPS. */
export const SECURE_PENDING_SIGN_IN_COOKIE = '__Host-np_sign_in';
/** The cookie binding a passkey challenge to the browser that asked for it (over plain HTTP). */
export const PASSKEY_CHALLENGE_COOKIE = 'np_passkey';
/** Over HTTPS. */
export const SECURE_PASSKEY_CHALLENGE_COOKIE = '__Host-np_passkey';

const TOTP_CODE: JsonSchema = {
  type: 'string',
  minLength: 6,
  maxLength: 12,
  description: 'The 6-digit code the authenticator app shows now (spaces are ignored).',
};
const RECOVERY_CODE: JsonSchema = {
  type: 'string',
  minLength: 16,
  maxLength: 40,
  description: 'One of the recovery codes shown when two-factor sign-in was turned on (dashes and case are ignored).',
};

/** What `POST /api/auth/sign-in` answers (202) when the account's second factor is on. */
export const SECOND_STEP_ANSWER_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    secondStep: { type: 'string', enum: ['two-factor'], description: 'What to send next: a code.' },
    expiresAt: {
      type: 'string',
      format: 'date-time',
      description: 'Until when the code may be sent; then sign in with the password again.',
    },
  },
  required: ['secondStep', 'expiresAt'],
  additionalProperties: false,
};

/** The body of `POST /api/auth/sign-in/two-factor`: a code, or a recovery code. */
export const SECOND_STEP_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { code: TOTP_CODE, recoveryCode: RECOVERY_CODE },
  minProperties: 1,
  maxProperties: 1,
  additionalProperties: false,
};

/** The body of `POST /api/auth/two-factor/confirm`: the code the app shows for the new secret. */
export const CONFIRM_TWO_FACTOR_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { code: TOTP_CODE },
  required: ['code'],
  additionalProperties: false,
};

/** The body of `POST /api/auth/two-factor/disable`: a current code, a recovery code or the password. */
export const DISABLE_TWO_FACTOR_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    code: TOTP_CODE,
    recoveryCode: RECOVERY_CODE,
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
  minProperties: 1,
  maxProperties: 1,
  additionalProperties: false,
};

/** What `POST /api/auth/two-factor/enrol` answers: the new secret, three ways. */
export const ENROLMENT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    secret: { type: 'string', description: 'The secret in base32, for typing into an app.' },
    uri: { type: 'string', description: 'The `otpauth://totp/…` address the QR code holds.' },
    qr: { type: 'string', description: 'The QR code: a `data:image/svg+xml;base64,…` URL for an `<img>`.' },
  },
  required: ['secret', 'uri', 'qr'],
  additionalProperties: false,
};

/** What `POST /api/auth/two-factor/confirm` answers: the recovery codes, shown this once. */
export const RECOVERY_CODES_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    recoveryCodes: {
      type: 'array',
      items: { type: 'string' },
      minItems: 10,
      maxItems: 10,
      description:
        'Ten codes, each usable once instead of a code from the app. Shown this once: only their hashes are kept.',
    },
  },
  required: ['recoveryCodes'],
  additionalProperties: false,
};

/** `GET /api/auth/me`'s `twoFactor`. */
export const TWO_FACTOR_STATUS_SCHEMA: JsonSchema = {
  description: "The signed-in user's two-factor sign-in; null when signed out.",
  anyOf: [
    {
      type: 'object',
      properties: {
        enabled: { type: 'boolean', description: 'Whether their sign-in asks for a code.' },
        required: {
          type: 'boolean',
          description:
            "Whether one of their roles requires it (point 6's sign in column): until enabled, they may do nothing but set it up.",
        },
        recoveryCodesLeft: { type: 'integer', minimum: 0 },
      },
      required: ['enabled', 'required', 'recoveryCodesLeft'],
      additionalProperties: false,
    },
    { type: 'null' },
  ],
};

/** A WebAuthn credential as `@simplewebauthn/browser` answers it (checked by the library). */
const WEBAUTHN_CREDENTIAL: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 1024 },
    rawId: { type: 'string', maxLength: 1024 },
    type: { type: 'string', enum: ['public-key'] },
    response: { type: 'object' },
  },
  required: ['id', 'rawId', 'type', 'response'],
};

/** The body of `POST /api/auth/passkeys/register`: the new credential, and a name to know it by. */
export const PASSKEY_REGISTER_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    credential: WEBAUTHN_CREDENTIAL,
    name: {
      type: 'string',
      maxLength: 100,
      description: 'What the user calls it ("Work laptop"); a dated name if left out.',
    },
  },
  required: ['credential'],
  additionalProperties: false,
};

/** The body of `POST /api/auth/passkeys/sign-in`: the authenticator's assertion. */
export const PASSKEY_SIGN_IN_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { credential: WEBAUTHN_CREDENTIAL },
  required: ['credential'],
  additionalProperties: false,
};

/** One passkey as listed. */
export const PASSKEY_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'The credential id (base64url).' },
    name: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    lastUsedAt: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
  },
  required: ['id', 'name', 'createdAt', 'lastUsedAt'],
  additionalProperties: false,
};
