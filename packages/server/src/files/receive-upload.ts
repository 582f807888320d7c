import { Readable, Transform, type TransformCallback } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { MultipartFile, MultipartValue } from '@fastify/multipart';
import { type Entity, FILE_FORMATS, type FieldTypeOfKind, kindOfDetected, sizeWords } from '@ninepoint/spec';
import type { FastifyRequest } from 'fastify';
import { fileTypeFromBuffer } from 'file-type';
import { ProblemError } from '../compile/problems.ts';
import { uuidv7 } from '../store/uuidv7.ts';
import type { FileStorage } from './file-storage.ts';
import type { FileRow, FilesTable } from './files-tables.ts';
import { withoutImageMetadata } from './image-metadata.ts';
import { newStorageKey } from './storage-keys.ts';
import { streamedBytes } from './upload-garbage.ts';

/** The multipart part that carries the record's other fields, as JSON. */
export const RECORD_PART = 'record';
/** How many first bytes decide a file's kind: enough for the zip-based office formats' first entry. */
const SAMPLE_BYTES = 64 * 1024;
/** The longest file name kept, in characters. */
export const MAX_FILE_NAME = 255;
/** Path separators and control characters (C0, DEL, C1) and the Unicode line and paragraph separators. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point.
const BAD_NAME = /[/\\\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** The files an upload stored (pending), by field, and the record part it carried. */
export interface Upload {
  /** The `record` part's JSON, or undefined when there was none. */
  body: unknown;
  /** The new files' ids by field, in the order sent. */
  files: ReadonlyMap<string, readonly string[]>;
  /** Removes every file this upload stored: its write was refused. */
  discard(): Promise<void>;
  /** The ids of every file it stored. */
  ids(): string[];
}

export interface UploadContext {
  storage: FileStorage;
  table: FilesTable;
  entity: Entity;
  /** The file fields the call takes (point 7 may name some of them): a part for another is refused. */
  takes: ReadonlySet<string>;
  recordId: string;
  actorId: string | null;
  now: () => number;
  /** The largest `record` part, in bytes (MAX_BODY_BYTES). */
  maxRecordBytes: number;
}

/**
 * Reads a multipart/form-data write: a `record` part with the record's fields as JSON, and a part
 * per file named by its file field. Each file is streamed to storage as it arrives (never held
 * whole in memory): its row first (pending), then its first bytes decide its kind (`file-type`),
 * then the rest, counted, so the field's size limit stops the stream at the limit. Anything wrong
 * (an unknown part, too many files, a bad name, an empty file, a wrong kind, too large, the body
 * cut off) removes every file the request stored and answers its problem.
 */
export async function receiveUpload(request: FastifyRequest, context: UploadContext): Promise<Upload> {
  const fields = new Map(
    context.entity.fields.flatMap((f) =>
      f.type.kind === 'file' && context.takes.has(f.name) ? [[f.name, f.type] as const] : [],
    ),
  );
  const largest = Math.max(1, ...[...fields.values()].map((t) => t.maxBytes));
  const most = [...fields.values()].reduce((sum, t) => sum + t.maxFiles, 0);
  const stored: FileRow[] = [];
  const byField = new Map<string, string[]>();
  let body: unknown;
  const discard = async () => {
    for (const file of stored.splice(0)) {
      await context.storage.remove(file.storageKey);
      await context.table.forget(file.id);
    }
  };
  try {
    const parts = request.parts({
      // Busboy would cut a name to what follows its last slash: a name with a path is refused instead.
      preservePath: true,
      limits: {
        // One byte over the largest field's limit, so that its own counter (below) decides.
        fileSize: largest + 1,
        // The record may come as a file part too (FormData's way with a JSON Blob); one part more is
        // read so that it is named in the answer (a field the call does not take, one file too many).
        files: most + 2,
        fields: 1,
        parts: most + 2,
        fieldSize: context.maxRecordBytes,
        fieldNameSize: 100,
      },
    });
    for await (const part of parts) {
      if (part.type === 'field') {
        body = recordPart(part, body);
        continue;
      }
      if (part.fieldname === RECORD_PART) {
        // A record sent as a Blob (FormData's way with a JSON Blob) arrives as a file part.
        body = recordPart(await recordFile(part, context.maxRecordBytes), body);
        continue;
      }
      const type = fields.get(part.fieldname);
      if (!type) {
        part.file.resume();
        throw unknownPart(part.fieldname, [...fields.keys()]);
      }
      const list = byField.get(part.fieldname) ?? [];
      if (list.length >= type.maxFiles) {
        part.file.resume();
        throw new ProblemError('TOO_MANY_FILES', { field: part.fieldname, max: type.maxFiles });
      }
      const name = fileName(part.filename);
      const row: FileRow = {
        id: uuidv7(context.now()),
        storageKey: newStorageKey(),
        entity: context.entity.name,
        recordId: context.recordId,
        field: part.fieldname,
        name,
        size: 0,
        mime: 'application/octet-stream',
        kind: null,
        createdBy: context.actorId,
        createdAt: context.now(),
        state: 'pending',
        removedAt: null,
      };
      await context.table.addPending(row);
      stored.push(row);
      const { size, mime, kind } = await storeFile(part, type, row.storageKey, context.storage);
      await context.table.described(row.id, size, mime, kind);
      list.push(row.id);
      byField.set(part.fieldname, list);
    }
  } catch (error) {
    await discard();
    throw uploadProblem(error);
  }
  return { body, files: byField, discard, ids: () => stored.map((f) => f.id) };
}

