import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FileStorage } from './file-storage.ts';

/** A key as `newStorageKey` makes them (base64url of 32 random bytes), or a thumbnail's beside it. */
const KEY = /^[A-Za-z0-9_-]{43}(-t\d{2,4})?$/;

/**
 * Files in a folder (by default `files/` beside the SQLite database): `<root>/<first two
 * characters of the key>/<key>`, so no folder holds too many. A file is written to `<key>.part`
 * and renamed when complete, so a file under its key is always whole; a `.part` left by a crash
 * is removed with its pending row by the sweep (`record-files.ts`).
 */
export class DiskStorage implements FileStorage {
  readonly #root: string;
  readonly description: string;

  constructor(root: string) {
    this.#root = root;
    this.description = `the folder ${root}`;
  }

  /** The folder the files are kept in. */
  get root(): string {
    return this.#root;
  }

  #path(key: string): string {
    if (!KEY.test(key)) throw new Error(`"${key}" is not a storage key.`);
    return join(this.#root, key.slice(0, 2), key);
  }

  async write(key: string, source: Readable): Promise<void> {
    const path = this.#path(key);
    await mkdir(join(this.#root, key.slice(0, 2)), { recursive: true });
    const part = `${path}.part`;
    try {
      await pipeline(source, createWriteStream(part, { flags: 'wx' }));
      // The bytes reach the disk before the name does: a crash never leaves a short file under its key.
      const handle = await open(part, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(part, path);
    } catch (error) {
      await rm(part, { force: true });
      throw error;
    }
  }

  async read(key: string): Promise<Readable | null> {
    const stream = createReadStream(this.#path(key));
    // Open before answering: a missing file is null, not an error half way through a download.
    return new Promise((resolve, reject) => {
      stream.once('open', () => resolve(stream));
      stream.once('error', (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? resolve(null) : reject(error)));
    });
  }

  async remove(key: string): Promise<void> {
    const path = this.#path(key);
    await rm(path, { force: true });
    await rm(`${path}.part`, { force: true });
  }
}
