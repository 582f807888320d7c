import { USERS_TABLE } from '../store/users-table.ts';

/** A user account as the runtime and the CLI see it: never its password hash. */
export interface UserAccount {
  id: string;
  email: string;
  name: string;
  roles: string[];
  /** ISO 8601. */
  createdAt: string;
}

/** A user account as those who manage people see it: whether it is active, and since when not. */
export interface ManagedAccount extends UserAccount {
  active: boolean;
  /** ISO 8601; null while the account is active. */
  deactivatedAt: string | null;
}

/** A row of the users table, as every people store reads it. */
export interface UserRow {
  id: string;
  email: string;
  name: string;
  roles: string;
  password_hash: string;
  created_at: string;
  deactivated_at: string | null;
}

export const USER_COLUMNS = '"id", "email", "name", "roles", "password_hash", "created_at", "deactivated_at"';
export const ACCOUNT_COLUMNS = '"id", "email", "name", "roles", "created_at", "deactivated_at"';

/** Emails compare without case or surrounding space: `Ada@Example.org ` is `ada@example.org`. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function account(row: Omit<UserRow, 'password_hash'>): UserAccount {
  let roles: string[] = [];
  try {
    const parsed: unknown = JSON.parse(row.roles);
    if (Array.isArray(parsed)) roles = parsed.filter((r): r is string => typeof r === 'string');
  } catch {
    // A hand-edited row: no roles is the safe reading.
  }
  return { id: row.id, email: row.email, name: row.name, roles, createdAt: row.created_at };
}

/** The account without its status: what `/api/auth/me` and the directory show. */
export function plainAccount({ id, email, name, roles, createdAt }: ManagedAccount): UserAccount {
  return { id, email, name, roles, createdAt };
}

export function managed(row: Omit<UserRow, 'password_hash'>): ManagedAccount {
  return { ...account(row), active: row.deactivated_at === null, deactivatedAt: row.deactivated_at };
}

/**
 * The user of a session or token row (`owner`: its "user_id"), as columns of that row, each a
 * correlated subquery on the users' primary key; `user_active` is null when there is no such user.
 * Not a join: SQLite's STAT4 build plans a join on a bound value again at every run, about twice
 * what the whole lookup costs; these subqueries are planned once. One statement is one round trip
 * on PostgreSQL.
 */
export function userOf(owner: string): string {
  const column = (expression: string, alias: string) =>
    `(SELECT ${expression} FROM "${USERS_TABLE}" WHERE "id" = ${owner}) AS "${alias}"`;
  return [
    `${owner} AS "user_id"`,
    column('"email"', 'user_email'),
    column('"name"', 'user_name'),
    column('"roles"', 'user_roles'),
    column('"created_at"', 'user_created_at'),
    column('"deactivated_at" IS NULL', 'user_active'),
  ].join(', ');
}

export interface UserOfRow {
  user_id: string;
  user_email: string | null;
  user_name: string;
  user_roles: string;
  user_created_at: string;
  /** 1 or true when active, 0 or false when deactivated, null when there is no such user. */
  user_active: number | boolean | null;
}

/** The user of a session or token row, if there is one and it is active. */
export function activeUserOf(row: UserOfRow): UserAccount | undefined {
  if (!row.user_active) return undefined;
  return account({
    id: row.user_id,
    email: row.user_email as string,
    name: row.user_name,
    roles: row.user_roles,
    created_at: row.user_created_at,
    deactivated_at: null,
  });
}
