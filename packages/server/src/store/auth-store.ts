import { andThen, type SqlRunner } from './sql-runner.ts';
import type { MaybePromise } from './step.ts';

/** A user account as the runtime and the CLI see it: never its password hash. */
export interface UserAccount {
  id: string;
  email: string;
  name: string;
  roles: string[];
  /** ISO 8601. */
  createdAt: string;
}

/** A session as a request finds it: whose it is and when it ends. Times are epoch milliseconds. */
export interface SessionFound {
  user: UserAccount;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
}

/** An unrevoked token as a request finds it: whose it is, and when it was last used (epoch ms). */
export interface TokenFound {
  tokenId: string;
  user: UserAccount;
  lastUsedAt: number | null;
}

export interface TokenInfo {
  id: string;
  userId: string;
  email: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export const USERS_TABLE = '_ninepoint_users';
export const SESSIONS_TABLE = '_ninepoint_sessions';
export const TOKENS_TABLE = '_ninepoint_tokens';
export const RATE_TABLE = '_ninepoint_rate_limits';
export const PASSWORD_RESETS_TABLE = '_ninepoint_password_resets';
export const ACCOUNT_EVENTS_TABLE = '_ninepoint_account_events';

/** A user account as those who manage people see it: whether it is active, and since when not. */
export interface ManagedAccount extends UserAccount {
  active: boolean;
  /** ISO 8601; null while the account is active. */
  deactivatedAt: string | null;
}

/** What happened to an account, as its history keeps it (`recordAccountEvent` in auth/accounts.ts). */
export type AccountEvent =
  | { kind: 'created'; how: 'terminal' | 'sign-up' | 'invitation' | 'single-sign-on'; roles: string[] }
  | { kind: 'roles-changed'; from: string[]; to: string[] }
  | { kind: 'deactivated' }
  | { kind: 'reactivated' }
  | { kind: 'password-reset'; how: 'email' | 'terminal' };

/** One entry of an account's history: when, what, and who did it (null: at the server's terminal). */
export type AccountHistoryEntry = AccountEvent & { id: string; at: string; by: string | null };

/**
 * The runtime's own tables, the same on both databases (types both accept: TEXT and BIGINT; times
 * as epoch milliseconds). Sessions, tokens and password reset links keep only the SHA-256 of their
 * secret. Deleting a user deletes their sessions, tokens and reset links with them.
 */
export const AUTH_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS "${USERS_TABLE}" (
  "id" TEXT PRIMARY KEY,
  "email" TEXT NOT NULL UNIQUE,
  "name" TEXT NOT NULL,
  "roles" TEXT NOT NULL,
  "password_hash" TEXT NOT NULL,
  "created_at" TEXT NOT NULL,
  "deactivated_at" TEXT
)`,
  `CREATE TABLE IF NOT EXISTS "${SESSIONS_TABLE}" (
  "id_hash" TEXT PRIMARY KEY,
  "user_id" TEXT NOT NULL REFERENCES "${USERS_TABLE}" ("id") ON DELETE CASCADE,
  "created_at" BIGINT NOT NULL,
  "last_seen_at" BIGINT NOT NULL,
  "expires_at" BIGINT NOT NULL
)`,
  `CREATE INDEX IF NOT EXISTS "${SESSIONS_TABLE}_user_idx" ON "${SESSIONS_TABLE}" ("user_id")`,
  `CREATE TABLE IF NOT EXISTS "${TOKENS_TABLE}" (
  "id" TEXT PRIMARY KEY,
  "user_id" TEXT NOT NULL REFERENCES "${USERS_TABLE}" ("id") ON DELETE CASCADE,
  "name" TEXT NOT NULL,
  "token_hash" TEXT NOT NULL UNIQUE,
  "created_at" BIGINT NOT NULL,
  "last_used_at" BIGINT,
  "revoked_at" BIGINT
)`,
  `CREATE INDEX IF NOT EXISTS "${TOKENS_TABLE}_user_idx" ON "${TOKENS_TABLE}" ("user_id")`,
  `CREATE TABLE IF NOT EXISTS "${RATE_TABLE}" (
  "key" TEXT NOT NULL,
  "window_start" BIGINT NOT NULL,
  "hits" BIGINT NOT NULL,
  PRIMARY KEY ("key", "window_start")
)`,
  `CREATE TABLE IF NOT EXISTS "${PASSWORD_RESETS_TABLE}" (
  "token_hash" TEXT PRIMARY KEY,
  "user_id" TEXT NOT NULL REFERENCES "${USERS_TABLE}" ("id") ON DELETE CASCADE,
  "created_at" BIGINT NOT NULL,
  "expires_at" BIGINT NOT NULL,
  "used_at" BIGINT
)`,
  `CREATE INDEX IF NOT EXISTS "${PASSWORD_RESETS_TABLE}_user_idx" ON "${PASSWORD_RESETS_TABLE}" ("user_id")`,
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

/**
 * A user as rules and guards see one through a field referring to `User` (`borrower.name`): the
 * fields of CEL's `User` type, roles as JSON text. Never the password hash.
 */
export const USER_FOR_EXPRESSIONS_SQL = `SELECT "id", "email", "name", "roles" FROM "${USERS_TABLE}" WHERE "id" = ?`;

interface UserRow {
  id: string;
  email: string;
  name: string;
  roles: string;
  password_hash: string;
  created_at: string;
  deactivated_at: string | null;
}

const USER_COLUMNS = '"id", "email", "name", "roles", "password_hash", "created_at", "deactivated_at"';
const ACCOUNT_COLUMNS = '"id", "email", "name", "roles", "created_at", "deactivated_at"';

/** Emails compare without case or surrounding space: `Ada@Example.org ` is `ada@example.org`. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Users, sessions, API tokens and rate-limit counters, in the app's own database so that several
 * app servers on one PostgreSQL database share them.
 */
export class AuthStore {
  readonly #sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.#sql = sql;
  }

  /** Creates the tables when missing, and adds the columns an older database's tables lack. */
  async setUp(): Promise<void> {
    await this.#sql.exec(AUTH_DDL);
    for (const { table, column, type } of AUTH_ADDED_COLUMNS) {
      if ((await this.#columns(table)).includes(column)) continue;
      // PostgreSQL's IF NOT EXISTS lets two servers starting at once both upgrade; SQLite has no
      // such clause, and one file is upgraded by one process at a time (its write lock).
      const ifMissing = this.#sql.dialect === 'postgres' ? 'IF NOT EXISTS ' : '';
      await this.#sql.exec([`ALTER TABLE "${table}" ADD COLUMN ${ifMissing}"${column}" ${type}`]);
    }
  }

  /** The names of a table's columns. */
  async #columns(table: string): Promise<string[]> {
    const rows =
      this.#sql.dialect === 'postgres'
        ? await this.#sql.all<{ name: string }>(
            `SELECT "column_name" AS "name" FROM information_schema.columns
             WHERE "table_schema" = current_schema() AND "table_name" = ?`,
            [table],
          )
        : await this.#sql.all<{ name: string }>('SELECT "name" FROM pragma_table_info(?)', [table]);
    return rows.map((row) => row.name);
  }

  // Users ------------------------------------------------------------------------------------

  /** Adds a user; undefined when the email is taken. */
  async addUser(user: {
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
  async userForSignIn(
    email: string,
  ): Promise<{ user: UserAccount; passwordHash: string; active: boolean } | undefined> {
    const row = await this.#sql.get<UserRow>(`SELECT ${USER_COLUMNS} FROM "${USERS_TABLE}" WHERE "email" = ?`, [
      normalizeEmail(email),
    ]);
    return row
      ? { user: account(row), passwordHash: row.password_hash, active: row.deactivated_at === null }
      : undefined;
  }

  /** A user, active or deactivated. */
  async user(id: string): Promise<UserAccount | undefined> {
    const found = await this.managedUser(id);
    return found ? plainAccount(found) : undefined;
  }

  /** A user with whether they are active, for those who manage people. */
  async managedUser(id: string): Promise<ManagedAccount | undefined> {
    const row = await this.#sql.get<Omit<UserRow, 'password_hash'>>(
      `SELECT ${ACCOUNT_COLUMNS} FROM "${USERS_TABLE}" WHERE "id" = ?`,
      [id],
    );
    return row ? managed(row) : undefined;
  }

  /** An active user: a deactivated one's sessions and tokens authenticate nobody. */
  async #activeUser(id: string): Promise<UserAccount | undefined> {
    const found = await this.managedUser(id);
    return found?.active ? plainAccount(found) : undefined;
  }

  async userByEmail(email: string): Promise<UserAccount | undefined> {
    return (await this.userForSignIn(email))?.user;
  }

  /** An active user by email: whom a password reset link may be sent to. */
  async activeUserByEmail(email: string): Promise<UserAccount | undefined> {
    const found = await this.userForSignIn(email);
    return found?.active ? found.user : undefined;
  }

  /** Every user, by email. */
  async users(): Promise<UserAccount[]> {
    const rows = await this.#sql.all<UserRow>(`SELECT ${USER_COLUMNS} FROM "${USERS_TABLE}" ORDER BY "email"`);
    return rows.map(account);
  }

  /**
   * Users whose name (or email too, `within`) contains `text` (case-insensitively for ASCII), by
   * name, at most `limit`. Reference pickers search names only: they are not shown emails, and
   * what a search matches, or how it orders, tells what it matched on. Pickers (`name`) are not
   * offered deactivated users.
   */
  async findUsers(
    text: string,
    limit: number,
    within: 'name' | 'name or email' = 'name or email',
  ): Promise<UserAccount[]> {
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
  async usersById(ids: readonly string[]): Promise<UserAccount[]> {
    const found: UserAccount[] = [];
    for (const id of new Set(ids)) {
      const user = await this.user(id);
      if (user) found.push(user);
    }
    return found.sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * A page of every account, active or not, for those who manage people: those whose name or
   * email contains `text`, by name then email, with how many match in all.
   */
  async listAccounts(text: string, limit: number, offset: number): Promise<{ items: ManagedAccount[]; total: number }> {
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
  async activeUsers(): Promise<UserAccount[]> {
    const rows = await this.#sql.all<Omit<UserRow, 'password_hash'>>(
      `SELECT ${ACCOUNT_COLUMNS} FROM "${USERS_TABLE}" WHERE "deactivated_at" IS NULL ORDER BY "email"`,
    );
    return rows.map(account);
  }

  /**
   * Deactivates (an ISO time) or reactivates (null) an account; false when there is no such user
   * or it already is so. Deactivating ends the user's sessions and reset links at once; their API
   * tokens are kept but authenticate nobody while the account is deactivated (`tokenUser`).
   */
  async setDeactivated(userId: string, at: string | null): Promise<boolean> {
    const changed = await this.#sql.run(
      `UPDATE "${USERS_TABLE}" SET "deactivated_at" = ? WHERE "id" = ? AND "deactivated_at" IS ${at === null ? 'NOT ' : ''}NULL`,
      [at, userId],
    );
    if (at !== null) {
      await this.endSessionsOf(userId);
      await this.#sql.run(`DELETE FROM "${PASSWORD_RESETS_TABLE}" WHERE "user_id" = ?`, [userId]);
    }
    return changed > 0;
  }

  /** Replaces the roles of the user with this id; false when there is no such user. */
  async setRolesOf(userId: string, roles: readonly string[]): Promise<boolean> {
    const changed = await this.#sql.run(`UPDATE "${USERS_TABLE}" SET "roles" = ? WHERE "id" = ?`, [
      JSON.stringify([...roles]),
      userId,
    ]);
    return changed > 0;
  }

  // Account history --------------------------------------------------------------------------

  /** Keeps one entry of an account's history (see `recordAccountEvent`). */
  async addAccountEvent(entry: AccountHistoryEntry & { userId: string }): Promise<void> {
    const { id, userId, at, by, ...event } = entry;
    await this.#sql.run(
      `INSERT INTO "${ACCOUNT_EVENTS_TABLE}" ("id", "user_id", "at", "by_id", "event") VALUES (?, ?, ?, ?, ?)`,
      [id, userId, at, by, JSON.stringify(event)],
    );
  }

  /** An account's history, oldest first. */
  async accountHistory(userId: string): Promise<AccountHistoryEntry[]> {
    const rows = await this.#sql.all<{ id: string; at: string; by_id: string | null; event: string }>(
      `SELECT "id", "at", "by_id", "event" FROM "${ACCOUNT_EVENTS_TABLE}" WHERE "user_id" = ? ORDER BY "id"`,
      [userId],
    );
    return rows.map((row) => ({ ...(JSON.parse(row.event) as AccountEvent), id: row.id, at: row.at, by: row.by_id }));
  }

  async countUsers(): Promise<number> {
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

  /** Sets a new password hash and ends every session and password reset link of the user. */
  async setPassword(email: string, passwordHash: string): Promise<boolean> {
    const user = await this.userByEmail(email);
    if (!user) return false;
    await this.setPasswordOf(user.id, passwordHash);
    return true;
  }

  /** `setPassword` by the user's id; false when there is no such user. */
  async setPasswordOf(userId: string, passwordHash: string): Promise<boolean> {
    const changed = await this.#sql.run(`UPDATE "${USERS_TABLE}" SET "password_hash" = ? WHERE "id" = ?`, [
      passwordHash,
      userId,
    ]);
    // Whoever knew the old password, or holds a link asked for before, is out.
    await this.endSessionsOf(userId);
    await this.#sql.run(`DELETE FROM "${PASSWORD_RESETS_TABLE}" WHERE "user_id" = ?`, [userId]);
    return changed > 0;
  }

  /** Removes a user with their sessions and tokens; false when there is no such user. */
  async removeUser(email: string): Promise<boolean> {
    const user = await this.userByEmail(email);
    if (!user) return false;
    // Deleted explicitly as well as by cascade: SQLite enforces ON DELETE only with foreign_keys on.
    await this.endSessionsOf(user.id);
    await this.#sql.run(`DELETE FROM "${TOKENS_TABLE}" WHERE "user_id" = ?`, [user.id]);
    await this.#sql.run(`DELETE FROM "${PASSWORD_RESETS_TABLE}" WHERE "user_id" = ?`, [user.id]);
    await this.#sql.run(`DELETE FROM "${ACCOUNT_EVENTS_TABLE}" WHERE "user_id" = ?`, [user.id]);
    await this.#sql.run(`DELETE FROM "${USERS_TABLE}" WHERE "id" = ?`, [user.id]);
    return true;
  }

  // Sessions ---------------------------------------------------------------------------------

  async createSession(idHash: string, userId: string, now: number, expiresAt: number): Promise<void> {
    await this.#sql.run(
      `INSERT INTO "${SESSIONS_TABLE}" ("id_hash", "user_id", "created_at", "last_seen_at", "expires_at") VALUES (?, ?, ?, ?, ?)`,
      [idHash, userId, now, now, expiresAt],
    );
  }

  /** A session with its user, if the session exists and its user is active (one statement, `USER_OF`). */
  session(idHash: string): MaybePromise<SessionFound | undefined> {
    return andThen(this.#sql.get<SessionRow>(SESSION_SQL, [idHash]), sessionFound);
  }

  async touchSession(idHash: string, now: number): Promise<void> {
    await this.#sql.run(`UPDATE "${SESSIONS_TABLE}" SET "last_seen_at" = ? WHERE "id_hash" = ?`, [now, idHash]);
  }

  async endSession(idHash: string): Promise<void> {
    await this.#sql.run(`DELETE FROM "${SESSIONS_TABLE}" WHERE "id_hash" = ?`, [idHash]);
  }

  async endSessionsOf(userId: string): Promise<void> {
    await this.#sql.run(`DELETE FROM "${SESSIONS_TABLE}" WHERE "user_id" = ?`, [userId]);
  }

  /** Deletes sessions that ended before `now` (idle or absolute). */
  async pruneSessions(now: number, idleMs: number): Promise<number> {
    return this.#sql.run(`DELETE FROM "${SESSIONS_TABLE}" WHERE "expires_at" <= ? OR "last_seen_at" <= ?`, [
      now,
      now - idleMs,
    ]);
  }

  // API tokens -------------------------------------------------------------------------------

  async createToken(token: { id: string; userId: string; name: string; hash: string; now: number }): Promise<void> {
    await this.#sql.run(
      `INSERT INTO "${TOKENS_TABLE}" ("id", "user_id", "name", "token_hash", "created_at") VALUES (?, ?, ?, ?, ?)`,
      [token.id, token.userId, token.name, token.hash, token.now],
    );
  }

  /** The user of a token that has not been revoked, if they are active (one statement, `USER_OF`). */
  tokenUser(hash: string): MaybePromise<TokenFound | undefined> {
    return andThen(this.#sql.get<TokenRow>(TOKEN_SQL, [hash]), tokenFound);
  }

  async touchToken(id: string, now: number): Promise<void> {
    await this.#sql.run(`UPDATE "${TOKENS_TABLE}" SET "last_used_at" = ? WHERE "id" = ?`, [now, id]);
  }

  async tokens(): Promise<TokenInfo[]> {
    const rows = await this.#sql.all<{
      id: string;
      user_id: string;
      email: string;
      name: string;
      created_at: number | string;
      last_used_at: number | string | null;
      revoked_at: number | string | null;
    }>(
      `SELECT t."id", t."user_id", u."email", t."name", t."created_at", t."last_used_at", t."revoked_at"
       FROM "${TOKENS_TABLE}" t JOIN "${USERS_TABLE}" u ON u."id" = t."user_id" ORDER BY t."created_at", t."id"`,
    );
    const time = (v: number | string | null) => (v === null ? null : Number(v));
    return rows.map((r) => ({
      id: r.id,
      userId: r.user_id,
      email: r.email,
      name: r.name,
      createdAt: Number(r.created_at),
      lastUsedAt: time(r.last_used_at),
      revokedAt: time(r.revoked_at),
    }));
  }

  /** Revokes a token for good; false when there is no such token or it was revoked already. */
  async revokeToken(id: string, now: number): Promise<boolean> {
    const changed = await this.#sql.run(
      `UPDATE "${TOKENS_TABLE}" SET "revoked_at" = ? WHERE "id" = ? AND "revoked_at" IS NULL`,
      [now, id],
    );
    return changed > 0;
  }

  // Password reset links ---------------------------------------------------------------------

  /** Keeps a new reset link's hash; the link itself is only in the mail. */
  async createPasswordReset(reset: { hash: string; userId: string; now: number; expiresAt: number }): Promise<void> {
    await this.#sql.run(
      `INSERT INTO "${PASSWORD_RESETS_TABLE}" ("token_hash", "user_id", "created_at", "expires_at") VALUES (?, ?, ?, ?)`,
      [reset.hash, reset.userId, reset.now, reset.expiresAt],
    );
  }

  /** The user of a reset link that is unused and unexpired at `now`, without using it. */
  async passwordResetUser(hash: string, now: number): Promise<UserAccount | undefined> {
    const row = await this.#sql.get<{ user_id: string }>(
      `SELECT "user_id" FROM "${PASSWORD_RESETS_TABLE}" WHERE "token_hash" = ? AND "used_at" IS NULL AND "expires_at" > ?`,
      [hash, now],
    );
    return row ? this.#activeUser(row.user_id) : undefined;
  }

  /**
   * Marks a reset link used, if it is unused and unexpired at `now`, in one statement: of two
   * requests with the same link, one gets the user's id and the other nothing.
   */
  async usePasswordReset(hash: string, now: number): Promise<string | undefined> {
    const row = await this.#sql.get<{ user_id: string }>(
      `UPDATE "${PASSWORD_RESETS_TABLE}" SET "used_at" = ?
       WHERE "token_hash" = ? AND "used_at" IS NULL AND "expires_at" > ? RETURNING "user_id"`,
      [now, hash, now],
    );
    return row?.user_id;
  }

  /** Deletes the reset links that expired before `now` (used ones too: they answer as unknown ones do). */
  async prunePasswordResets(now: number): Promise<number> {
    return this.#sql.run(`DELETE FROM "${PASSWORD_RESETS_TABLE}" WHERE "expires_at" <= ?`, [now]);
  }

  // Rate limits ------------------------------------------------------------------------------

  /** Adds `hits` to a key's counter in a window, atomically, and answers the counter's new value. */
  async hit(key: string, windowStart: number, hits = 1): Promise<number> {
    const row = await this.#sql.get<{ hits: number | string }>(
      `INSERT INTO "${RATE_TABLE}" ("key", "window_start", "hits") VALUES (?, ?, ?)
       ON CONFLICT ("key", "window_start") DO UPDATE SET "hits" = "${RATE_TABLE}"."hits" + excluded."hits"
       RETURNING "hits"`,
      [key, windowStart, hits],
    );
    return Number(row?.hits ?? hits);
  }

  /** A key's counter in a window, without adding to it. */
  async hits(key: string, windowStart: number): Promise<number> {
    const row = await this.#sql.get<{ hits: number | string }>(
      `SELECT "hits" FROM "${RATE_TABLE}" WHERE "key" = ? AND "window_start" = ?`,
      [key, windowStart],
    );
    return Number(row?.hits ?? 0);
  }

  /**
   * Forgets the counters whose key starts with `prefix` (no `%` or `_` in it) of windows that
   * started before `before`. Counters of different lengths share the table: the general limit's
   * (`rate:`, one minute) and sign-in failures' (`sign-in:`, 15 minutes), each pruned by its own.
   */
  async pruneRates(before: number, prefix = 'rate:'): Promise<number> {
    return this.#sql.run(`DELETE FROM "${RATE_TABLE}" WHERE "key" LIKE ? AND "window_start" < ?`, [
      `${prefix}%`,
      before,
    ]);
  }
}

/**
 * The user of a session or token row (`owner`: its "user_id"), as columns of that row, each a
 * correlated subquery on the users' primary key; `user_active` is null when there is no such user.
 * Not a join: SQLite's STAT4 build plans a join on a bound value again at every run, about twice
 * what the whole lookup costs; these subqueries are planned once. One statement is one round trip
 * on PostgreSQL.
 */
function userOf(owner: string): string {
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

interface UserOfRow {
  user_id: string;
  user_email: string | null;
  user_name: string;
  user_roles: string;
  user_created_at: string;
  /** 1 or true when active, 0 or false when deactivated, null when there is no such user. */
  user_active: number | boolean | null;
}

interface SessionRow extends UserOfRow {
  created_at: number | string;
  last_seen_at: number | string;
  expires_at: number | string;
}

interface TokenRow extends UserOfRow {
  id: string;
  last_used_at: number | string | null;
}

const SESSION_SQL = `SELECT s."created_at", s."last_seen_at", s."expires_at", ${userOf('s."user_id"')}
  FROM "${SESSIONS_TABLE}" s WHERE s."id_hash" = ?`;

const TOKEN_SQL = `SELECT t."id", t."last_used_at", ${userOf('t."user_id"')}
  FROM "${TOKENS_TABLE}" t WHERE t."token_hash" = ? AND t."revoked_at" IS NULL`;

/** The user of a session or token row, if there is one and it is active. */
function activeUserOf(row: UserOfRow): UserAccount | undefined {
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

function sessionFound(row: SessionRow | undefined): SessionFound | undefined {
  const user = row && activeUserOf(row);
  if (!row || !user) return undefined;
  return {
    user,
    createdAt: Number(row.created_at),
    lastSeenAt: Number(row.last_seen_at),
    expiresAt: Number(row.expires_at),
  };
}

function tokenFound(row: TokenRow | undefined): TokenFound | undefined {
  const user = row && activeUserOf(row);
  if (!row || !user) return undefined;
  return { tokenId: row.id, user, lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at) };
}

function account(row: Omit<UserRow, 'password_hash'>): UserAccount {
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
function plainAccount({ id, email, name, roles, createdAt }: ManagedAccount): UserAccount {
  return { id, email, name, roles, createdAt };
}

function managed(row: Omit<UserRow, 'password_hash'>): ManagedAccount {
  return { ...account(row), active: row.deactivated_at === null, deactivatedAt: row.deactivated_at };
}
