import { type IdentityTable, identityTriggerDdl } from '../store/postgres/pg-identity-watch.ts';
import type { SqlRunner } from '../store/sql-runner.ts';
import { USERS_TABLE } from '../store/users-table.ts';
import { COUNTERS_DDL, CountersStore } from './counters-store.ts';
import { PASSKEYS_DDL, PasskeysStore } from './passkeys-store.ts';
import { PASSWORD_RESETS_DDL, PasswordResetsStore } from './resets-store.ts';
import { SESSIONS_DDL, SESSIONS_TABLE, SessionsStore } from './sessions-store.ts';
import { TOKENS_DDL, TOKENS_TABLE, TokensStore } from './tokens-store.ts';
import { TWO_FACTOR_DDL, TwoFactorStore } from './two-factor-store.ts';
import { AUTH_ADDED_COLUMNS, USERS_DDL, UsersStore } from './users-store.ts';

/**
 * People's tables, the same on both databases (types both accept: TEXT and BIGINT; times as epoch
 * milliseconds). Sessions, tokens and password reset links keep only the SHA-256 of their secret.
 * Deleting a user deletes their sessions, tokens and reset links with them.
 */
export const AUTH_DDL: readonly string[] = [
  ...USERS_DDL,
  ...SESSIONS_DDL,
  ...TOKENS_DDL,
  ...COUNTERS_DDL,
  ...PASSWORD_RESETS_DDL,
  ...TWO_FACTOR_DDL,
  ...PASSKEYS_DDL,
];

/**
 * What the identity trigger watches. Every column of a user is read into what a server keeps
 * (`userOf`) or decides a sign-in, so any update of one notifies. Of sessions and tokens, the
 * columns their lookups read (`SESSION_SQL`, `TOKEN_SQL`) and match on, but not the last-seen and
 * last-used stamps: a throttled touch of those is no change of who the caller is, and notifying it
 * would empty every server's kept tokens and sessions about once a minute per active user. A
 * server's own touch still makes its own entries stale (`PgRunner.run`), so its next call reads the
 * new stamp; another server reads it when its entry ends (10 s) or at its own touch.
 */
const IDENTITY_TABLES: readonly IdentityTable[] = [
  { table: USERS_TABLE, columns: [], user: 'id' },
  {
    table: SESSIONS_TABLE,
    columns: ['id_hash', 'user_id', 'created_at', 'expires_at', 'signed_in_with'],
    user: 'user_id',
  },
  { table: TOKENS_TABLE, columns: ['id', 'user_id', 'token_hash', 'revoked_at'], user: 'user_id' },
];

/** Sessions' columns an older database lacks: how the session was signed in (passkeys). */
const SESSIONS_ADDED_COLUMNS = [{ table: SESSIONS_TABLE, column: 'signed_in_with', type: 'TEXT' }] as const;

/**
 * People's tables in the app's own database, so that several app servers on one PostgreSQL
 * database share them: one store for each thing kept (users, sessions, API tokens, password
 * reset links, rate-limit counters), all over the one `SqlRunner`, and the changes to an account
 * that reach into several of them.
 */
export class AuthStore {
  readonly users: UsersStore;
  readonly sessions: SessionsStore;
  readonly tokens: TokensStore;
  readonly resets: PasswordResetsStore;
  readonly counters: CountersStore;
  readonly twoFactor: TwoFactorStore;
  readonly passkeys: PasskeysStore;
  readonly #sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.#sql = sql;
    this.users = new UsersStore(sql);
    this.sessions = new SessionsStore(sql);
    this.tokens = new TokensStore(sql);
    this.resets = new PasswordResetsStore(sql, this.users);
    this.counters = new CountersStore(sql);
    this.twoFactor = new TwoFactorStore(sql);
    this.passkeys = new PasskeysStore(sql);
  }

  /** Creates the tables when missing, and adds the columns an older database's tables lack. */
  async setUp(): Promise<void> {
    await this.#sql.exec(AUTH_DDL);
    for (const { table, column, type } of [...AUTH_ADDED_COLUMNS, ...SESSIONS_ADDED_COLUMNS]) {
      if ((await this.#columns(table)).includes(column)) continue;
      // PostgreSQL's IF NOT EXISTS lets two servers starting at once both upgrade; SQLite has no
      // such clause, and one file is upgraded by one process at a time (its write lock).
      const ifMissing = this.#sql.dialect === 'postgres' ? 'IF NOT EXISTS ' : '';
      await this.#sql.exec([`ALTER TABLE "${table}" ADD COLUMN ${ifMissing}"${column}" ${type}`]);
    }
    // PostgreSQL: what decides who a caller is tells the servers when it changes (their kept
    // tokens and sessions, `FoundLately`); SQLite's servers see any write by themselves. After the
    // added columns: the triggers name them.
    if (this.#sql.dialect === 'postgres') await this.#sql.exec(identityTriggerDdl(IDENTITY_TABLES));
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

  /**
   * Deactivates (an ISO time) or reactivates (null) an account; false when there is no such user
   * or it already is so. Deactivating ends the user's sessions and reset links at once; their API
   * tokens are kept but authenticate nobody while the account is deactivated (`TokensStore.user`).
   */
  async setDeactivated(userId: string, at: string | null): Promise<boolean> {
    const changed = await this.users.setDeactivated(userId, at);
    if (at !== null) {
      await this.sessions.endAllOf(userId);
      await this.resets.deleteAllOf(userId);
      await this.twoFactor.endPendingOf(userId);
    }
    return changed;
  }

  /** Sets a new password hash and ends every session and password reset link of the user. */
  async setPassword(email: string, passwordHash: string): Promise<boolean> {
    const user = await this.users.byEmail(email);
    if (!user) return false;
    await this.setPasswordOf(user.id, passwordHash);
    return true;
  }

  /** `setPassword` by the user's id; false when there is no such user. */
  async setPasswordOf(userId: string, passwordHash: string): Promise<boolean> {
    const changed = await this.users.setPasswordHash(userId, passwordHash);
    // Whoever knew the old password, or holds a link asked for before, is out.
    await this.sessions.endAllOf(userId);
    await this.resets.deleteAllOf(userId);
    await this.twoFactor.endPendingOf(userId);
    return changed;
  }

  /** Removes a user with their sessions and tokens; false when there is no such user. */
  async removeUser(email: string): Promise<boolean> {
    const user = await this.users.byEmail(email);
    if (!user) return false;
    // Deleted explicitly as well as by cascade: SQLite enforces ON DELETE only with foreign_keys on.
    await this.sessions.endAllOf(user.id);
    await this.tokens.deleteAllOf(user.id);
    await this.resets.deleteAllOf(user.id);
    await this.twoFactor.remove(user.id);
    await this.passkeys.removeAllOf(user.id);
    await this.users.remove(user.id);
    return true;
  }
}
