import { uuidv7 } from '../http/values.ts';
import { type AuthStore, normalizeEmail, type UserAccount } from '../store/auth-store.ts';
import { hashPassword, passwordProblem } from './passwords.ts';
import { newSecret, secretHash } from './secrets.ts';

/** Why an account cannot be made as asked; the message says what to change. */
export class AccountError extends Error {
  override name = 'AccountError';
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * Adds a user with a password (hashed with argon2id; the password itself is kept nowhere).
 * `knownRoles` is the spec's roles: a role outside it is refused, so that a typo cannot create a
 * user with no access. Throws `AccountError` for a bad email, a weak password or a taken email.
 */
export async function addUser(
  auth: AuthStore,
  input: { email: string; name?: string; roles: readonly string[]; password: string },
  knownRoles: readonly string[],
): Promise<UserAccount> {
  const email = checkEmail(input.email);
  checkRoles(input.roles, knownRoles);
  const weak = passwordProblem(input.password);
  if (weak) throw new AccountError(weak);
  const user = await auth.addUser({
    id: uuidv7(Date.now()),
    email,
    name: input.name?.trim() || email.split('@')[0] || email,
    roles: [...new Set(input.roles)],
    passwordHash: await hashPassword(input.password),
    createdAt: new Date().toISOString(),
  });
  if (!user) throw new AccountError(`A user with the email ${email} exists already.`);
  return user;
}

/** How an account came to be, for whoever records it (history of accounts). */
export type AccountOrigin =
  | { via: 'sign-up' }
  | { via: 'invitation'; invitationId: string; invitedBy: string }
  | { via: 'single-sign-on'; issuer: string };

/**
 * Creates the account of someone who joined by themselves: a confirmed sign-up, an accepted
 * invitation, or a first single sign-on. Every account made through the app (not the terminal)
 * is made here, with a password already hashed (argon2id) when it was chosen. Undefined when the
 * email has an account already.
 */
export async function createJoinedAccount(
  auth: AuthStore,
  input: { email: string; name: string; roles: readonly string[]; passwordHash: string },
  _origin: AccountOrigin,
  now: number = Date.now(),
): Promise<UserAccount | undefined> {
  const email = checkEmail(input.email);
  return auth.addUser({
    id: uuidv7(now),
    email,
    name: input.name.trim() || email.split('@')[0] || email,
    roles: [...new Set(input.roles)],
    passwordHash: input.passwordHash,
    createdAt: new Date(now).toISOString(),
  });
}

/** The email as it is stored (trimmed, lowercase); throws `AccountError` when it is not an email address. */
export function checkEmail(email: string): string {
  const normalized = normalizeEmail(email);
  if (!EMAIL.test(normalized) || normalized.length > 320) throw new AccountError(`"${email}" is not an email address.`);
  return normalized;
}

/** Refuses roles the spec does not define (with no roles in the spec, none may be given). */
export function checkRoles(roles: readonly string[], knownRoles: readonly string[]): void {
  const unknown = roles.filter((r) => !knownRoles.includes(r));
  if (unknown.length === 0) return;
  const known =
    knownRoles.length > 0
      ? `The spec's roles are: ${knownRoles.join(', ')}.`
      : 'The spec defines no roles (point 6 is not shown).';
  throw new AccountError(`Unknown role${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}. ${known}`);
}

/**
 * Creates an API token for a user and answers its secret, which is shown this once: only its
 * hash is stored.
 */
export async function createApiToken(
  auth: AuthStore,
  email: string,
  name: string,
): Promise<{ id: string; secret: string; user: UserAccount }> {
  const user = await auth.userByEmail(email);
  if (!user) throw new AccountError(`There is no user with the email ${normalizeEmail(email)}.`);
  const secret = newSecret('token');
  const id = uuidv7(Date.now());
  await auth.createToken({
    id,
    userId: user.id,
    name: name.trim() || 'token',
    hash: secretHash(secret),
    now: Date.now(),
  });
  return { id, secret, user };
}
