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
}

export const SAVED_VIEWS_TABLE = '_ninepoint_saved_views';

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
];

interface ViewRow {
  id: string;
  screen: string;
  name: string;
  query: string;
  saved_at: number | string;
}

const COLUMNS = '"id", "screen", "name", "query", "saved_at"';

function view(row: ViewRow): SavedView {
  return {
    id: row.id,
    screen: row.screen,
    name: row.name,
    query: row.query,
    savedAt: new Date(Number(row.saved_at)).toISOString(),
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
    return rows.map(view);
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

  /** Deletes one of the user's views; false when the user has none with this id. */
  async delete(userId: string, id: string): Promise<boolean> {
    return (
      (await this.#sql.run(`DELETE FROM "${SAVED_VIEWS_TABLE}" WHERE "id" = ? AND "user_id" = ?`, [id, userId])) > 0
    );
  }
}
