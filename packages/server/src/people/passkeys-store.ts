import type { SqlRunner } from '../store/sql-runner.ts';
import { USERS_TABLE } from '../store/users-table.ts';

export const PASSKEYS_TABLE = '_ninepoint_passkeys';
export const PASSKEY_CHALLENGES_TABLE = '_ninepoint_passkey_challenges';

/**
 * Passkeys' tables, the same on both databases: each user's WebAuthn credentials (id and public
 * key in base64url, the signature counter last seen) and the challenges waiting for an answer, by
 * the SHA-256 of the secret the browser holds in a cookie (a challenge is taken once).
 */
export const PASSKEYS_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS "${PASSKEYS_TABLE}" (
  "id" TEXT PRIMARY KEY,
  "user_id" TEXT NOT NULL REFERENCES "${USERS_TABLE}" ("id") ON DELETE CASCADE,
  "public_key" TEXT NOT NULL,
  "counter" BIGINT NOT NULL,
  "transports" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "created_at" BIGINT NOT NULL,
  "last_used_at" BIGINT
)`,
  `CREATE INDEX IF NOT EXISTS "${PASSKEYS_TABLE}_user_idx" ON "${PASSKEYS_TABLE}" ("user_id")`,
  `CREATE TABLE IF NOT EXISTS "${PASSKEY_CHALLENGES_TABLE}" (
  "id_hash" TEXT PRIMARY KEY,
  "purpose" TEXT NOT NULL,
  "user_id" TEXT,
  "challenge" TEXT NOT NULL,
  "expires_at" BIGINT NOT NULL
)`,
];

export interface PasskeyRow {
  id: string;
  userId: string;
  publicKey: string;
  counter: number;
  transports: string[];
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

export type ChallengePurpose = 'register' | 'sign-in';

interface Row {
  id: string;
  user_id: string;
  public_key: string;
  counter: number | string;
  transports: string;
  name: string;
  created_at: number | string;
  last_used_at: number | string | null;
}

const COLUMNS = `"id", "user_id", "public_key", "counter", "transports", "name", "created_at", "last_used_at"`;

function toPasskey(row: Row): PasskeyRow {
  return {
    id: row.id,
    userId: row.user_id,
    publicKey: row.public_key,
    counter: Number(row.counter),
    transports: JSON.parse(row.transports) as string[],
    name: row.name,
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
  };
}

export class PasskeysStore {
  readonly #sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.#sql = sql;
  }

  async byId(id: string): Promise<PasskeyRow | undefined> {
    const row = await this.#sql.get<Row>(`SELECT ${COLUMNS} FROM "${PASSKEYS_TABLE}" WHERE "id" = ?`, [id]);
    return row ? toPasskey(row) : undefined;
  }

  /** The user's passkeys, oldest first. */
  async of(userId: string): Promise<PasskeyRow[]> {
    const rows = await this.#sql.all<Row>(
      `SELECT ${COLUMNS} FROM "${PASSKEYS_TABLE}" WHERE "user_id" = ? ORDER BY "created_at", "id"`,
      [userId],
    );
    return rows.map(toPasskey);
  }

  /**
   * Adds a passkey and answers it as kept (never used yet), without reading it back; null when a
   * passkey with this credential id is kept already.
   */
  async add(passkey: Omit<PasskeyRow, 'lastUsedAt'>): Promise<PasskeyRow | null> {
    const changed = await this.#sql.run(
      `INSERT INTO "${PASSKEYS_TABLE}" (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, NULL) ON CONFLICT ("id") DO NOTHING`,
      [
        passkey.id,
        passkey.userId,
        passkey.publicKey,
        passkey.counter,
        JSON.stringify(passkey.transports),
        passkey.name,
        passkey.createdAt,
      ],
    );
    return changed > 0 ? { ...passkey, transports: [...passkey.transports], lastUsedAt: null } : null;
  }

  /**
   * Records a sign-in with a passkey: its new counter, only if the counter it was checked against
   * is still the one kept (of two sign-ins with the same assertion, one wins).
   */
  async used(id: string, seenCounter: number, newCounter: number, now: number): Promise<boolean> {
    const changed = await this.#sql.run(
      `UPDATE "${PASSKEYS_TABLE}" SET "counter" = ?, "last_used_at" = ? WHERE "id" = ? AND "counter" = ?`,
      [newCounter, now, id, seenCounter],
    );
    return changed > 0;
  }

  /** Removes one of the user's passkeys; false when they have none of this id. */
  async remove(userId: string, id: string): Promise<boolean> {
    return (await this.#sql.run(`DELETE FROM "${PASSKEYS_TABLE}" WHERE "user_id" = ? AND "id" = ?`, [userId, id])) > 0;
  }

  async removeAllOf(userId: string): Promise<void> {
    await this.#sql.run(`DELETE FROM "${PASSKEYS_TABLE}" WHERE "user_id" = ?`, [userId]);
    await this.#sql.run(`DELETE FROM "${PASSKEY_CHALLENGES_TABLE}" WHERE "user_id" = ?`, [userId]);
  }

  async addChallenge(
    idHash: string,
    purpose: ChallengePurpose,
    userId: string | null,
    challenge: string,
    now: number,
    expiresAt: number,
  ): Promise<void> {
    // Expired ones go as new ones come: the table holds only the last few minutes' challenges.
    await this.#sql.run(`DELETE FROM "${PASSKEY_CHALLENGES_TABLE}" WHERE "expires_at" <= ?`, [now]);
    await this.#sql.run(
      `INSERT INTO "${PASSKEY_CHALLENGES_TABLE}" ("id_hash", "purpose", "user_id", "challenge", "expires_at")
       VALUES (?, ?, ?, ?, ?)`,
      [idHash, purpose, userId, challenge, expiresAt],
    );
  }

  /** Takes a challenge, once: the request that deletes it gets it; undefined when gone or expired. */
  async takeChallenge(
    idHash: string,
    purpose: ChallengePurpose,
    now: number,
  ): Promise<{ userId: string | null; challenge: string } | undefined> {
    const row = await this.#sql.get<{ user_id: string | null; challenge: string; expires_at: number | string }>(
      `DELETE FROM "${PASSKEY_CHALLENGES_TABLE}" WHERE "id_hash" = ? AND "purpose" = ?
       RETURNING "user_id", "challenge", "expires_at"`,
      [idHash, purpose],
    );
    if (!row || Number(row.expires_at) <= now) return undefined;
    return { userId: row.user_id, challenge: row.challenge };
  }
}
