import type { SqlRunner } from '../store/sql-runner.ts';
import type { MaybePromise } from '../store/step.ts';
import { USERS_TABLE } from '../store/users-table.ts';
import { foundByHash } from './found-by-hash.ts';
import { activeUserOf, type UserOfRow, userOf } from './user-rows.ts';
import type { UserAccount } from './users-store.ts';

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

export const TOKENS_TABLE = '_ninepoint_tokens';

/** Tokens keep only the SHA-256 of their secret; deleting a user deletes their tokens. */
export const TOKENS_DDL: readonly string[] = [
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
];

/** API tokens: made at the terminal (`ninepoint tokens`), looked up by every call that sends one, revoked for good. */
export class TokensStore {
  readonly #sql: SqlRunner;
  readonly #found: (hash: string, forRequest?: boolean) => MaybePromise<TokenFound | undefined>;

  constructor(sql: SqlRunner) {
    this.#sql = sql;
    this.#found = foundByHash<TokenRow, TokenFound>(sql, TOKEN_SQL, tokenFound);
  }

  async create(token: { id: string; userId: string; name: string; hash: string; now: number }): Promise<void> {
    await this.#sql.run(
      `INSERT INTO "${TOKENS_TABLE}" ("id", "user_id", "name", "token_hash", "created_at") VALUES (?, ?, ?, ?, ?)`,
      [token.id, token.userId, token.name, token.hash, token.now],
    );
  }

  /**
   * The user of a token that has not been revoked, if they are active (one statement, `USER_OF`).
   * `forRequest`: for a request read in this turn of the event loop (`SqlRunner.changeStamp`).
   */
  user(hash: string, forRequest = false): MaybePromise<TokenFound | undefined> {
    return this.#found(hash, forRequest);
  }

  async touch(id: string, now: number): Promise<void> {
    await this.#sql.run(`UPDATE "${TOKENS_TABLE}" SET "last_used_at" = ? WHERE "id" = ?`, [now, id]);
  }

  async all(): Promise<TokenInfo[]> {
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
  async revoke(id: string, now: number): Promise<boolean> {
    const changed = await this.#sql.run(
      `UPDATE "${TOKENS_TABLE}" SET "revoked_at" = ? WHERE "id" = ? AND "revoked_at" IS NULL`,
      [now, id],
    );
    return changed > 0;
  }

  /** Deletes every token of a user. */
  async deleteAllOf(userId: string): Promise<void> {
    await this.#sql.run(`DELETE FROM "${TOKENS_TABLE}" WHERE "user_id" = ?`, [userId]);
  }
}

interface TokenRow extends UserOfRow {
  id: string;
  last_used_at: number | string | null;
}

const TOKEN_SQL = `SELECT t."id", t."last_used_at", ${userOf('t."user_id"')}
  FROM "${TOKENS_TABLE}" t WHERE t."token_hash" = ? AND t."revoked_at" IS NULL`;

function tokenFound(row: TokenRow | undefined): TokenFound | undefined {
  const user = row && activeUserOf(row);
  if (!row || !user) return undefined;
  return { tokenId: row.id, user, lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at) };
}
