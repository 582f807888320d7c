import { first, type SqlRunner } from '../store/sql-runner.ts';
import { USERS_TABLE } from '../store/users-table.ts';
import { normalizeEmail } from './user-rows.ts';

export const SIGN_UPS_TABLE = '_ninepoint_sign_ups';
export const INVITATIONS_TABLE = '_ninepoint_invitations';

/**
 * Pending sign-ups and invitations, each in a table of its own (the users table is left as it is:
 * an account exists only once its email is proven). Both keep only the SHA-256 of their link's
 * secret, when it expires and when it was used; times are epoch milliseconds, as in `AUTH_DDL`.
 * A sign-up holds no password: it is chosen when the link is followed.
 */
export const JOINING_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS "${SIGN_UPS_TABLE}" (
  "token_hash" TEXT PRIMARY KEY,
  "email" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "role" TEXT NOT NULL,
  "created_at" BIGINT NOT NULL,
  "expires_at" BIGINT NOT NULL,
  "used_at" BIGINT
)`,
  `CREATE INDEX IF NOT EXISTS "${SIGN_UPS_TABLE}_email_idx" ON "${SIGN_UPS_TABLE}" ("email")`,
  `CREATE TABLE IF NOT EXISTS "${INVITATIONS_TABLE}" (
  "id" TEXT PRIMARY KEY,
  "token_hash" TEXT NOT NULL UNIQUE,
  "email" TEXT NOT NULL,
  "roles" TEXT NOT NULL,
  "invited_by" TEXT NOT NULL REFERENCES "${USERS_TABLE}" ("id") ON DELETE CASCADE,
  "created_at" BIGINT NOT NULL,
  "expires_at" BIGINT NOT NULL,
  "accepted_at" BIGINT,
  "revoked_at" BIGINT
)`,
  `CREATE INDEX IF NOT EXISTS "${INVITATIONS_TABLE}_by_idx" ON "${INVITATIONS_TABLE}" ("invited_by")`,
];

/** A sign-up waiting for its email to be confirmed. */
export interface PendingSignUp {
  email: string;
  name: string;
  role: string;
}

/** An invitation as its sender and the people who manage accounts see it. */
export interface Invitation {
  id: string;
  email: string;
  roles: string[];
  invitedBy: { id: string; name: string };
  /** ISO 8601. */
  createdAt: string;
  expiresAt: string;
}

interface InvitationRow {
  id: string;
  email: string;
  roles: string;
  invited_by: string;
  inviter_name: string | null;
  created_at: number | string;
  expires_at: number | string;
}

const INVITATION_SELECT = `SELECT i."id", i."email", i."roles", i."invited_by", u."name" AS "inviter_name", i."created_at", i."expires_at"
  FROM "${INVITATIONS_TABLE}" i LEFT JOIN "${USERS_TABLE}" u ON u."id" = i."invited_by"`;
/** Neither accepted, nor revoked, nor expired at the bound time. */
const PENDING = `i."accepted_at" IS NULL AND i."revoked_at" IS NULL AND i."expires_at" > ?`;

/** Pending sign-ups and invitations, in the app's database beside users and sessions. */
export class JoiningStore {
  readonly #sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.#sql = sql;
  }

  /** Creates the tables when missing (after the users table, which invitations refer to). */
  async setUp(): Promise<void> {
    await this.#sql.exec(JOINING_DDL);
  }

  // Sign-ups ---------------------------------------------------------------------------------

  /** Keeps a sign-up until its link is followed; the link itself is only in the mail. */
  async createSignUp(signUp: PendingSignUp & { hash: string; now: number; expiresAt: number }): Promise<void> {
    await this.#sql.run(
      `INSERT INTO "${SIGN_UPS_TABLE}" ("token_hash", "email", "name", "role", "created_at", "expires_at")
       VALUES (?, ?, ?, ?, ?, ?)`,
      [signUp.hash, normalizeEmail(signUp.email), signUp.name, signUp.role, signUp.now, signUp.expiresAt],
    );
  }

  /**
   * Marks a sign-up's link used, if it is unused and unexpired at `now`, in one statement: of two
   * requests with the same link, one gets the sign-up and the other nothing.
   */
  async useSignUp(hash: string, now: number): Promise<PendingSignUp | undefined> {
    const row = await first<{ email: string; name: string; role: string }>(
      this.#sql,
      `UPDATE "${SIGN_UPS_TABLE}" SET "used_at" = ?
       WHERE "token_hash" = ? AND "used_at" IS NULL AND "expires_at" > ?
       RETURNING "email", "name", "role"`,
      [now, hash, now],
    );
    return row ? { email: row.email, name: row.name, role: row.role } : undefined;
  }

  /** Ends every sign-up of an email: its account exists now, by this link or another. */
  async endSignUpsOf(email: string): Promise<void> {
    await this.#sql.run(`DELETE FROM "${SIGN_UPS_TABLE}" WHERE "email" = ?`, [normalizeEmail(email)]);
  }

  /** Deletes the sign-ups that expired before `now` (used ones too: they answer as unknown ones do). */
  async pruneSignUps(now: number): Promise<number> {
    return this.#sql.run(`DELETE FROM "${SIGN_UPS_TABLE}" WHERE "expires_at" <= ?`, [now]);
  }

  // Invitations ------------------------------------------------------------------------------

  async createInvitation(invitation: {
    id: string;
    hash: string;
    email: string;
    roles: readonly string[];
    invitedBy: string;
    now: number;
    expiresAt: number;
  }): Promise<void> {
    await this.#sql.run(
      `INSERT INTO "${INVITATIONS_TABLE}" ("id", "token_hash", "email", "roles", "invited_by", "created_at", "expires_at")
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [
        invitation.id,
        invitation.hash,
        normalizeEmail(invitation.email),
        JSON.stringify([...invitation.roles]),
        invitation.invitedBy,
        invitation.now,
        invitation.expiresAt,
      ],
    );
  }

  /** A pending invitation by id. */
  async invitation(id: string, now: number): Promise<Invitation | undefined> {
    const row = await first<InvitationRow>(this.#sql, `${INVITATION_SELECT} WHERE i."id" = ? AND ${PENDING}`, [
      id,
      now,
    ]);
    return row ? invitation(row) : undefined;
  }

  /** The invitation of a link, if it is pending at `now`, without using it. */
  async invitationByToken(hash: string, now: number): Promise<Invitation | undefined> {
    const row = await first<InvitationRow>(this.#sql, `${INVITATION_SELECT} WHERE i."token_hash" = ? AND ${PENDING}`, [
      hash,
      now,
    ]);
    return row ? invitation(row) : undefined;
  }

  /** The invitations pending at `now`, newest first: those one user sent, or all (`by` null). */
  async pendingInvitations(by: string | null, now: number): Promise<Invitation[]> {
    const rows = await this.#sql.all<InvitationRow>(
      `${INVITATION_SELECT} WHERE ${PENDING}${by === null ? '' : ' AND i."invited_by" = ?'}
       ORDER BY i."created_at" DESC, i."id" DESC`,
      by === null ? [now] : [now, by],
    );
    return rows.map(invitation);
  }

  /**
   * Marks an invitation accepted, if it is still pending at `now`, in one statement: of two
   * requests with the same link, one gets the invitation's id and the other nothing.
   */
  async acceptInvitation(hash: string, now: number): Promise<string | undefined> {
    const row = await first<{ id: string }>(
      this.#sql,
      `UPDATE "${INVITATIONS_TABLE}" SET "accepted_at" = ?
       WHERE "token_hash" = ? AND "accepted_at" IS NULL AND "revoked_at" IS NULL AND "expires_at" > ?
       RETURNING "id"`,
      [now, hash, now],
    );
    return row?.id;
  }

  /** Revokes a pending invitation; false when it is not pending (or not the sender's, with `by`). */
  async revokeInvitation(id: string, by: string | null, now: number): Promise<boolean> {
    const changed = await this.#sql.run(
      `UPDATE "${INVITATIONS_TABLE}" SET "revoked_at" = ?
       WHERE "id" = ? AND "accepted_at" IS NULL AND "revoked_at" IS NULL AND "expires_at" > ?${by === null ? '' : ' AND "invited_by" = ?'}`,
      by === null ? [now, id, now] : [now, id, now, by],
    );
    return changed > 0;
  }

  /** Deletes invitations that expired a day or more before `now`, whatever became of them. */
  async pruneInvitations(now: number): Promise<number> {
    return this.#sql.run(`DELETE FROM "${INVITATIONS_TABLE}" WHERE "expires_at" <= ?`, [now - 86_400_000]);
  }
}

function invitation(row: InvitationRow): Invitation {
  let roles: string[] = [];
  try {
    const parsed: unknown = JSON.parse(row.roles);
    if (Array.isArray(parsed)) roles = parsed.filter((r): r is string => typeof r === 'string');
  } catch {
    // A hand-edited row: no roles is the safe reading.
  }
  return {
    id: row.id,
    email: row.email,
    roles,
    invitedBy: { id: row.invited_by, name: row.inviter_name ?? '' },
    createdAt: new Date(Number(row.created_at)).toISOString(),
    expiresAt: new Date(Number(row.expires_at)).toISOString(),
  };
}
