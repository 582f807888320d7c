import type { SqlRunner } from '../store/sql-runner.ts';
import { USERS_TABLE } from '../store/users-table.ts';
import type { UserAccount, UsersStore } from './users-store.ts';

export const PASSWORD_RESETS_TABLE = '_ninepoint_password_resets';

/** Reset links keep only the SHA-256 of their secret; deleting a user deletes their links. */
export const PASSWORD_RESETS_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS "${PASSWORD_RESETS_TABLE}" (
  "token_hash" TEXT PRIMARY KEY,
  "user_id" TEXT NOT NULL REFERENCES "${USERS_TABLE}" ("id") ON DELETE CASCADE,
  "created_at" BIGINT NOT NULL,
  "expires_at" BIGINT NOT NULL,
  "used_at" BIGINT
)`,
  `CREATE INDEX IF NOT EXISTS "${PASSWORD_RESETS_TABLE}_user_idx" ON "${PASSWORD_RESETS_TABLE}" ("user_id")`,
];

/** Password reset links: each used once (`use`), before it expires. */
export class PasswordResetsStore {
  readonly #sql: SqlRunner;
  readonly #users: UsersStore;

  constructor(sql: SqlRunner, users: UsersStore) {
    this.#sql = sql;
    this.#users = users;
  }

  /** Keeps a new reset link's hash; the link itself is only in the mail. */
  async create(reset: { hash: string; userId: string; now: number; expiresAt: number }): Promise<void> {
    await this.#sql.run(
      `INSERT INTO "${PASSWORD_RESETS_TABLE}" ("token_hash", "user_id", "created_at", "expires_at") VALUES (?, ?, ?, ?)`,
      [reset.hash, reset.userId, reset.now, reset.expiresAt],
    );
  }

  /** The user of a reset link that is unused and unexpired at `now`, without using it. */
  async user(hash: string, now: number): Promise<UserAccount | undefined> {
    const row = await this.#sql.get<{ user_id: string }>(
      `SELECT "user_id" FROM "${PASSWORD_RESETS_TABLE}" WHERE "token_hash" = ? AND "used_at" IS NULL AND "expires_at" > ?`,
      [hash, now],
    );
    return row ? this.#users.activeById(row.user_id) : undefined;
  }

  /**
   * Marks a reset link used, if it is unused and unexpired at `now`, in one statement: of two
   * requests with the same link, one gets the user's id and the other nothing.
   */
  async use(hash: string, now: number): Promise<string | undefined> {
    const row = await this.#sql.get<{ user_id: string }>(
      `UPDATE "${PASSWORD_RESETS_TABLE}" SET "used_at" = ?
       WHERE "token_hash" = ? AND "used_at" IS NULL AND "expires_at" > ? RETURNING "user_id"`,
      [now, hash, now],
    );
    return row?.user_id;
  }

  /** Deletes the reset links that expired before `now` (used ones too: they answer as unknown ones do). */
  async prune(now: number): Promise<number> {
    return this.#sql.run(`DELETE FROM "${PASSWORD_RESETS_TABLE}" WHERE "expires_at" <= ?`, [now]);
  }

  /** Deletes every link of a user: a new password, or a deactivated account, ends them. */
  async deleteAllOf(userId: string): Promise<void> {
    await this.#sql.run(`DELETE FROM "${PASSWORD_RESETS_TABLE}" WHERE "user_id" = ?`, [userId]);
  }
}
