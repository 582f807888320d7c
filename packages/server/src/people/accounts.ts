import { uuidv7 } from '../store/uuidv7.ts';
import type { AuthStore } from './auth-store.ts';
import { hashPassword, passwordProblem } from './passwords.ts';
import { newSecret, secretHash } from './secrets.ts';
import { normalizeEmail } from './user-rows.ts';
import type { AccountEvent, AccountHistoryEntry, ManagedAccount, UserAccount } from './users-store.ts';

/**
 * Why an account cannot be made or changed as asked; the message says what to change, the code
 * (when there is one) is the runtime's answer to the same refusal over HTTP.
 */
export class AccountError extends Error {
  override name = 'AccountError';
  readonly code: 'NOT_FOUND' | 'UNKNOWN_ROLE' | 'CANNOT_DEACTIVATE_SELF' | 'LAST_MANAGER' | null;

  constructor(message: string, code: AccountError['code'] = null) {
    super(message);
    this.code = code;
  }
}

/**
 * Keeps one entry of an account's history: what happened, who did it (a user's id; null at the
 * server's terminal) and when. Every change to an account goes through here: adding one at the
 * terminal, signing up, accepting an invitation, role changes, deactivation, reactivation and
 * password resets.
 *
 * @example
 * await recordAccountEvent(auth, user.id, { kind: 'created', how: 'invitation', roles: ['doctor'] }, inviter.id);
 */
export async function recordAccountEvent(
  auth: AuthStore,
  userId: string,
  event: AccountEvent,
  by: string | null,
  at: number = Date.now(),
): Promise<AccountHistoryEntry> {
  const entry = { ...event, id: uuidv7(at), at: new Date(at).toISOString(), by };
  await auth.users.addEvent({ ...entry, userId });
  return entry;
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
  origin: { how: 'terminal' | 'sign-up' | 'invitation'; by: string | null } = { how: 'terminal', by: null },
): Promise<UserAccount> {
  const email = checkEmail(input.email);
  checkRoles(input.roles, knownRoles);
  const weak = passwordProblem(input.password);
  if (weak) throw new AccountError(weak);
  const user = await auth.users.add({
    id: uuidv7(Date.now()),
    email,
    name: input.name?.trim() || email.split('@')[0] || email,
    roles: [...new Set(input.roles)],
    passwordHash: await hashPassword(input.password),
    createdAt: new Date().toISOString(),
  });
  if (!user) throw new AccountError(`A user with the email ${email} exists already.`);
  // A sign-up is the person's own doing; the caller names who else made the account.
  const by = origin.how === 'sign-up' ? user.id : origin.by;
  await recordAccountEvent(auth, user.id, { kind: 'created', how: origin.how, roles: user.roles }, by);
  return user;
}

/** A change to an account by someone who manages people (`PATCH /api/users/:id`, `ninepoint users`). */
export interface AccountChange {
  roles?: readonly string[];
  active?: boolean;
}

export interface AccountChangeContext {
  /** Who makes the change: a user's id, or null at the server's terminal. */
  by: string | null;
  /** The roles a user may be given (the spec's, but `anyone`). */
  knownRoles: readonly string[];
  /** Whether these roles let their holder manage people (point 6's `people` column: `manage`). */
  manages: (roles: readonly string[]) => boolean;
  now?: number;
}

/**
 * Changes an account's roles and whether it is active, recording each change in its history.
 * Refuses (AccountError, with its code) an unknown user or role, a user deactivating their own
 * account, and a change after which no active account could manage people. The terminal (`by`
 * null) may leave nobody managing people: it is how an app is set right.
 */
export async function changeAccount(
  auth: AuthStore,
  userId: string,
  change: AccountChange,
  context: AccountChangeContext,
): Promise<ManagedAccount> {
  const before = await auth.users.managed(userId);
  if (!before) throw new AccountError('There is no such user.', 'NOT_FOUND');
  const roles = change.roles === undefined ? undefined : [...new Set(change.roles)];
  if (roles !== undefined) {
    try {
      checkRoles(roles, context.knownRoles);
    } catch (error) {
      throw error instanceof AccountError ? new AccountError(error.message, 'UNKNOWN_ROLE') : error;
    }
  }
  const active = change.active ?? before.active;
  if (!active && before.active && context.by === userId) {
    throw new AccountError('You cannot deactivate your own account.', 'CANNOT_DEACTIVATE_SELF');
  }
  const rolesAfter = roles ?? before.roles;
  if (
    context.by !== null &&
    before.active &&
    context.manages(before.roles) &&
    !(active && context.manages(rolesAfter))
  ) {
    const others = (await auth.users.active()).filter((u) => u.id !== userId && context.manages(u.roles));
    if (others.length === 0) {
      throw new AccountError(
        `${before.name} is the last active account that may manage people; give someone else such a role first.`,
        'LAST_MANAGER',
      );
    }
  }
  const at = context.now ?? Date.now();
  if (roles !== undefined && !sameRoles(roles, before.roles)) {
    await auth.users.setRolesOf(userId, roles);
    await recordAccountEvent(auth, userId, { kind: 'roles-changed', from: before.roles, to: roles }, context.by, at);
  }
  if (active !== before.active) {
    const changed = await auth.setDeactivated(userId, active ? null : new Date(at).toISOString());
    if (changed) {
      await recordAccountEvent(auth, userId, { kind: active ? 'reactivated' : 'deactivated' }, context.by, at);
    }
  }
  const after = await auth.users.managed(userId);
  if (!after) throw new AccountError('There is no such user.', 'NOT_FOUND');
  return after;
}

function sameRoles(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((role) => b.includes(role));
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
  origin: AccountOrigin,
  now: number = Date.now(),
): Promise<UserAccount | undefined> {
  const email = checkEmail(input.email);
  const created = await auth.users.add({
    id: uuidv7(now),
    email,
    name: input.name.trim() || email.split('@')[0] || email,
    roles: [...new Set(input.roles)],
    passwordHash: input.passwordHash,
    createdAt: new Date(now).toISOString(),
  });
  if (created) {
    // An invitee's account is made by whoever invited them; the others make their own.
    const by = origin.via === 'invitation' ? origin.invitedBy : created.id;
    await recordAccountEvent(auth, created.id, { kind: 'created', how: origin.via, roles: created.roles }, by, now);
  }
  return created;
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
  const user = await auth.users.byEmail(email);
  if (!user) throw new AccountError(`There is no user with the email ${normalizeEmail(email)}.`);
  const secret = newSecret('token');
  const id = uuidv7(Date.now());
  await auth.tokens.create({
    id,
    userId: user.id,
    name: name.trim() || 'token',
    hash: secretHash(secret),
    now: Date.now(),
  });
  return { id, secret, user };
}