function recordPart(part: MultipartValue, seen: unknown): unknown {
  if (part.fieldname !== RECORD_PART) throw unknownPart(part.fieldname, []);
  if (seen !== undefined) throw new ProblemError('INVALID_PAYLOAD', { detail: 'the record part was sent twice' });
  if (part.valueTruncated) throw new ProblemError('PAYLOAD_TOO_LARGE');
  if (typeof part.value !== 'string') return part.value;
  try {
    return JSON.parse(part.value);
  } catch {
    throw new ProblemError('INVALID_PAYLOAD', { detail: 'the record part is not JSON' });
  }
}

/** A `record` part sent as a file, read whole (it is at most MAX_BODY_BYTES) as a field. */
async function recordFile(part: MultipartFile, limit: number): Promise<MultipartValue> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of part.file) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      part.file.resume();
      throw new ProblemError('PAYLOAD_TOO_LARGE');
    }
    chunks.push(chunk as Buffer);
  }
  return {
    type: 'field',
    fieldname: RECORD_PART,
    value: Buffer.concat(chunks).toString('utf8'),
    valueTruncated: false,
  } as unknown as MultipartValue;
}

function unknownPart(name: string, files: readonly string[]): ProblemError {
  const known = [RECORD_PART, ...files].map((n) => `"${n}"`).join(', ');
  return new ProblemError('INVALID_PAYLOAD', {
    detail: `the upload has a part "${name.slice(0, 100)}"; its parts are ${known}`,
  });
}

/** The name a file is shown and downloaded with: as sent, but never a path or control characters. */
function fileName(sent: string | undefined): string {
  const name = (sent ?? '').normalize('NFC');
  if (name.trim() === '') throw new ProblemError('INVALID_FILE_NAME', { detail: 'the file has no name' });
  if (BAD_NAME.test(name)) {
    throw new ProblemError('INVALID_FILE_NAME', {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: shown as ? in the answer.
      detail: `"${name.slice(0, 100).replace(/[\u0000-\u001f\u007f-\u009f]/g, '?')}" holds one`,
    });
  }
  if ([...name].length > MAX_FILE_NAME) {
    throw new ProblemError('INVALID_FILE_NAME', { detail: `the name is longer than ${MAX_FILE_NAME} characters` });
  }
  return name;
}

/**
 * Stores one file part: reads its first bytes to decide its kind, refuses a kind the field does not
 * take or an empty file before anything is stored, then streams the bytes on, counting them. A
 * photo whose location the field does not keep is stripped of its metadata before it is stored
 * (`withoutImageMetadata`), so storage is written once and never read back: the image is
 * gathered whole for that, within the field's size limit, as sharp needs it whole anyway.
 */
