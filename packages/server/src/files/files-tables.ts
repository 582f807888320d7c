import type { SqlRunner } from '../store/sql-runner.ts';

/**
 * What the app knows of each uploaded file, in its own table on both databases: where its bytes
 * are (`storage_key`), the record and field holding it, and what history shows of it (name, size,
 * kind, who, when). Never the content.
 *
 * A file's row is written `pending` before its bytes are stored, and `attached` once the record
 * holding it is committed; a file the record no longer holds (replaced, removed, the record
 * deleted) is `removed`: its bytes are deleted at once, its row kept so history can still name it.
 */
export const FILES_TABLE = '_ninepoint_files';

export const FILES_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS "${FILES_TABLE}" (
  "id" TEXT PRIMARY KEY,
  "storage_key" TEXT NOT NULL UNIQUE,
  "entity" TEXT NOT NULL,
  "record_id" TEXT NOT NULL,
  "field" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "size" BIGINT NOT NULL,
  "mime" TEXT NOT NULL,
  "kind" TEXT,
  "created_by" TEXT,
  "created_at" BIGINT NOT NULL,
  "state" TEXT NOT NULL,
  "removed_at" BIGINT
)`,
  `CREATE INDEX IF NOT EXISTS "${FILES_TABLE}_state" ON "${FILES_TABLE}" ("state", "created_at")`,
];

export type FileState = 'pending' | 'attached' | 'removed';

/** One file as the app knows it. */
export interface FileRow {
  id: string;
  storageKey: string;
  entity: string;
  recordId: string;
  field: string;
  name: string;
  size: number;
  mime: string;
  /** The spec's word for its kind (`pdf`, `png`), or null for bytes no known kind matches. */
  kind: string | null;
  createdBy: string | null;
  /** Milliseconds since the epoch. */
  createdAt: number;
  state: FileState;
  removedAt: number | null;
}

interface Row {
  id: string;
  storage_key: string;
  entity: string;
  record_id: string;
  field: string;
  name: string;
  size: number | string;
  mime: string;
  kind: string | null;
  created_by: string | null;
  created_at: number | string;
  state: FileState;
  removed_at: number | string | null;
}

const COLUMNS =
  '"id", "storage_key", "entity", "record_id", "field", "name", "size", "mime", "kind", "created_by", "created_at", "state", "removed_at"';

function fileRow(row: Row): FileRow {
  return {
    id: row.id,
    storageKey: row.storage_key,
    entity: row.entity,
    recordId: row.record_id,
    field: row.field,
    name: row.name,
    size: Number(row.size),
    mime: row.mime,
    kind: row.kind,
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
    state: row.state,
    removedAt: row.removed_at === null ? null : Number(row.removed_at),
  };
}

/** The files table. */
export class FilesTable {
  readonly #sql: SqlRunner;

  constructor(sql: SqlRunner) {
    this.#sql = sql;
  }

  async setUp(): Promise<void> {
    await this.#sql.exec(FILES_DDL);
  }

  /** Notes a file about to be stored, before any of its bytes are. */
  async addPending(file: Omit<FileRow, 'state' | 'removedAt'>): Promise<void> {
    await this.#sql.run(
      `INSERT INTO "${FILES_TABLE}" (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', NULL)`,
      [
        file.id,
        file.storageKey,
        file.entity,
        file.recordId,
        file.field,
        file.name,
        file.size,
        file.mime,
        file.kind,
        file.createdBy,
        file.createdAt,
      ],
    );
  }

  /** What the bytes turned out to be, once stored. */
  async described(id: string, size: number, mime: string, kind: string | null): Promise<void> {
    await this.#sql.run(`UPDATE "${FILES_TABLE}" SET "size" = ?, "mime" = ?, "kind" = ? WHERE "id" = ?`, [
      size,
      mime,
      kind,
      id,
    ]);
  }

  async get(id: string): Promise<FileRow | undefined> {
    const row = await this.#sql.get<Row>(`SELECT ${COLUMNS} FROM "${FILES_TABLE}" WHERE "id" = ?`, [id]);
    return row ? fileRow(row) : undefined;
  }

  /** Pending files the record now holds: attached. */
  async attach(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      await this.#sql.run(`UPDATE "${FILES_TABLE}" SET "state" = 'attached' WHERE "id" = ? AND "state" = 'pending'`, [
        id,
      ]);
    }
  }

  /** Files no record holds any more: removed (their rows stay for history). */
  async markRemoved(ids: readonly string[], at: number): Promise<FileRow[]> {
    const removed: FileRow[] = [];
    for (const id of ids) {
      const row = await this.get(id);
      if (!row || row.state === 'removed') continue;
      await this.#sql.run(`UPDATE "${FILES_TABLE}" SET "state" = 'removed', "removed_at" = ? WHERE "id" = ?`, [at, id]);
      removed.push(row);
    }
    return removed;
  }

  /** Forgets a pending file that was never part of a record (a refused write, a cut-off upload). */
  async forget(id: string): Promise<void> {
    await this.#sql.run(`DELETE FROM "${FILES_TABLE}" WHERE "id" = ? AND "state" = 'pending'`, [id]);
  }

  /** Pending files older than `before` (ms): uploads that never finished, or whose server stopped after the write. */
  async pendingBefore(before: number, limit: number): Promise<FileRow[]> {
    const rows = await this.#sql.all<Row>(
      `SELECT ${COLUMNS} FROM "${FILES_TABLE}" WHERE "state" = 'pending' AND "created_at" < ? ORDER BY "created_at" LIMIT ?`,
      [before, limit],
    );
    return rows.map(fileRow);
  }

  /** Every file whose bytes are kept (pending or attached), for `ninepoint backup` and tests. */
  async kept(): Promise<FileRow[]> {
    const rows = await this.#sql.all<Row>(
      `SELECT ${COLUMNS} FROM "${FILES_TABLE}" WHERE "state" <> 'removed' ORDER BY "created_at", "id"`,
    );
    return rows.map(fileRow);
  }
}
