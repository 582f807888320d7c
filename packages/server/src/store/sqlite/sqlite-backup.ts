import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Model } from '@ninepoint/spec';
import Database from 'better-sqlite3';
import type { MigrationPlan } from '../../compile/migration-contract.ts';
import { planMigration } from '../../compile/migration-planner.ts';
import { SCHEMA_TABLE, type SqlSchema } from '../../compile/sql-schema.ts';
import { USERS_TABLE } from '../users-table.ts';
import { quoteIdentifier as q } from './sqlite-ddl.ts';
import { readRecordedSchema, SqliteMigrationProbe } from './sqlite-probe.ts';

/**
 * A backup or restore that was refused, or a file that is not a usable Ninepoint database; its
 * message says why, for the person who asked.
 */
export class BackupError extends Error {
  override name = 'BackupError';
}

/** What a Ninepoint SQLite database holds, as `ninepoint backup` and `restore` report it. */
export interface DatabaseSummary {
  /** The file's size in bytes. */
  bytes: number;
  /** The product of the spec last applied to it, and when. */
  product: string;
  appliedAt: string;
  /** Every table in the file, Ninepoint's own included. */
  tables: number;
  /** Rows per entity of the spec last applied, in the spec's order. */
  records: { entity: string; table: string; count: number }[];
  users: number;
}

/** What `inspectSqliteBackup` found: the backup's contents, and, for a spec, how `serve` would migrate it. */
export interface BackupInspection {
  summary: DatabaseSummary;
  /** The migration `serve` would plan to bring the backup to the spec given, if one was. */
  plan?: MigrationPlan;
}

/** Pages a backup step may copy: all of them, so that the copy is one snapshot (see `copyDatabase`). */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the SQLite database at `source` into `destination` with SQLite's online backup API: a
 * consistent snapshot, including what is still in the write-ahead log, taken while a server keeps
 * writing (WAL lets it). The backup is written next to `destination` under another name, checked
 * (`PRAGMA integrity_check`) and made one self-contained file (rollback journal, no -wal), then
 * renamed into place, so a failed backup never leaves a partial file under the name asked for.
 * Refuses (`BackupError`) a source that is not a Ninepoint database, a destination that exists
 * unless `overwrite`, and a destination that is the source.
 */
