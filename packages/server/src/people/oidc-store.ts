import { first, type SqlRunner } from '../store/sql-runner.ts';
import { USERS_TABLE } from '../store/users-table.ts';

export const OIDC_LOGINS_TABLE = '_ninepoint_oidc_logins';
export const IDENTITIES_TABLE = '_ninepoint_identities';

/**
 * Sign-ins under way at the provider (the browser holds only a random id whose SHA-256 keys the
 * row: state, nonce and PKCE verifier never leave the server), and which provider accounts are
 * which users. Deleting a user deletes their links.
 */
export const OIDC_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS "${OIDC_LOGINS_TABLE}" (
  "id_hash" TEXT PRIMARY KEY,
  "state" TEXT NOT NULL,
  "nonce" TEXT NOT NULL,
  "verifier" TEXT NOT NULL,
  "next" TEXT NOT NULL,
  "expires_at" BIGINT NOT NULL
)`,
  `CREATE TABLE IF NOT EXISTS "${IDENTITIES_TABLE}" (
  "issuer" TEXT NOT NULL,
  "subject" TEXT NOT NULL,
  "user_id" TEXT NOT NULL REFERENCES "${USERS_TABLE}" ("id") ON DELETE CASCADE,
  "created_at" BIGINT NOT NULL,
  PRIMARY KEY ("issuer", "subject")
)`,
  `CREATE INDEX IF NOT EXISTS "${IDENTITIES_TABLE}_user_idx" ON "${IDENTITIES_TABLE}" ("user_id")`,
];

/** What the callback needs to finish a sign-in the start began. */
export interface PendingOidcLogin {
  state: string;
  nonce: string;
  verifier: string;
  /** The app path to open after signing in. */
  next: string;
  expiresAt: number;
}

/** Sign-ins under way and provider accounts linked to users, in the app's database. */
export class OidcStore {
  readonly #sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.#sql = sql;
  }

  /** Creates the tables when missing. */
  async setUp(): Promise<void> {
    await this.#sql.exec(OIDC_DDL);
  }

  /** Keeps a sign-in under way, and drops those that expired before `now`. */
  async begin(idHash: string, login: PendingOidcLogin, now: number): Promise<void> {
    await this.#sql.run(`DELETE FROM "${OIDC_LOGINS_TABLE}" WHERE "expires_at" <= ?`, [now]);
    await this.#sql.run(
      `INSERT INTO "${OIDC_LOGINS_TABLE}" ("id_hash", "state", "nonce", "verifier", "next", "expires_at") VALUES (?, ?, ?, ?, ?, ?)`,
      [idHash, login.state, login.nonce, login.verifier, login.next, login.expiresAt],
    );
  }

  /**
   * The sign-in under way with this id, once: it is deleted as it is read, so a callback cannot be
   * replayed. Undefined when unknown, already used or expired.
   */
  async take(idHash: string, now: number): Promise<PendingOidcLogin | undefined> {
    const row = await first<{
      state: string;
      nonce: string;
      verifier: string;
      next: string;
      expires_at: number | string;
    }>(
      this.#sql,
      `SELECT "state", "nonce", "verifier", "next", "expires_at" FROM "${OIDC_LOGINS_TABLE}" WHERE "id_hash" = ?`,
      [idHash],
    );
    if (!row) return undefined;
    // Only the caller that deletes the row may use it: two callbacks racing get one sign-in.
    const deleted = await this.#sql.run(`DELETE FROM "${OIDC_LOGINS_TABLE}" WHERE "id_hash" = ?`, [idHash]);
    const expiresAt = Number(row.expires_at);
    if (deleted === 0 || expiresAt <= now) return undefined;
    return { state: row.state, nonce: row.nonce, verifier: row.verifier, next: row.next, expiresAt };
  }

  /** The user a provider account is linked to, if any. */
  async linkedUser(issuer: string, subject: string): Promise<string | undefined> {
    const row = await first<{ user_id: string }>(
      this.#sql,
      `SELECT "user_id" FROM "${IDENTITIES_TABLE}" WHERE "issuer" = ? AND "subject" = ?`,
      [issuer, subject],
    );
    return row?.user_id;
  }

  /** Links a provider account to a user (kept when already linked). */
  async link(issuer: string, subject: string, userId: string, now: number): Promise<void> {
    await this.#sql.run(
      `INSERT INTO "${IDENTITIES_TABLE}" ("issuer", "subject", "user_id", "created_at") VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      [issuer, subject, userId, now],
    );
  }
}
