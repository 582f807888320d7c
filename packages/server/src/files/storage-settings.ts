import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DiskStorage } from './disk-storage.ts';
import type { FileStorage } from './file-storage.ts';

/** Where files go: a folder, or an `s3://bucket/prefix` address (`s3-storage.ts`). */
export interface StorageSettings {
  /** `FILE_STORAGE` / `--file-storage`: a folder, or `s3://bucket/prefix`. Default: `files/` beside the database. */
  fileStorage?: string | FileStorage | undefined;
  /** The SQLite file, beside which files go by default. */
  dbPath?: string | undefined;
  /** Set when the database is PostgreSQL: files then go to `data/files` unless told otherwise. */
  databaseUrl?: string | undefined;
  /** S3's settings besides the address (`AWS_*`, `S3_ENDPOINT`): `process.env` by default. */
  env?: NodeJS.ProcessEnv;
}

/** The folder files go to when nothing says: `files/` beside the SQLite file, `data/files` beside a PostgreSQL app. */
export function defaultFilesFolder(settings: StorageSettings): string {
  if (settings.databaseUrl) return resolve('data', 'files');
  const db = settings.dbPath ?? 'data/ninepoint.db';
  // An in-memory database keeps nothing: its files go to a folder of their own that nothing else uses.
  if (db === ':memory:') return mkdtempSync(join(tmpdir(), 'ninepoint-files-'));
  return resolve(dirname(db), 'files');
}

/** The storage the settings name. */
export async function fileStorageFrom(settings: StorageSettings): Promise<FileStorage> {
  const given = settings.fileStorage;
  if (given !== undefined && typeof given !== 'string') return given;
  if (given?.startsWith('s3://')) {
    const { S3Storage } = await import('./s3-storage.ts');
    return S3Storage.fromUrl(given, settings.env ?? process.env);
  }
  return new DiskStorage(given ? resolve(given) : defaultFilesFolder(settings));
}
