import type { Readable } from 'node:stream';

/**
 * Where files' bytes are kept: a folder (`disk-storage.ts`) or an S3-compatible bucket
 * (`s3-storage.ts`), behind one small interface. Keys are 256 random bits (`newStorageKey`), never
 * a file's name, so nothing about a file can be guessed from where it is kept.
 */
export interface FileStorage {
  /** Where the files are, for the start's log line and `ninepoint backup`. */
  readonly description: string;
  /**
   * Keeps the bytes of `source` under `key`; resolves once they are all kept, rejects (keeping
   * nothing) when `source` fails, as a size limit makes it do half way.
   */
  write(key: string, source: Readable, size?: number): Promise<void>;
  /** The bytes under `key`, or null when nothing is kept there. */
  read(key: string): Promise<Readable | null>;
  /** Forgets `key` and anything half written under it; no error when there is nothing. */
  remove(key: string): Promise<void>;
  /**
   * A short-lived address the browser may fetch the bytes from directly (S3's presigned URLs), or
   * null when the app serves them itself. Only called after the record's read permission is checked.
   */
  presign?(key: string, download: { filename: string; mime: string; inline: boolean }): Promise<string | null>;
  /** Closes what the storage holds open (connections). */
  close?(): Promise<void>;
}
