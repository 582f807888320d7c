import type { SqlRunner } from '../store/sql-runner.ts';
import { USERS_TABLE } from '../store/users-table.ts';
import {
  ACCOUNT_COLUMNS,
  account,
  type ManagedAccount,
  managed,
  normalizeEmail,
  plainAccount,
  USER_COLUMNS,
  type UserAccount,
  type UserRow,
} from './user-rows.ts';

export type { ManagedAccount, UserAccount };

/** What happened to an account, as its history keeps it (`recordAccountEvent` in accounts.ts). */
export type AccountEvent =
  | { kind: 'created'; how: 'terminal' | 'sign-up' | 'invitation' | 'single-sign-on'; roles: string[] }
  | { kind: 'roles-changed'; from: string[]; to: string[] }
  | { kind: 'deactivated' }
  | { kind: 'reactivated' }
  | { kind: 'password-reset'; how: 'email' | 'terminal' }
  | { kind: 'two-factor-enabled' }
  | { kind: 'two-factor-disabled' }
  | { kind: 'two-factor-reset' }
  | { kind: 'recovery-code-used'; left: number }
  | { kind: 'passkey-added' }
  | { kind: 'passkey-removed' };

/** One entry of an account's history: when, what, and who did it (null: at the server's terminal). */
export type AccountHistoryEntry = AccountEvent & { id: string; at: string; by: string | null };

export const ACCOUNT_EVENTS_TABLE = '_ninepoint_account_events';