export async function backupSqlite(
  source: string,
  destination: string,
  options: { overwrite?: boolean } = {},
): Promise<DatabaseSummary> {
  if (resolve(source) === resolve(destination)) {
    throw new BackupError('The backup must go to another file than the database itself.');
  }
  if (existsSync(destination) && statSync(destination).isDirectory()) {
    throw new BackupError(
      `${destination} is a folder; name the backup file in it, e.g. ${join(destination, 'ninepoint.db')}.`,
    );
  }
  if (existsSync(destination) && options.overwrite !== true) {
    throw new BackupError(`${destination} exists already; choose another name, or pass --force to replace it.`);
  }
  const db = openExisting(source, 'database', { readonly: false });
  const partial = join(dirname(destination), `.${basename(destination)}.partial-${process.pid}`);
  try {
    requireNinepoint(db, source, 'database');
    mkdirSync(dirname(destination), { recursive: true });
    rmSync(partial, { force: true });
    await copyDatabase(db, partial);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    db.close();
  }
  try {
    const copy = new Database(partial, { fileMustExist: true });
    try {
      // A backup keeps the source's WAL mode; as one file it can be copied anywhere as it is.
      copy.pragma('journal_mode = DELETE');
      requireIntact(copy, 'backup');
    } finally {
      copy.close();
    }
    // A backup replaced with --force must not keep a stale log of the file it replaces.
    for (const suffix of ['-wal', '-shm']) rmSync(`${destination}${suffix}`, { force: true });
    renameSync(partial, destination);
    syncFolder(dirname(destination));
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  return summarizeFile(destination);
}

/**
 * Checks that the file at `path` can be restored: an SQLite file that passes
 * `PRAGMA integrity_check`, holding a Ninepoint database whose recorded spec this version reads.
 * With `spec`, also plans the migration `serve` would run to bring it to that spec (the caller
 * decides whether the plan's blocking steps refuse the restore). Throws `BackupError` saying what
 * is wrong; never changes the file.
 */
export async function inspectSqliteBackup(
  path: string,
  spec?: { model: Model; schema: SqlSchema },
): Promise<BackupInspection> {
  const db = openExisting(path, 'backup', { readonly: true });
  try {
    const recorded = requireNinepoint(db, path, 'backup');
    requireIntact(db, 'backup');
    if (recorded.state.model === null) {
      throw new BackupError(
        `${path} holds a Ninepoint database whose spec this version of Ninepoint cannot read (a newer version wrote it?).`,
      );
    }
    const summary = summarize(db, path);
    if (!spec) return { summary };
    const plan = await planMigration({
      previous: recorded.state,
      model: spec.model,
      schema: spec.schema,
      probe: new SqliteMigrationProbe(db),
    });
    return { summary, plan };
  } finally {
    db.close();
  }
}

/** What `restoreSqlite` did: the restored database, and where the one it replaced was put. */
export interface Restored {
  summary: DatabaseSummary;
  /** The database that was at the target, moved aside with its log; null when there was none. */
  replaced: string | null;
}

/**
 * Restores the backup at `backup` as the database at `target`: copied with SQLite's backup API
 * into a new file beside the target, which then takes the target's name. A database already there
 * is moved aside with its write-ahead log, as `<target>.replaced-<UTC time>`, not deleted, so
 * restoring the wrong backup loses nothing. Refuses (`BackupError`) a target that exists unless
 * `overwrite`, and one a running server has open. Check the backup first with
 * `inspectSqliteBackup`.
 */
export async function restoreSqlite(
  backup: string,
  target: string,
  options: { overwrite?: boolean; now?: Date } = {},
): Promise<Restored> {
  if (resolve(backup) === resolve(target)) {
    throw new BackupError('The backup and the database to restore it to are the same file.');
  }
  const exists = existsSync(target);
  if (exists) {
    if (options.overwrite !== true) {
      throw new BackupError(
        `${target} exists already; restoring replaces everything in it. Pass --force to replace it (it is kept beside it).`,
      );
    }
    requireNotInUse(target);
  }
  mkdirSync(dirname(target), { recursive: true });
  const partial = join(dirname(target), `.${basename(target)}.restoring-${process.pid}`);
  rmSync(partial, { force: true });
  const db = openExisting(backup, 'backup', { readonly: true });
  try {
    await copyDatabase(db, partial);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    db.close();
  }
  let replaced: string | null = null;
  if (exists) {
    const stamp = (options.now ?? new Date())
      .toISOString()
      .replace(/\.\d+Z$/, 'Z')
      .replaceAll(':', '-');
    replaced = `${target}.replaced-${stamp}`;
    // The log goes with its database (SQLite finds it by name); the shared-memory index is rebuilt.
    renameSync(target, replaced);
    if (existsSync(`${target}-wal`)) renameSync(`${target}-wal`, `${replaced}-wal`);
    rmSync(`${target}-shm`, { force: true });
  }
  renameSync(partial, target);
  syncFolder(dirname(target));
  return { summary: summarizeFile(target), replaced };
}

/**
 * Copies `db` into the file at `destination` with the backup API, in one step: one read
 * transaction, which WAL lets writers work beside. Smaller steps would each see the server's
 * newest writes, and SQLite restarts a backup whose source changed between steps, possibly
 * without end on a busy server.
 */
async function copyDatabase(db: Database.Database, destination: string): Promise<void> {
  await db.backup(destination, { progress: () => ALL_PAGES });
}

function openExisting(path: string, what: 'database' | 'backup', options: { readonly: boolean }): Database.Database {
  if (!existsSync(path)) throw new BackupError(`There is no ${what} at ${path}.`);
  if (!statSync(path).isFile()) throw new BackupError(`${path} is not a file.`);
  try {
    return new Database(path, { fileMustExist: true, readonly: options.readonly, timeout: 5000 });
  } catch (error) {
    throw new BackupError(`Cannot open ${path}: ${messageOf(error)}.`);
  }
}

/** The recorded schema of a Ninepoint database; refuses any other file. */
function requireNinepoint(db: Database.Database, path: string, what: 'database' | 'backup') {
  let recorded: ReturnType<typeof readRecordedSchema>;
  try {
    recorded = readRecordedSchema(db);
  } catch (error) {
    if (String((error as { code?: unknown }).code).startsWith('SQLITE_CORRUPT')) {
      throw new BackupError(`The ${what} is damaged: ${messageOf(error)}.`);
    }
    throw new BackupError(`${path} is not a usable SQLite database: ${messageOf(error)}.`);
  }
  if (!recorded) {
    throw new BackupError(`${path} is not a Ninepoint database: no spec was ever applied to it (${SCHEMA_TABLE}).`);
  }
  return recorded;
}

function requireIntact(db: Database.Database, what: string): void {
  let problems: string[];
  try {
    problems = db
      .prepare<[], { integrity_check: string }>('PRAGMA integrity_check')
      .all()
      .map((row) => row.integrity_check);
  } catch (error) {
    throw new BackupError(`The ${what} is damaged: ${messageOf(error)}.`);
  }
  if (problems.length !== 1 || problems[0] !== 'ok') {
    throw new BackupError(`The ${what} is damaged (SQLite's integrity check): ${problems.slice(0, 3).join('; ')}.`);
  }
}

/**
 * Refuses a database another process has open: a running server would go on with the old data
 * in its caches and might write into the restored file. In WAL mode an exclusive lock is
 * granted only when no other connection has the file open.
 */
function requireNotInUse(path: string): void {
  const db = new Database(path, { fileMustExist: true, timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('ROLLBACK');
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new BackupError(`${path} is in use (is the app still running?); stop it, then restore.`);
    }
    throw new BackupError(`Cannot replace ${path}: ${messageOf(error)}.`);
  } finally {
    db.close();
  }
}

function summarizeFile(path: string): DatabaseSummary {
  const db = new Database(path, { fileMustExist: true, readonly: true });
  try {
    return summarize(db, path);
  } finally {
    db.close();
  }
}

function summarize(db: Database.Database, path: string): DatabaseSummary {
  const names = new Set(
    db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all()
      .map((row) => row.name),
  );
  const count = (table: string) =>
    names.has(table) ? (db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${q(table)}`).get()?.n ?? 0) : 0;
  const latest = db
    .prepare<[], { product: string; applied_at: string }>(
      `SELECT "product", "applied_at" FROM ${q(SCHEMA_TABLE)} ORDER BY "id" DESC LIMIT 1`,
    )
    .get();
  const tables = readRecordedSchema(db)?.state.tables ?? [];
  return {
    bytes: statSync(path).size,
    product: latest?.product ?? '',
    appliedAt: latest?.applied_at ?? '',
    tables: names.size,
    records: tables.map((t) => ({ entity: t.entity, table: t.name, count: count(t.name) })),
    users: count(USERS_TABLE),
  };
}

/** Makes a rename in `folder` durable: a nightly backup must not vanish with a power cut after it. */
function syncFolder(folder: string): void {
  if (process.platform === 'win32') return; // Windows cannot open a folder to sync it.
  const fd = openSync(folder, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
}
