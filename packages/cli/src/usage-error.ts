/**
 * A problem with how the command was called or with the files it names (exit code 2). Its
 * message is shown as is, without a stack trace: it is addressed to the user, not to a developer.
 */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * Exit codes, documented in `ninepoint --help`. 1 is also a refusal: a migration that could lose
 * data, or a users or tokens command the spec or the database refuses (an unknown role, a taken email).
 */
export const EXIT = { ok: 0, specHasErrors: 1, refused: 1, usage: 2 } as const;
