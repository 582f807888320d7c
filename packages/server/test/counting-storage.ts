import type { Readable } from 'node:stream';
import type { FileStorage } from '../src/files/file-storage.ts';

/**
 * A real storage (a folder, a bucket) that notes each read and write it is asked for, in order:
 * what an upload costs in storage round trips (on S3 each is a GET or a PUT).
 */
export class CountingStorage implements FileStorage {
  readonly #inner: FileStorage;
  readonly description: string;
  /** `read` or `write`, one per call, in order. */
  readonly calls: ('read' | 'write')[] = [];

  constructor(inner: FileStorage) {
    this.#inner = inner;
    this.description = inner.description;
  }

  write(key: string, source: Readable, size?: number): Promise<void> {
    this.calls.push('write');
    return this.#inner.write(key, source, size);
  }

  read(key: string): Promise<Readable | null> {
    this.calls.push('read');
    return this.#inner.read(key);
  }

  remove(key: string): Promise<void> {
    return this.#inner.remove(key);
  }

  close(): Promise<void> {
    return this.#inner.close?.() ?? Promise.resolve();
  }
}
