import type { SqlRunner } from '../store/sql-runner.ts';
import { USERS_TABLE } from '../store/users-table.ts';

/**
 * A list view a user saved by name: the screen it is of (its route) and the list's address query
 * (`filter[state]=out&sort=-due&columns=title,due`), which the web app reads as it reads its own
 * address. The query is kept as the user's text: the app reading it drops what no longer fits the
 * spec, so a view outlives a field's removal.
 */
export interface SavedView {
  id: string;
  screen: string;
  name: string;
  query: string;
  /** ISO 8601: when it was saved (last replaced). */
  savedAt: string;
  /** The role it is shared with (everyone holding it sees it), or null for the user's own. */
  role: string | null;
  /** Whether the caller may replace or delete it: their own, or a shared one they may share. */
  mayChange: boolean;
}

export const SAVED_VIEWS_TABLE = '_ninepoint_saved_views';
/** Views shared with a role: one name per screen and role, kept when their author leaves. */
export const SHARED_VIEWS_TABLE = '_ninepoint_shared_views';

/** Like the auth tables: on both databases, deleted with their user. One name per user and screen. */
export const SAVED_VIEWS_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS "${SAVED_VIEWS_TABLE}" (
  "id" TEXT PRIMARY KEY,
  "user_id" TEXT NOT NULL REFERENCES "${USERS_TABLE}" ("id") ON DELETE CASCADE,
  "screen" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "query" TEXT NOT NULL,
  "saved_at" BIGINT NOT NULL,
  UNIQUE ("user_id", "screen", "name")
)`,
  `CREATE TABLE IF NOT EXISTS "${SHARED_VIEWS_TABLE}" (
  "id" TEXT PRIMARY KEY,
  "user_id" TEXT REFERENCES "${USERS_TABLE}" ("id") ON DELETE SET NULL,
  "role" TEXT NOT NULL,
  "screen" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "query" TEXT NOT NULL,
  "saved_at" BIGINT NOT NULL,
  UNIQUE ("screen", "role", "name")
)`,
];

interface ViewRow {
  id: string;
  screen: string;
  name: string;
  query: string;
  saved_at: number | string;
  role?: string;
}

const COLUMNS = '"id", "screen", "name", "query", "saved_at"';

function view(row: ViewRow, mayChange = true): SavedView {
  return {
    id: row.id,
    screen: row.screen,
    name: row.name,
    query: row.query,
    savedAt: new Date(Number(row.saved_at)).toISOString(),
    role: row.role ?? null,
    mayChange,
  };
}

/** Saved list views, per user: every method takes the user, and no call reads another's. */
export class SavedViewsStore {
  readonly #sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.#sql = sql;
  }

  /** Creates the table when missing. */
  async setUp(): Promise<void> {
    await this.#sql.exec(SAVED_VIEWS_DDL);
  }

  /** A user's views of one screen, by name. */
  async list(userId: string, screen: string): Promise<SavedView[]> {
    const rows = await this.#sql.all<ViewRow>(
      `SELECT ${COLUMNS} FROM "${SAVED_VIEWS_TABLE}" WHERE "user_id" = ? AND "screen" = ? ORDER BY "name", "id"`,
      [userId, screen],
    );
    return rows.map((row) => view(row));
  }

  /**
   * Saves a view under its name: a view of the same name on the same screen is replaced (keeping
   * its id). Answers the view and whether it is new.
   */
  async save(
    userId: string,
    input: { id: string; screen: string; name: string; query: string },
    at: number,
  ): Promise<{ view: SavedView; created: boolean }> {
    // One statement both databases take: a second save of a name updates it in place.
    const rows = await this.#sql.all<ViewRow>(
      `INSERT INTO "${SAVED_VIEWS_TABLE}" ("id", "user_id", "screen", "name", "query", "saved_at") VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT ("user_id", "screen", "name") DO UPDATE SET "query" = excluded."query", "saved_at" = excluded."saved_at"
RETURNING ${COLUMNS}`,
      [input.id, userId, input.screen, input.name, input.query, at],
    );
    const row = rows[0];
    if (!row) throw new Error('saving a view returned no row');
    return { view: view(row), created: row.id === input.id };
  }

  /**
   * The views of a screen shared with any of these roles, by name then role; `mayShare` says for
   * each role whether the caller may replace or delete its views.
   */
  async listShared(
    roles: readonly string[],
    screen: string,
    mayShare: (role: string) => boolean,
  ): Promise<SavedView[]> {
    if (roles.length === 0) return [];
    const rows = await this.#sql.all<ViewRow>(
      `SELECT ${COLUMNS}, "role" FROM "${SHARED_VIEWS_TABLE}" WHERE "screen" = ? AND "role" IN (${roles.map(() => '?').join(', ')}) ORDER BY "name", "role", "id"`,
      [screen, ...roles],
    );
    return rows.map((row) => view(row, mayShare(String(row.role))));
  }

  /** A shared view by id, or null. */
  async shared(id: string): Promise<SavedView | null> {
    const rows = await this.#sql.all<ViewRow>(`SELECT ${COLUMNS}, "role" FROM "${SHARED_VIEWS_TABLE}" WHERE "id" = ?`, [
      id,
    ]);
    return rows[0] ? view(rows[0]) : null;
  }

  /** Shares a view with a role: a view of the same name on the screen for that role is replaced (keeping its id). */
  async saveShared(
    userId: string,
    input: { id: string; screen: string; name: string; query: string; role: string },
    at: number,
  ): Promise<{ view: SavedView; created: boolean }> {
    const rows = await this.#sql.all<ViewRow>(
      `INSERT INTO "${SHARED_VIEWS_TABLE}" ("id", "user_id", "role", "screen", "name", "query", "saved_at") VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT ("screen", "role", "name") DO UPDATE SET "query" = excluded."query", "saved_at" = excluded."saved_at", "user_id" = excluded."user_id"
RETURNING ${COLUMNS}, "role"`,
      [input.id, userId, input.role, input.screen, input.name, input.query, at],
    );
    const row = rows[0];
    if (!row) throw new Error('sharing a view returned no row');
    return { view: view(row), created: row.id === input.id };
  }

  /**
   * Room for a shared view of a screen and role, in one query: how many there are (to keep within
   * the limit), and whether one is named `name` already (saving it again replaces it).
   */
  async sharedRoom(screen: string, role: string, name: string): Promise<{ count: number; named: boolean }> {
    const rows = await this.#sql.all<{ n: number | string; named: number | string }>(
      `SELECT COUNT(*) AS "n", COUNT(CASE WHEN "name" = ? THEN 1 END) AS "named" FROM "${SHARED_VIEWS_TABLE}" WHERE "screen" = ? AND "role" = ?`,
      [name, screen, role],
    );
    return { count: Number(rows[0]?.n ?? 0), named: Number(rows[0]?.named ?? 0) > 0 };
  }

  /** Deletes a shared view; false when there is none with this id. */
  async deleteShared(id: string): Promise<boolean> {
    return (await this.#sql.run(`DELETE FROM "${SHARED_VIEWS_TABLE}" WHERE "id" = ?`, [id])) > 0;
  }

  /** Deletes one of the user's views; false when the user has none with this id. */
  async delete(userId: string, id: string): Promise<boolean> {
    return (
      (await this.#sql.run(`DELETE FROM "${SAVED_VIEWS_TABLE}" WHERE "id" = ? AND "user_id" = ?`, [id, userId])) > 0
    );
  }
}
