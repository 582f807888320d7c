import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../compile/problems.ts';
import type { ApiRecord } from '../compile/record-types.ts';
import type { RequestActor } from '../people/index.ts';
import { UUID } from '../store/uuidv7.ts';
import { contentDisposition, FILE_CSP, servedInline } from './download-headers.ts';
import type { FileRow } from './files-tables.ts';
import { fileIdsOf, type RecordFiles } from './record-files.ts';
import { THUMBNAIL_SIZES, thumbnail } from './thumbnails.ts';
import { counted } from './upload-garbage.ts';

/** A record as an actor may read it (the records feature's get, with its hidden fields left out), or null. */
export type RecordReader = (actor: RequestActor, entity: string, id: string) => Promise<ApiRecord | null>;

/** What `GET /api/files/{id}/about` answers: what is known of a file, never its content. */
export interface FileAbout {
  id: string;
  name: string;
  size: number;
  mime: string;
  kind: string | null;
  image: boolean;
  entity: string;
  record: string;
  field: string;
  createdAt: string;
  createdBy: string | null;
  /** Replaced or removed, or its record deleted: its bytes are gone, its row stays for history. */
  removed: boolean;
}

/**
 * The files' own calls. A file is served only through the record that holds it, read as the
 * caller may read it: a file of a record they may not read, of a field hidden from them, or no
 * longer held by its record answers FILE_NOT_FOUND, as one that never existed does.
 */
export function registerFileRoutes(app: FastifyInstance, files: RecordFiles, readRecord: RecordReader): void {
  /** The file's row when the caller may read the record holding it in this field, else FILE_NOT_FOUND. */
  const readable = async (request: FastifyRequest, current: boolean): Promise<FileRow> => {
    const raw = (request.params as { id?: string }).id ?? '';
    const id = raw.toLowerCase();
    const missing = () => new ProblemError('FILE_NOT_FOUND', { id: raw.slice(0, 64) });
    if (!UUID.test(id)) throw missing();
    const row = await files.table.get(id);
    if (!row) throw missing();
    const record = await readRecord(request.actor, row.entity, row.recordId);
    // A hidden field is left out of the record as read: its files are not the caller's to see.
    if (!record || !Object.hasOwn(record, row.field)) throw missing();
    const held = fileIdsOf(record[row.field]).includes(row.id);
    if (row.state === 'pending') {
      // Its write committed and the server stopped before settling it (killed): the record is the
      // truth, so the file is attached now rather than an hour later by the sweep.
      if (!held) throw missing();
      await files.table.attach([row.id]);
      return { ...row, state: 'attached' };
    }
    if (current && (row.state !== 'attached' || !held)) throw missing();
    return row;
  };

  app.get('/api/files/:id', async (request, reply) => {
    const row = await readable(request, true);
    const inline = servedInline(row);
    if (files.storage.presign && (request.query as { direct?: string }).direct === 'true') {
      const url = await files.storage.presign(row.storageKey, { filename: row.name, mime: row.mime, inline });
      if (url) return reply.code(303).header('cache-control', 'no-store').header('location', url).send();
    }
    const etag = `"${row.id}"`;
    fileHeaders(reply, row, inline).header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    const bytes = await files.storage.read(row.storageKey);
    if (!bytes) {
      request.log.error({ file: row.id, key: row.storageKey }, 'files: the bytes of an attached file are missing');
      throw new ProblemError('FILE_NOT_FOUND', { id: row.id });
    }
    return reply.header('content-length', row.size).type(row.mime).send(counted(bytes));
  });

  app.get('/api/files/:id/thumbnail', async (request, reply) => {
    const row = await readable(request, true);
    const asked = Number((request.query as { size?: string }).size ?? THUMBNAIL_SIZES[0]);
    const size = THUMBNAIL_SIZES.find((s) => s === asked);
    if (size === undefined) {
      throw new ProblemError('INVALID_PAYLOAD', { detail: `size is one of ${THUMBNAIL_SIZES.join(', ')}` });
    }
    // Only a raster image has one; a thumbnail of anything else is no more found than the file's own.
    if (!servedInline(row)) throw new ProblemError('FILE_NOT_FOUND', { id: row.id });
    let bytes: Readable | null;
    try {
      bytes = await thumbnail(files.storage, row, size);
    } catch (error) {
      request.log.warn({ err: error, file: row.id }, 'files: no thumbnail could be made');
      throw new ProblemError('FILE_NOT_FOUND', { id: row.id });
    }
    if (!bytes) throw new ProblemError('FILE_NOT_FOUND', { id: row.id });
    return fileHeaders(reply, { ...row, name: `${row.name}.webp`, kind: 'webp' }, true)
      .header('cache-control', 'private, max-age=3600')
      .type('image/webp')
      .send(bytes);
  });

  app.get('/api/files/:id/about', async (request, reply) => {
    const row = await readable(request, false);
    return reply.header('cache-control', 'private, no-cache').send(about(row));
  });
}

/** The headers every served file has: its disposition, no sniffing, the sandbox, cached privately. */
export function fileHeaders(reply: FastifyReply, row: FileRow, inline: boolean): FastifyReply {
  return reply
    .header('content-disposition', contentDisposition(row, inline))
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', FILE_CSP)
    .header('cross-origin-resource-policy', 'same-origin')
    .header('cache-control', 'private, no-cache');
}

function about(row: FileRow): FileAbout {
  return {
    id: row.id,
    name: row.name,
    size: row.size,
    mime: row.mime,
    kind: row.kind,
    image: servedInline(row),
    entity: row.entity,
    record: row.recordId,
    field: row.field,
    createdAt: new Date(row.createdAt).toISOString(),
    createdBy: row.createdBy,
    removed: row.state === 'removed',
  };
}
