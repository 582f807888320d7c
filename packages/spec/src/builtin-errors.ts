import type { ErrorCode, Model } from './model.ts';

/**
 * The runtime's built-in problem codes. A spec may list any of them in point 8 to change its
 * status or message; placeholders in braces are filled in by the runtime.
 */
export const BUILTIN_ERRORS = {
  NOT_FOUND: { status: 404, message: 'No {entity} with id {id} was found.' },
  UNKNOWN_CALL: { status: 404, message: 'There is no such call.' },
  NOT_SIGNED_IN: { status: 401, message: 'Sign in to do this.' },
  FORBIDDEN: { status: 403, message: 'You may not do this.' },
  INVALID_PAYLOAD: { status: 400, message: 'The request is not valid: {detail}.' },
  VALIDATION_FAILED: { status: 422, message: 'Some fields are not valid.' },
  REQUIRED: { status: 422, message: '{field} is required.' },
  INVALID_TYPE: { status: 422, message: '{field} must be {type}.' },
  TOO_SHORT: { status: 422, message: '{field} must be at least {min} characters long.' },
  TOO_LONG: { status: 422, message: '{field} must be at most {max} characters long.' },
  OUT_OF_RANGE: { status: 422, message: '{field} must be between {min} and {max}.' },
  PATTERN_MISMATCH: { status: 422, message: '{field} is not in the expected format.' },
  INVALID_CHOICE: { status: 422, message: '{field} must be one of {values}.' },
  NOT_UNIQUE: { status: 409, message: 'Another {entity} already has this {field}.' },
  UNKNOWN_REFERENCE: { status: 422, message: '{field} refers to a record that does not exist.' },
  READ_ONLY_FIELD: { status: 422, message: '{field} cannot be set directly.' },
  TRANSITION_NOT_ALLOWED: { status: 409, message: '{transition} is not allowed when the {entity} is {state}.' },
  CONFLICT: { status: 409, message: 'This {entity} was changed by someone else. Reload it and try again.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is larger than {limit} bytes.' },
  RATE_LIMITED: { status: 429, message: 'Too many requests. Try again in a minute.' },
  SIGN_IN_FAILED: { status: 401, message: 'The email or password is not right.' },
  SIGN_IN_LOCKED: { status: 429, message: 'Too many failed sign-ins. Try again later.' },
  RESET_LINK_INVALID: { status: 400, message: 'This reset link was used already or has expired. Ask for a new one.' },
  ACCOUNT_DEACTIVATED: { status: 403, message: 'This account is deactivated. Ask an administrator to reactivate it.' },
  CANNOT_DEACTIVATE_SELF: { status: 409, message: 'You cannot deactivate your own account.' },
  LAST_MANAGER: { status: 409, message: 'At least one active account must keep a role that manages people.' },
  SIGN_UP_DOMAIN: { status: 422, message: 'This role is open to email addresses at {values} only.' },
  VERIFY_LINK_INVALID: {
    status: 400,
    message: 'This confirmation link was used already or has expired. Sign up again to get a new one.',
  },
  INVITATION_INVALID: {
    status: 400,
    message: 'This invitation was used already, revoked or has expired. Ask for a new one.',
  },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The body must be {type}.' },
  IMPORT_UNREADABLE: { status: 400, message: 'The file cannot be imported: {detail}.' },
  IMPORT_REFUSED: { status: 422, message: 'Some rows cannot be imported, so nothing was imported.' },
  TWO_FACTOR_FAILED: { status: 401, message: 'The code is not right, or it was used already.' },
  TWO_FACTOR_EXPIRED: { status: 401, message: 'This sign-in has expired. Sign in with your password again.' },
  TWO_FACTOR_REQUIRED: {
    status: 403,
    message: 'Your role requires two-factor sign-in. Set it up before you go on.',
  },
  TWO_FACTOR_ENABLED: {
    status: 409,
    message: 'Two-factor sign-in is on already. Turn it off first to set it up again.',
  },
  INTERNAL_ERROR: { status: 500, message: 'Something went wrong on our side. It has been logged.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type BuiltinErrorCode = keyof typeof BUILTIN_ERRORS;

/** Placeholders the runtime fills in for any message, besides constants and the record's fields. */
export const BUILTIN_PLACEHOLDERS = new Set([
  'field',
  'entity',
  'id',
  'state',
  'transition',
  'min',
  'max',
  'values',
  'type',
  'value',
  'limit',
  'detail',
]);

/** The complete catalogue the runtime answers with: built-ins, overridden or extended by point 8. */
export function errorCatalogue(model: Pick<Model, 'errors'>): ErrorCode[] {
  const declared = new Map(model.errors.map((e) => [e.code, e]));
  const builtins = Object.entries(BUILTIN_ERRORS).map(
    ([code, e]): ErrorCode =>
      declared.get(code) ?? { code, status: e.status, message: e.message, builtin: true, span: null },
  );
  return [...builtins, ...model.errors.filter((e) => !(e.code in BUILTIN_ERRORS))];
}
