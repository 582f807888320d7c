import type { Entity, Field, FieldTypeOfKind } from '@ninepoint/spec';
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ProblemError } from '../compile/problems.ts';
import type { ApiRecord } from '../compile/record-types.ts';
import type { Store } from '../store/store.ts';
import type { FileStorage } from './file-storage.ts';
import type { FileRow, FilesTable } from './files-tables.ts';
import { receiveUpload, type Upload } from './receive-upload.ts';
import { THUMBNAIL_SIZES, thumbnailKey } from './thumbnails.ts';

/** How long a file may stay pending before the sweep decides it: longer than any upload may take. */
export const PENDING_GRACE_MS = 60 * 60 * 1000;
/** How often the sweep runs (and once at start). */
export const SWEEP_INTERVAL_MS = 10 * 60 * 1000;
const SWEEP_BATCH = 200;

/** A file field's value: the ids of its files, joined by commas (one id for a single file). */
export function fileIdsOf(value: unknown): string[] {
  return typeof value === 'string' && value !== '' ? value.split(',') : [];
}

/** Whether a field holds files. */
export function isFileField(field: Field): field is Field & { type: FieldTypeOfKind<'file'> } {
  return field.type.kind === 'file';
}

/**
 * What the records feature asks of files as it writes: uploads read from a multipart write, the
 * new value of each file field, and after the write commits, files attached or removed. The
 * write itself (permissions, rules, limits, history) stays the records feature's, in one
 * transaction; a file's bytes are stored before it and removed when it is refused.
 */
export class RecordFiles {
  readonly #storage: FileStorage;
  readonly #table: FilesTable;
  readonly #store: Store;
  readonly #now: () => number;
  readonly #logger: Logger | null;
  readonly #maxRecordBytes: number;

  constructor(options: {
    storage: FileStorage;
    table: FilesTable;
    store: Store;
    now: () => number;
    logger?: Logger | null;
    maxRecordBytes: number;
  }) {
    this.#storage = options.storage;
    this.#table = options.table;
    this.#store = options.store;
    this.#now = options.now;
    this.#logger = options.logger ?? null;
    this.#maxRecordBytes = options.maxRecordBytes;
  }

  get storage(): FileStorage {
    return this.#storage;
  }

  get table(): FilesTable {
    return this.#table;
  }

  /** Whether a write sends files (multipart/form-data) rather than JSON. */
  isUpload(request: FastifyRequest): boolean {
    return request.isMultipart();
  }

  /**
   * Streams a multipart write's files to storage, pending until `settle`; `takes` names the file
   * fields the call takes (a part for any other is refused).
   */
  receive(request: FastifyRequest, entity: Entity, recordId: string, takes: ReadonlySet<string>): Promise<Upload> {
    return receiveUpload(request, {
      storage: this.#storage,
      table: this.#table,
      entity,
      takes,
      recordId,
      actorId: request.actor.userId,
      now: this.#now,
      maxRecordBytes: this.#maxRecordBytes,
    });
  }

  /**
   * After a committed write: the files the record now holds are attached, those it held before
   * and no longer does (replaced, removed, the record deleted) are removed, bytes and all. A
   * failure here is logged, not answered: the write stands, and the sweep finishes what is left.
   */
  async settle(entity: Entity, before: ApiRecord | null, after: ApiRecord | null): Promise<void> {
    const files = entity.fields.filter(isFileField);
    if (files.length === 0) return;
    const held = new Set(files.flatMap((f) => fileIdsOf(after?.[f.name])));
    const gone = files.flatMap((f) => fileIdsOf(before?.[f.name])).filter((id) => !held.has(id));
    try {
      await this.#table.attach([...held]);
      await this.#remove(gone);
    } catch (error) {
      this.#logger?.error({ err: error }, 'files: could not settle the files of a write');
    }
  }

  async #remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    for (const row of await this.#table.markRemoved(ids, this.#now())) {
      await this.#storage.remove(row.storageKey);
      for (const size of THUMBNAIL_SIZES) await this.#storage.remove(thumbnailKey(row.storageKey, size));
    }
  }

  /**
   * Pending files older than `PENDING_GRACE_MS`: a write whose server stopped before it settled
   * (the record holds the file: attached), or an upload cut off or refused when its server was
   * killed (no record holds it: its bytes and row removed). Runs at start and every
   * `SWEEP_INTERVAL_MS`; answers how many files it attached and removed.
   */
  async sweep(now = this.#now()): Promise<{ attached: number; removed: number }> {
    let attached = 0;
    let removed = 0;
    for (;;) {
      const rows = await this.#table.pendingBefore(now - PENDING_GRACE_MS, SWEEP_BATCH);
      for (const row of rows) {
        if (await this.#held(row)) {
          await this.#table.attach([row.id]);
          attached++;
        } else {
          await this.#storage.remove(row.storageKey);
          await this.#table.forget(row.id);
          removed++;
        }
      }
      if (rows.length < SWEEP_BATCH) return { attached, removed };
    }
  }

  async #held(row: FileRow): Promise<boolean> {
    const stored = await this.#store.records(row.entity).get(row.recordId);
    return fileIdsOf(stored?.record[row.field]).includes(row.id);
  }

  /** Refuses a file field that the write sets by value (ids) to files it did not hold or upload. */
  static checkHeld(
    field: Field & { type: FieldTypeOfKind<'file'> },
    next: unknown,
    current: unknown,
    uploaded: readonly string[],
  ): void {
    const ids = fileIdsOf(next);
    const allowed = new Set([...fileIdsOf(current), ...uploaded]);
    if (ids.some((id) => !allowed.has(id)) || new Set(ids).size !== ids.length) {
      throw new ProblemError(
        'VALIDATION_FAILED',
        {},
        {
          errors: [
            {
              field: field.name,
              code: 'READ_ONLY_FIELD',
              message: `${field.name} keeps only files it holds or that are uploaded with the write.`,
            },
          ],
        },
      );
    }
    if (ids.length > field.type.maxFiles) {
      throw new ProblemError('TOO_MANY_FILES', { field: field.name, max: field.type.maxFiles });
    }
  }

  close(): Promise<void> {
    return this.#storage.close?.() ?? Promise.resolve();
  }
}

export type { Upload };