/** The users table and each account's history (`_ninepoint_account_events`). */
export const USERS_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS "${USERS_TABLE}" (
  "id" TEXT PRIMARY KEY,
  "email" TEXT NOT NULL UNIQUE,
  "name" TEXT NOT NULL,
  "roles" TEXT NOT NULL,
  "password_hash" TEXT NOT NULL,
  "created_at" TEXT NOT NULL,
  "deactivated_at" TEXT
)`,
  // "by_id" is not a foreign key: who changed an account may be removed later, the entry stays.
  `CREATE TABLE IF NOT EXISTS "${ACCOUNT_EVENTS_TABLE}" (
  "id" TEXT PRIMARY KEY,
  "user_id" TEXT NOT NULL REFERENCES "${USERS_TABLE}" ("id") ON DELETE CASCADE,
  "at" TEXT NOT NULL,
  "by_id" TEXT,
  "event" TEXT NOT NULL
)`,
  `CREATE INDEX IF NOT EXISTS "${ACCOUNT_EVENTS_TABLE}_user_idx" ON "${ACCOUNT_EVENTS_TABLE}" ("user_id", "id")`,
];

/**
 * Columns added to the runtime's tables after they were first made: `CREATE TABLE IF NOT EXISTS`
 * leaves an existing table as it is, so `setUp` adds each one an older database lacks. Only
 * nullable columns, which every existing row reads as NULL.
 */
export const AUTH_ADDED_COLUMNS: readonly { table: string; column: string; type: 'TEXT' | 'BIGINT' }[] = [
  { table: USERS_TABLE, column: 'deactivated_at', type: 'TEXT' },
];

/** User accounts (never a password hash outside sign-in) and their history. */
export class UsersStore {
  readonly #sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.#sql = sql;
  }

  /** Adds a user; undefined when the email is taken. */
  async add(user: {
    id: string;
    email: string;
    name: string;
    roles: readonly string[];
    passwordHash: string;
    createdAt: string;
  }): Promise<UserAccount | undefined> {
    const email = normalizeEmail(user.email);
    const changed = await this.#sql.run(
      `INSERT INTO "${USERS_TABLE}" ("id", "email", "name", "roles", "password_hash", "created_at")
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT ("email") DO NOTHING`,
      [user.id, email, user.name, JSON.stringify([...user.roles]), user.passwordHash, user.createdAt],
    );
    if (changed === 0) return undefined;
    return { id: user.id, email, name: user.name, roles: [...user.roles], createdAt: user.createdAt };
  }

  /** A user, their password hash and whether they are active, by email: for sign-in only. */
  async forSignIn(email: string): Promise<{ user: UserAccount; passwordHash: string; active: boolean } | undefined> {
    const row = await this.#sql.get<UserRow>(`SELECT ${USER_COLUMNS} FROM "${USERS_TABLE}" WHERE "email" = ?`, [
      normalizeEmail(email),
    ]);
    return row
      ? { user: account(row), passwordHash: row.password_hash, active: row.deactivated_at === null }
      : undefined;
  }

  /** A user, active or deactivated. */
  async get(id: string): Promise<UserAccount | undefined> {
    const found = await this.managed(id);
    return found ? plainAccount(found) : undefined;
  }

  /** A user with whether they are active, for those who manage people. */
  async managed(id: string): Promise<ManagedAccount | undefined> {
    const row = await this.#sql.get<Omit<UserRow, 'password_hash'>>(
      `SELECT ${ACCOUNT_COLUMNS} FROM "${USERS_TABLE}" WHERE "id" = ?`,
      [id],
    );
    return row ? managed(row) : undefined;
  }

  async byEmail(email: string): Promise<UserAccount | undefined> {
    return (await this.forSignIn(email))?.user;
  }

  /** An active user by email: whom a password reset link may be sent to. */
  async activeByEmail(email: string): Promise<UserAccount | undefined> {
    const found = await this.forSignIn(email);
    return found?.active ? found.user : undefined;
  }

  /** Every user, by email. */
  async all(): Promise<UserAccount[]> {
    const rows = await this.#sql.all<UserRow>(`SELECT ${USER_COLUMNS} FROM "${USERS_TABLE}" ORDER BY "email"`);
    return rows.map(account);
  }

  /**
   * Users whose name (or email too, `within`) contains `text` (case-insensitively for ASCII), by
   * name, at most `limit`. Reference pickers search names only: they are not shown emails, and
   * what a search matches, or how it orders, tells what it matched on. Pickers (`name`) are not
   * offered deactivated users.
   */
  async find(text: string, limit: number, within: 'name' | 'name or email' = 'name or email'): Promise<UserAccount[]> {
    const pattern = `%${text.replace(/[\\%_]/g, '\\$&').toLowerCase()}%`;
    const byEmail = within === 'name or email';
    const rows = await this.#sql.all<UserRow>(
      `SELECT ${USER_COLUMNS} FROM "${USERS_TABLE}"
       WHERE ${byEmail ? `lower("email") LIKE ? ESCAPE '\\' OR ` : `"deactivated_at" IS NULL AND `}lower("name") LIKE ? ESCAPE '\\'
       ORDER BY "name", ${byEmail ? '"email"' : '"id"'} LIMIT ?`,
      byEmail ? [pattern, pattern, limit] : [pattern, limit],
    );
    return rows.map(account);
  }

  /** The users with these ids (those that exist), by name. */
  async byIds(ids: readonly string[]): Promise<UserAccount[]> {
    const found: UserAccount[] = [];
    for (const id of new Set(ids)) {
      const user = await this.get(id);
      if (user) found.push(user);
    }
    return found.sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * A page of every account, active or not, for those who manage people: those whose name or
   * email contains `text`, by name then email, with how many match in all.
   */
  async page(text: string, limit: number, offset: number): Promise<{ items: ManagedAccount[]; total: number }> {
    const pattern = `%${text.replace(/[\\%_]/g, '\\$&').toLowerCase()}%`;
    const where = `WHERE lower("email") LIKE ? ESCAPE '\\' OR lower("name") LIKE ? ESCAPE '\\'`;
    const rows = await this.#sql.all<Omit<UserRow, 'password_hash'>>(
      `SELECT ${ACCOUNT_COLUMNS} FROM "${USERS_TABLE}" ${where} ORDER BY "name", "email" LIMIT ? OFFSET ?`,
      [pattern, pattern, limit, offset],
    );
    const count = await this.#sql.get<{ n: number | string }>(`SELECT count(*) AS "n" FROM "${USERS_TABLE}" ${where}`, [
      pattern,
      pattern,
    ]);
    return { items: rows.map(managed), total: Number(count?.n ?? 0) };
  }

  /** Every account with its status, by email: for `ninepoint users list`. */
  async accounts(): Promise<ManagedAccount[]> {
    const rows = await this.#sql.all<Omit<UserRow, 'password_hash'>>(
      `SELECT ${ACCOUNT_COLUMNS} FROM "${USERS_TABLE}" ORDER BY "email"`,
    );
    return rows.map(managed);
  }

  /** Every active account: whom `LAST_MANAGER` counts. */
  async active(): Promise<UserAccount[]> {
    const rows = await this.#sql.all<Omit<UserRow, 'password_hash'>>(
      `SELECT ${ACCOUNT_COLUMNS} FROM "${USERS_TABLE}" WHERE "deactivated_at" IS NULL ORDER BY "email"`,
    );
    return rows.map(account);
  }

  /** Replaces the roles of the user with this id; false when there is no such user. */
  async setRolesOf(userId: string, roles: readonly string[]): Promise<boolean> {
    const changed = await this.#sql.run(`UPDATE "${USERS_TABLE}" SET "roles" = ? WHERE "id" = ?`, [
      JSON.stringify([...roles]),
      userId,
    ]);
    return changed > 0;
  }

  /** Keeps one entry of an account's history (see `recordAccountEvent`). */
  async addEvent(entry: AccountHistoryEntry & { userId: string }): Promise<void> {
    const { id, userId, at, by, ...event } = entry;
    await this.#sql.run(
      `INSERT INTO "${ACCOUNT_EVENTS_TABLE}" ("id", "user_id", "at", "by_id", "event") VALUES (?, ?, ?, ?, ?)`,
      [id, userId, at, by, JSON.stringify(event)],
    );
  }

  /** An account's history, oldest first. */
  async history(userId: string): Promise<AccountHistoryEntry[]> {
    const rows = await this.#sql.all<{ id: string; at: string; by_id: string | null; event: string }>(
      `SELECT "id", "at", "by_id", "event" FROM "${ACCOUNT_EVENTS_TABLE}" WHERE "user_id" = ? ORDER BY "id"`,
      [userId],
    );
    return rows.map((row) => ({ ...(JSON.parse(row.event) as AccountEvent), id: row.id, at: row.at, by: row.by_id }));
  }

  async count(): Promise<number> {
    const row = await this.#sql.get<{ n: number | string }>(`SELECT count(*) AS "n" FROM "${USERS_TABLE}"`);
    return Number(row?.n ?? 0);
  }

  /** Replaces a user's roles; false when there is no such user. */
  async setRoles(email: string, roles: readonly string[]): Promise<boolean> {
    const changed = await this.#sql.run(`UPDATE "${USERS_TABLE}" SET "roles" = ? WHERE "email" = ?`, [
      JSON.stringify([...roles]),
      normalizeEmail(email),
    ]);
    return changed > 0;
  }

  /** An active user: a deactivated one's sessions and tokens authenticate nobody. */
  async activeById(id: string): Promise<UserAccount | undefined> {
    const found = await this.managed(id);
    return found?.active ? plainAccount(found) : undefined;
  }

  /** Marks an account deactivated (an ISO time) or active (null); false when it already is so. */
  async setDeactivated(userId: string, at: string | null): Promise<boolean> {
    const changed = await this.#sql.run(
      `UPDATE "${USERS_TABLE}" SET "deactivated_at" = ? WHERE "id" = ? AND "deactivated_at" IS ${at === null ? 'NOT ' : ''}NULL`,
      [at, userId],
    );
    return changed > 0;
  }

  /** Replaces a user's password hash; false when there is no such user. */
  async setPasswordHash(userId: string, passwordHash: string): Promise<boolean> {
    const changed = await this.#sql.run(`UPDATE "${USERS_TABLE}" SET "password_hash" = ? WHERE "id" = ?`, [
      passwordHash,
      userId,
    ]);
    return changed > 0;
  }

  /** Deletes a user's history and then the user. */
  async remove(userId: string): Promise<void> {
    await this.#sql.run(`DELETE FROM "${ACCOUNT_EVENTS_TABLE}" WHERE "user_id" = ?`, [userId]);
    await this.#sql.run(`DELETE FROM "${USERS_TABLE}" WHERE "id" = ?`, [userId]);
  }
}
