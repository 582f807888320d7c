import type { SqlRunner } from '../store/sql-runner.ts';
import { USERS_TABLE } from '../store/users-table.ts';

export const TWO_FACTOR_TABLE = '_ninepoint_two_factor';
export const RECOVERY_CODES_TABLE = '_ninepoint_recovery_codes';
export const PENDING_SIGN_INS_TABLE = '_ninepoint_pending_sign_ins';

/**
 * Two-factor sign-in's tables, the same on both databases: each user's TOTP secret (sealed with
 * `SECRET_KEY` when set: `secret-key.ts`), whether it is confirmed and the last time step a code
 * was accepted for (a code is never accepted twice); the SHA-256 of their recovery codes; and the
 * sign-ins waiting for their second step, by the SHA-256 of the secret the browser holds.
 */
export const TWO_FACTOR_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS "${TWO_FACTOR_TABLE}" (
  "user_id" TEXT PRIMARY KEY REFERENCES "${USERS_TABLE}" ("id") ON DELETE CASCADE,
  "secret" TEXT NOT NULL,
  "created_at" BIGINT NOT NULL,
  "confirmed_at" BIGINT,
  "last_step" BIGINT
)`,
  `CREATE TABLE IF NOT EXISTS "${RECOVERY_CODES_TABLE}" (
  "code_hash" TEXT PRIMARY KEY,
  "user_id" TEXT NOT NULL REFERENCES "${USERS_TABLE}" ("id") ON DELETE CASCADE,
  "created_at" BIGINT NOT NULL,
  "used_at" BIGINT
)`,
  `CREATE INDEX IF NOT EXISTS "${RECOVERY_CODES_TABLE}_user_idx" ON "${RECOVERY_CODES_TABLE}" ("user_id")`,
  `CREATE TABLE IF NOT EXISTS "${PENDING_SIGN_INS_TABLE}" (
  "id_hash" TEXT PRIMARY KEY,
  "user_id" TEXT NOT NULL REFERENCES "${USERS_TABLE}" ("id") ON DELETE CASCADE,
  "created_at" BIGINT NOT NULL,
  "expires_at" BIGINT NOT NULL,
  "failures" BIGINT NOT NULL
)`,
  `CREATE INDEX IF NOT EXISTS "${PENDING_SIGN_INS_TABLE}_user_idx" ON "${PENDING_SIGN_INS_TABLE}" ("user_id")`,
];

/** A user's second factor as stored: the sealed secret, and whether it is on (confirmed). */
export interface TwoFactorRow {
  secret: string;
  createdAt: number;
  confirmedAt: number | null;
  lastStep: number | null;
}

/** A sign-in whose password was right, waiting for its code. */
export interface PendingSignIn {
  userId: string;
  expiresAt: number;
  failures: number;
}

const num = (value: number | string | null): number | null => (value === null ? null : Number(value));

export class TwoFactorStore {
  readonly #sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.#sql = sql;
  }

  async get(userId: string): Promise<TwoFactorRow | undefined> {
    const row = await this.#sql.get<{
      secret: string;
      created_at: number | string;
      confirmed_at: number | string | null;
      last_step: number | string | null;
    }>(`SELECT "secret", "created_at", "confirmed_at", "last_step" FROM "${TWO_FACTOR_TABLE}" WHERE "user_id" = ?`, [
      userId,
    ]);
    if (!row) return undefined;
    return {
      secret: row.secret,
      createdAt: Number(row.created_at),
      confirmedAt: num(row.confirmed_at),
      lastStep: num(row.last_step),
    };
  }

  /** Whether the user's second factor is on. */
  async enabled(userId: string): Promise<boolean> {
    const row = await this.#sql.get<{ n: number | string }>(
      `SELECT 1 AS "n" FROM "${TWO_FACTOR_TABLE}" WHERE "user_id" = ? AND "confirmed_at" IS NOT NULL`,
      [userId],
    );
    return row !== undefined;
  }

  /** Which of these users have their second factor on (one query, for a page of accounts). */
  async enabledAmong(userIds: readonly string[]): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const rows = await this.#sql.all<{ user_id: string }>(
      `SELECT "user_id" FROM "${TWO_FACTOR_TABLE}"
       WHERE "confirmed_at" IS NOT NULL AND "user_id" IN (${userIds.map(() => '?').join(', ')})`,
      userIds,
    );
    return new Set(rows.map((row) => row.user_id));
  }

  /**
   * Starts (or starts again) an enrolment with a new sealed secret, not yet on; false when the
   * user's second factor is on already (it is then left as it is).
   */
  async begin(userId: string, secret: string, now: number): Promise<boolean> {
    const changed = await this.#sql.run(
      `INSERT INTO "${TWO_FACTOR_TABLE}" ("user_id", "secret", "created_at", "confirmed_at", "last_step")
       VALUES (?, ?, ?, NULL, NULL)
       ON CONFLICT ("user_id") DO UPDATE SET "secret" = excluded."secret", "created_at" = excluded."created_at",
         "last_step" = NULL
       WHERE "${TWO_FACTOR_TABLE}"."confirmed_at" IS NULL`,
      [userId, secret, now],
    );
    return changed > 0;
  }

  /**
   * Turns an enrolment on with the time step of its confirming code, and replaces the user's
   * recovery codes with these (SHA-256 each); false when there was no enrolment waiting (another
   * request confirmed it, or it was reset).
   */
  async confirm(userId: string, step: number, codeHashes: readonly string[], now: number): Promise<boolean> {
    const changed = await this.#sql.run(
      `UPDATE "${TWO_FACTOR_TABLE}" SET "confirmed_at" = ?, "last_step" = ?
       WHERE "user_id" = ? AND "confirmed_at" IS NULL`,
      [now, step, userId],
    );
    if (changed === 0) return false;
    await this.replaceRecoveryCodes(userId, codeHashes, now);
    return true;
  }

  async replaceRecoveryCodes(userId: string, codeHashes: readonly string[], now: number): Promise<void> {
    await this.#sql.run(`DELETE FROM "${RECOVERY_CODES_TABLE}" WHERE "user_id" = ?`, [userId]);
    for (const hash of codeHashes) {
      await this.#sql.run(
        `INSERT INTO "${RECOVERY_CODES_TABLE}" ("code_hash", "user_id", "created_at", "used_at") VALUES (?, ?, ?, NULL)`,
        [hash, userId, now],
      );
    }
  }

  /**
   * Takes a code's time step for the user, atomically: true only when the second factor is on and
   * no code of this step or a later one was accepted before, so the same code never works twice
   * (nor an older one after a newer).
   */
  async takeStep(userId: string, step: number): Promise<boolean> {
    const changed = await this.#sql.run(
      `UPDATE "${TWO_FACTOR_TABLE}" SET "last_step" = ?
       WHERE "user_id" = ? AND "confirmed_at" IS NOT NULL AND ("last_step" IS NULL OR "last_step" < ?)`,
      [step, userId, step],
    );
    return changed > 0;
  }

  /** Uses one of the user's recovery codes (by its SHA-256), once: false when unknown or used. */
  async useRecoveryCode(userId: string, codeHash: string, now: number): Promise<boolean> {
    const changed = await this.#sql.run(
      `UPDATE "${RECOVERY_CODES_TABLE}" SET "used_at" = ? WHERE "code_hash" = ? AND "user_id" = ? AND "used_at" IS NULL`,
      [now, codeHash, userId],
    );
    return changed > 0;
  }

  /** How many of the user's recovery codes are still unused. */
  async recoveryCodesLeft(userId: string): Promise<number> {
    const row = await this.#sql.get<{ n: number | string }>(
      `SELECT count(*) AS "n" FROM "${RECOVERY_CODES_TABLE}" WHERE "user_id" = ? AND "used_at" IS NULL`,
      [userId],
    );
    return Number(row?.n ?? 0);
  }

  /** Removes the user's second factor, recovery codes and waiting sign-ins; false when there was no factor. */
  async remove(userId: string): Promise<boolean> {
    const changed = await this.#sql.run(`DELETE FROM "${TWO_FACTOR_TABLE}" WHERE "user_id" = ?`, [userId]);
    await this.#sql.run(`DELETE FROM "${RECOVERY_CODES_TABLE}" WHERE "user_id" = ?`, [userId]);
    await this.endPendingOf(userId);
    return changed > 0;
  }

  async addPending(idHash: string, userId: string, now: number, expiresAt: number): Promise<void> {
    // Expired ones go as new ones come: the table holds only the last few minutes' sign-ins.
    await this.#sql.run(`DELETE FROM "${PENDING_SIGN_INS_TABLE}" WHERE "expires_at" <= ?`, [now]);
    await this.#sql.run(
      `INSERT INTO "${PENDING_SIGN_INS_TABLE}" ("id_hash", "user_id", "created_at", "expires_at", "failures")
       VALUES (?, ?, ?, ?, 0)`,
      [idHash, userId, now, expiresAt],
    );
  }

  async pending(idHash: string): Promise<PendingSignIn | undefined> {
    const row = await this.#sql.get<{ user_id: string; expires_at: number | string; failures: number | string }>(
      `SELECT "user_id", "expires_at", "failures" FROM "${PENDING_SIGN_INS_TABLE}" WHERE "id_hash" = ?`,
      [idHash],
    );
    return row ? { userId: row.user_id, expiresAt: Number(row.expires_at), failures: Number(row.failures) } : undefined;
  }

  /** Counts a wrong code against a waiting sign-in and answers how many it has had. */
  async failPending(idHash: string): Promise<number> {
    const row = await this.#sql.get<{ failures: number | string }>(
      `UPDATE "${PENDING_SIGN_INS_TABLE}" SET "failures" = "failures" + 1 WHERE "id_hash" = ? RETURNING "failures"`,
      [idHash],
    );
    return Number(row?.failures ?? Number.POSITIVE_INFINITY);
  }

  /** Ends a waiting sign-in; true for the one request that ended it (a secret is used once). */
  async endPending(idHash: string): Promise<boolean> {
    return (await this.#sql.run(`DELETE FROM "${PENDING_SIGN_INS_TABLE}" WHERE "id_hash" = ?`, [idHash])) > 0;
  }

  async endPendingOf(userId: string): Promise<void> {
    await this.#sql.run(`DELETE FROM "${PENDING_SIGN_INS_TABLE}" WHERE "user_id" = ?`, [userId]);
  }
}
