import { copyFile, mkdir, readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { FILES_TABLE } from './files-tables.ts';

/** What copying the files of a backup did. */
export interface FilesCopied {
  copied: number;
  bytes: number;
  /** Files the backup's database names that were not in the folder (removed since the snapshot). */
  missing: number;
}

/** The folder `ninepoint backup` keeps a database backup's files in: `<backup file>.files`. */
export function backupFilesFolder(backupFile: string): string {
  return `${backupFile}.files`;
}

/**
 * Copies the files a database backup's records hold (its `_ninepoint_files` rows that are not
 * removed) from the disk store's folder into `destination`, in the store's own layout, so the
 * backup file and its folder are the app's data at one moment. A file is never changed once
 * stored (a replaced one gets a new key), so copying after the snapshot copies exactly the
 * snapshot's files, except one removed meanwhile (a record replaced or deleted its file since):
 * counted as missing, for the command to say.
 */
export async function backupFiles(backupDb: string, folder: string, destination: string): Promise<FilesCopied> {
  const keys = storedKeys(backupDb);
  const done: FilesCopied = { copied: 0, bytes: 0, missing: 0 };
  for (const key of keys) {
    const from = join(folder, key.slice(0, 2), key);
    const to = join(destination, key.slice(0, 2), key);
    try {
      const size = (await stat(from)).size;
      await mkdir(dirname(to), { recursive: true });
      await copyFile(from, to);
      done.copied++;
      done.bytes += size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      done.missing++;
    }
  }
  return done;
}

/** Copies a backup's files into the disk store's folder, keeping any file already there. */
export async function restoreFiles(source: string, folder: string): Promise<FilesCopied> {
  const done: FilesCopied = { copied: 0, bytes: 0, missing: 0 };
  let entries: string[];
  try {
    entries = await readdir(source, { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return done;
    throw error;
  }
  for (const entry of entries) {
    const from = join(source, entry);
    const info = await stat(from);
    if (!info.isFile()) continue;
    const to = join(folder, entry);
    await mkdir(dirname(to), { recursive: true });
    try {
      await copyFile(from, to, 1 /* COPYFILE_EXCL: keep a file already there */);
      done.copied++;
      done.bytes += info.size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return done;
}

/** The storage keys a database's files table holds (none when it has no files table). */
function storedKeys(dbFile: string): string[] {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?").get(FILES_TABLE);
    if (!table) return [];
    return (
      db.prepare(`SELECT "storage_key" AS key FROM "${FILES_TABLE}" WHERE "state" <> 'removed'`).all() as {
        key: string;
      }[]
    ).map((r) => r.key);
  } finally {
    db.close();
  }
}