async function storeFile(
  part: MultipartFile,
  type: FieldTypeOfKind<'file'>,
  key: string,
  storage: FileStorage,
): Promise<{ size: number; mime: string; kind: string | null }> {
  const field = part.fieldname;
  const stream = part.file;
  const iterator = stream[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headBytes = 0;
  let ended = false;
  while (headBytes < SAMPLE_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    head.push(next.value as Buffer);
    headBytes += (next.value as Buffer).length;
  }
  if (headBytes === 0) throw new ProblemError('FILE_EMPTY', { field });
  if (headBytes > type.maxBytes) throw tooLarge(field, type);
  const first = Buffer.concat(head);
  const detected = await fileTypeFromBuffer(first);
  const kind = detected ? (kindOfDetected(detected.ext) ?? null) : null;
  if (type.kinds.length > 0 && (kind === null || !type.kinds.includes(kind))) {
    const what = kind ?? detected?.ext ?? null;
    throw new ProblemError('FILE_KIND_NOT_ALLOWED', {
      field,
      values: type.kinds.join(', '),
      type: what === null ? 'of a kind the server does not recognise' : what,
    });
  }
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      size += chunk.length;
      streamedBytes(chunk.length);
      if (size > type.maxBytes) done(tooLarge(field, type));
      else done(null, chunk);
    },
  });
  // The head, then what the iterator has not read yet: one stream, the first bytes read once.
  const rest = ended
    ? Readable.from([first])
    : Readable.from(
        (async function* () {
          yield first;
          for (;;) {
            const next = await iterator.next();
            if (next.done) return;
            yield next.value as Buffer;
          }
        })(),
        { objectMode: false },
      );
  // A source that fails half way (the body cut off) fails the count too, rather than leave it waiting.
  rest.once('error', (error) => counter.destroy(error));
  const counted = rest.pipe(counter);
  const format = kind === null ? undefined : FILE_FORMATS[kind];
  const answer = (bytes: number) => ({ size: bytes, mime: format?.mime ?? 'application/octet-stream', kind });
  if (kind !== null && format?.exif && !type.keepsLocation) {
    const sent = await buffer(counted);
    if (stream.truncated) throw tooLarge(field, type);
    const kept = (await withoutImageMetadata(sent, kind)) ?? sent;
    await storage.write(key, Readable.from([kept]), kept.length);
    return answer(kept.length);
  }
  await storage.write(key, counted);
  if (stream.truncated) throw tooLarge(field, type);
  return answer(size);
}

function tooLarge(field: string, type: FieldTypeOfKind<'file'>): ProblemError {
  return new ProblemError('FILE_TOO_LARGE', { field, limit: sizeWords(type.maxBytes) });
}

/** The problem an upload's failure answers: its own, or what the multipart parser met. */
function uploadProblem(error: unknown): unknown {
  if (error instanceof ProblemError) return error;
  const code = (error as { code?: string }).code ?? '';
  const message = (error as Error).message ?? '';
  if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT') {
    return new ProblemError(
      'INVALID_PAYLOAD',
      { detail: 'the upload holds more parts than its fields take' },
      {},
      {
        cause: error,
      },
    );
  }
  if (code === 'FST_FIELDS_LIMIT') {
    return new ProblemError('INVALID_PAYLOAD', { detail: 'the upload holds more than one record part' });
  }
  if (code === 'FST_INVALID_JSON_FIELD_ERROR') {
    return new ProblemError('INVALID_PAYLOAD', { detail: 'the record part is not JSON' });
  }
  if (code === 'FST_PROTO_VIOLATION')
    return new ProblemError('INVALID_PAYLOAD', { detail: 'a part has a reserved name' });
  if (
    code === 'FST_REQ_FILE_TOO_LARGE' ||
    /Unexpected end of (form|multipart data)|terminated early|Premature close|aborted/i.test(message) ||
    code === 'ERR_STREAM_PREMATURE_CLOSE' ||
    code === 'FST_MP_PREMATURE_CLOSE'
  ) {
    return new ProblemError('UPLOAD_INCOMPLETE', {}, {}, { cause: error });
  }
  if (/Malformed|boundary|Multipart: /i.test(message)) {
    return new ProblemError('INVALID_PAYLOAD', { detail: 'the multipart body is malformed' }, {}, { cause: error });
  }
  return error;
}
