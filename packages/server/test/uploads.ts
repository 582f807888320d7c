import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll } from 'vitest';
import { createServer, type NinepointServer } from '../src/app/server.ts';
import { FILES_TABLE } from '../src/files/files-tables.ts';
import type { FreshDatabase, TestDatabase } from './databases.ts';
import { modelOf } from './helpers.ts';
import { type CallAnswer, userWithToken } from './users.ts';

/**
 * What uploads kept: the files a storage folder holds (thumbnails included) and the rows of the
 * files table.
 */
export async function keptFiles(server: NinepointServer, folder: string): Promise<[number, number]> {
  const files = readdirSync(folder, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
  const row = await server.store.sql.get<{ n: number | string }>(`SELECT COUNT(*) AS "n" FROM "${FILES_TABLE}"`);
  return [files, Number(row?.n ?? 0)];
}

/** A file part of a test upload: its field, name and bytes. */
export interface TestFile {
  field: string;
  name: string;
  bytes: Uint8Array;
  /** The type the client claims (the server decides by the bytes). Default application/octet-stream. */
  type?: string;
}

/** A multipart/form-data body of a `record` part (JSON) and file parts, as a browser's FormData makes it. */
export async function multipartBody(
  record: unknown,
  files: readonly TestFile[],
  extra: readonly [string, string][] = [],
): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  if (record !== undefined) form.append('record', new Blob([JSON.stringify(record)], { type: 'application/json' }));
  for (const [name, value] of extra) form.append(name, value);
  for (const file of files) {
    form.append(
      file.field,
      new Blob([new Uint8Array(file.bytes)], { type: file.type ?? 'application/octet-stream' }),
      file.name,
    );
  }
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    body: Buffer.from(await request.arrayBuffer()),
    contentType: request.headers.get('content-type') ?? '',
  };
}

/** Sends a multipart write in-process as the holder of `authorization`. */
export async function upload(
  server: NinepointServer,
  authorization: string,
  method: 'POST' | 'PATCH' | 'PUT',
  url: string,
  record: unknown,
  files: readonly TestFile[],
): Promise<CallAnswer> {
  const { body, contentType } = await multipartBody(record, files);
  const answer = await server.app.inject({
    method,
    url,
    headers: { authorization, 'content-type': contentType },
    payload: body,
  });
  return {
    status: answer.statusCode,
    body: (answer.body === '' || !answer.headers['content-type']?.toString().includes('json')
      ? {}
      : answer.json()) as Record<string, unknown>,
    text: answer.body,
    headers: answer.headers,
  };
}

/** A real 1×1 PNG (signature, IHDR, IDAT, IEND), optionally padded with an ancillary chunk to `size` bytes. */
export function png(size = 0): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  const idat = deflateSync(Buffer.from([0, 255, 0, 0]));
  const base = [Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', idat)];
  const used = base.reduce((n, b) => n + b.length, 0) + 12;
  const padding = size > used + 12 ? [chunk('tEXt', Buffer.alloc(size - used - 12, 0x61))] : [];
  return new Uint8Array(Buffer.concat([...base, ...padding, chunk('IEND', Buffer.alloc(0))]));
}

/** A small PDF: its header is what decides its kind. */
export function pdf(text = 'receipt'): Uint8Array {
  return new TextEncoder().encode(
    `%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\n% ${text}\ntrailer<</Root 1 0 R>>\n%%EOF\n`,
  );
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A server whose files go to a folder of its own, and a user with a token (`filesServer`). */
export interface FilesServer {
  server: NinepointServer;
  folder: string;
  /** The user's `Authorization` header. */
  authorization: string;
  /** What uploads kept so far (`keptFiles`). */
  kept(): Promise<[number, number]>;
}

/**
 * For the tests of one `describe`: a server on a fresh database of `db` serving `spec`, its files
 * in a new folder (no sweep: the tests count what is kept), and a user of `roles`; made before
 * the tests and removed after them.
 */
export function filesServer(db: TestDatabase, spec: string, roles: readonly string[]): FilesServer {
  let fresh: FreshDatabase | undefined;
  const made = {} as FilesServer;
  beforeAll(async () => {
    fresh = await db.fresh();
    made.folder = mkdtempSync(join(tmpdir(), 'ninepoint-files-'));
    made.server = await createServer({
      model: modelOf(spec),
      ...fresh.options,
      logger: false,
      fileStorage: made.folder,
      sweepFiles: false,
    });
    made.authorization = (await userWithToken(made.server, roles)).authorization;
    made.kept = () => keptFiles(made.server, made.folder);
  });
  afterAll(async () => {
    await made.server?.close();
    await fresh?.remove();
    if (made.folder) rmSync(made.folder, { recursive: true, force: true });
  });
  return made;
}
