import type { SqlRunner } from '../store/sql-runner.ts';
import type { MaybePromise } from '../store/step.ts';
import { USERS_TABLE } from '../store/users-table.ts';
import { foundByHash } from './found-by-hash.ts';
import { activeUserOf, type UserOfRow, userOf } from './user-rows.ts';
import type { UserAccount } from './users-store.ts';

/** A session as a request finds it: whose it is and when it ends. Times are epoch milliseconds. */
export interface SessionFound {
  user: UserAccount;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  /** Whether the session was started with a passkey (which satisfies `requires two-factor`). */
  passkey: boolean;
}

export const SESSIONS_TABLE = '_ninepoint_sessions';

/** Sessions keep only the SHA-256 of their secret; deleting a user deletes their sessions. */
export const SESSIONS_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS "${SESSIONS_TABLE}" (
  "id_hash" TEXT PRIMARY KEY,
  "user_id" TEXT NOT NULL REFERENCES "${USERS_TABLE}" ("id") ON DELETE CASCADE,
  "created_at" BIGINT NOT NULL,
  "last_seen_at" BIGINT NOT NULL,
  "expires_at" BIGINT NOT NULL,
  "signed_in_with" TEXT
)`,
  `CREATE INDEX IF NOT EXISTS "${SESSIONS_TABLE}_user_idx" ON "${SESSIONS_TABLE}" ("user_id")`,
];

/** Browser sessions: made at sign-in, looked up by every call with the cookie, ended at sign-out or expiry. */
export class SessionsStore {
  readonly #sql: SqlRunner;
  readonly #found: (hash: string, forRequest?: boolean) => MaybePromise<SessionFound | undefined>;

  constructor(sql: SqlRunner) {
    this.#sql = sql;
    this.#found = foundByHash<SessionRow, SessionFound>(sql, SESSION_SQL, sessionFound);
  }

  /** `signedInWith`: 'passkey' for a passkey sign-in; null for a password (or any other way in). */
  async create(
    idHash: string,
    userId: string,
    now: number,
    expiresAt: number,
    signedInWith: 'passkey' | null = null,
  ): Promise<void> {
    await this.#sql.run(
      `INSERT INTO "${SESSIONS_TABLE}" ("id_hash", "user_id", "created_at", "last_seen_at", "expires_at", "signed_in_with")
       VALUES (?, ?, ?, ?, ?, ?)`,
      [idHash, userId, now, now, expiresAt, signedInWith],
    );
  }

  /**
   * A session with its user, if the session exists and its user is active (one statement,
   * `USER_OF`). `forRequest`: for a request read in this turn of the event loop (`SqlRunner.changeStamp`).
   */
  get(idHash: string, forRequest = false): MaybePromise<SessionFound | undefined> {
    return this.#found(idHash, forRequest);
  }

  async touch(idHash: string, now: number): Promise<void> {
    await this.#sql.run(`UPDATE "${SESSIONS_TABLE}" SET "last_seen_at" = ? WHERE "id_hash" = ?`, [now, idHash]);
  }

  async end(idHash: string): Promise<void> {
    await this.#sql.run(`DELETE FROM "${SESSIONS_TABLE}" WHERE "id_hash" = ?`, [idHash]);
  }

  async endAllOf(userId: string): Promise<void> {
    await this.#sql.run(`DELETE FROM "${SESSIONS_TABLE}" WHERE "user_id" = ?`, [userId]);
  }

  /** Deletes sessions that ended before `now` (idle or absolute). */
  async prune(now: number, idleMs: number): Promise<number> {
    return this.#sql.run(`DELETE FROM "${SESSIONS_TABLE}" WHERE "expires_at" <= ? OR "last_seen_at" <= ?`, [
      now,
      now - idleMs,
    ]);
  }
}

interface SessionRow extends UserOfRow {
  created_at: number | string;
  last_seen_at: number | string;
  expires_at: number | string;
  signed_in_with: string | null;
}

const SESSION_SQL = `SELECT s."created_at", s."last_seen_at", s."expires_at", s."signed_in_with", ${userOf('s."user_id"')}
  FROM "${SESSIONS_TABLE}" s WHERE s."id_hash" = ?`;

function sessionFound(row: SessionRow | undefined): SessionFound | undefined {
  const user = row && activeUserOf(row);
  if (!row || !user) return undefined;
  return {
    user,
    createdAt: Number(row.created_at),
    lastSeenAt: Number(row.last_seen_at),
    expiresAt: Number(row.expires_at),
    passkey: row.signed_in_with === 'passkey',
  };
}
