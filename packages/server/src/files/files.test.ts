import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIMS } from '../../test/claims-spec.ts';
import { CountingStorage } from '../../test/counting-storage.ts';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { multipartBody, pdf, png, upload } from '../../test/uploads.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import { DiskStorage } from './disk-storage.ts';
import { FILES_TABLE } from './files-tables.ts';
import { PENDING_GRACE_MS } from './record-files.ts';

type Json = Record<string, unknown>;

/** Every file kept under a folder, at any depth. */
function keptFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name);
  } catch {
    return [];
  }
}

// On PostgreSQL too: the files table (pending, attached, removed) is SQL each database runs, and a
// refused write must leave no row and no bytes on either.
describe.each(TEST_DATABASES)('file fields on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let folder: string;
  let storage: CountingStorage;
  let clerk: string;
  let other: string;
  let auditor: string;
  const clock = Date.parse('2026-11-27T12:00:00Z');
  const call = callAs(() => server);
  const send = (
    who: string,
    method: 'POST' | 'PATCH' | 'PUT',
    url: string,
    record: unknown,
    files: Parameters<typeof upload>[5],
  ) => upload(server, who, method, url, record, files);
  const rows = async () =>
    (
      await server.store.sql.all<{ id: string; state: string }>(
        `SELECT "id", "state" FROM "${FILES_TABLE}" ORDER BY "id"`,
      )
    ).map((r) => `${r.state}`);
  const download = (who: string, id: string) =>
    server.app.inject({ method: 'GET', url: `/api/files/${id}`, headers: { authorization: who } });

  beforeAll(async () => {
    fresh = await db.fresh();
    folder = mkdtempSync(join(tmpdir(), 'ninepoint-files-test-'));
    storage = new CountingStorage(new DiskStorage(folder));
    server = await createServer({
      model: modelOf(CLAIMS),
      ...fresh.options,
      logger: false,
      fileStorage: storage,
      sweepFiles: false,
      now: () => clock,
    });
    clerk = (await userWithToken(server, ['clerk'])).authorization;
    other = (await userWithToken(server, ['clerk'])).authorization;
    auditor = (await userWithToken(server, ['auditor'])).authorization;
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
    rmSync(folder, { recursive: true, force: true });
  });

  it('creates a record with its file, and serves the file to who may read the record', async () => {
    const created = await send(clerk, 'POST', '/api/claims', { title: 'Train', amount: 80 }, [
      { field: 'receipt', name: 'ticket.pdf', bytes: pdf('train'), type: 'text/html' },
    ]);
    expect(created.status).toBe(201);
    const id = String(created.body.receipt);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const answer = await download(clerk, id);
    expect(answer.statusCode).toBe(200);
    expect(answer.rawPayload).toEqual(Buffer.from(pdf('train')));
    // Kind from the bytes, whatever the browser said; never shown in the app's origin.
    expect(answer.headers['content-type']).toBe('application/pdf');
    expect(answer.headers['content-disposition']).toBe(
      `attachment; filename="ticket.pdf"; filename*=UTF-8''ticket.pdf`,
    );
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['content-security-policy']).toContain('sandbox');
    const about = await call(auditor, 'GET', `/api/files/${id}/about`);
    expect(about.body).toMatchObject({
      name: 'ticket.pdf',
      size: pdf('train').length,
      kind: 'pdf',
      image: false,
      removed: false,
    });
    expect((await download(auditor, id)).statusCode).toBe(200);
  });

  it('answers 404 for another user’s file and for a field hidden from the caller', async () => {
    const created = await send(clerk, 'POST', '/api/claims', { title: 'Hotel', amount: 10 }, [
      { field: 'scan', name: 'scan.png', bytes: png() },
    ]);
    expect(created.status).toBe(201);
    const scan = String(created.body.scan);
    expect((await download(clerk, scan)).statusCode).toBe(200);
    const theirs = await download(other, scan);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json()).toMatchObject({ code: 'FILE_NOT_FOUND' });
    // The auditor reads every claim, but not its scan.
    expect((await download(auditor, scan)).statusCode).toBe(404);
    expect((await call(auditor, 'GET', `/api/files/${scan}/about`)).status).toBe(404);
    expect((await download(clerk, '0190f3a2-0000-7000-8000-000000000000')).statusCode).toBe(404);
  });

  it('stores nothing for a refused record: a rule, a bad field, a bad file', async () => {
    const before = keptFiles(folder).length;
    const rowsBefore = (await rows()).length;
    const noReceipt = await send(clerk, 'POST', '/api/claims', { title: 'Dinner', amount: 90 }, [
      { field: 'photos', name: 'plate.png', bytes: png() },
    ]);
    expect(noReceipt.status).toBe(422);
    expect(noReceipt.body.errors).toEqual([expect.objectContaining({ code: 'RECEIPT_REQUIRED' })]);
    const badTitle = await send(clerk, 'POST', '/api/claims', { amount: 9 }, [
      { field: 'receipt', name: 'r.pdf', bytes: pdf() },
    ]);
    expect(badTitle.status).toBe(422);
    const secondBad = await send(clerk, 'POST', '/api/claims', { title: 'Taxi', amount: 9 }, [
      { field: 'receipt', name: 'r.pdf', bytes: pdf() },
      { field: 'photos', name: 'page.html', bytes: new TextEncoder().encode('<html><script>alert(1)</script></html>') },
    ]);
    expect(secondBad.status).toBe(415);
    expect(secondBad.body.code).toBe('FILE_KIND_NOT_ALLOWED');
    expect(keptFiles(folder).length).toBe(before);
    expect((await rows()).length).toBe(rowsBefore);
  });

  it('replaces a file, adds to a field of several, removes one, and deletes them with the record', async () => {
    const created = await send(clerk, 'POST', '/api/claims', { title: 'Fair', amount: 30 }, [
      { field: 'receipt', name: 'a.pdf', bytes: pdf('a') },
      { field: 'photos', name: 'one.png', bytes: png() },
    ]);
    expect(created.status).toBe(201);
    const path = `/api/claims/${created.body.id}`;
    const first = String(created.body.receipt);
    const replaced = await send(clerk, 'PATCH', path, undefined, [
      { field: 'receipt', name: 'b.pdf', bytes: pdf('b') },
    ]);
    expect(replaced.status).toBe(200);
    const second = String(replaced.body.receipt);
    expect(second).not.toBe(first);
    expect((await download(clerk, first)).statusCode).toBe(404);
    expect((await call(clerk, 'GET', `/api/files/${first}/about`)).body).toMatchObject({
      name: 'a.pdf',
      removed: true,
    });
    expect((await download(clerk, second)).rawPayload).toEqual(Buffer.from(pdf('b')));

    const added = await send(clerk, 'PATCH', path, undefined, [
      { field: 'photos', name: 'two.png', bytes: png() },
      { field: 'photos', name: 'three.png', bytes: png() },
    ]);
    expect(added.status).toBe(200);
    const photos = String(added.body.photos).split(',');
    expect(photos).toHaveLength(3);
    const tooMany = await send(clerk, 'PATCH', path, undefined, [{ field: 'photos', name: 'four.png', bytes: png() }]);
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.code).toBe('TOO_MANY_FILES');

    // JSON keeps some of the files held; it cannot name files the record does not hold.
    const kept = await call(clerk, 'PATCH', path, { photos: photos.slice(1).join(',') });
    expect(kept.status).toBe(200);
    expect((await download(clerk, photos[0] as string)).statusCode).toBe(404);
    const stolen = await call(clerk, 'PATCH', path, { receipt: first });
    expect(stolen.status).toBe(422);
    expect(JSON.stringify(stolen.body)).toContain('READ_ONLY_FIELD');
    // Above 25 the receipt stays required: removing it is refused, and the file stays.
    const removed = await call(clerk, 'PATCH', path, { receipt: null });
    expect(removed.status).toBe(422);
    expect((await download(clerk, second)).statusCode).toBe(200);

    const history = await call(clerk, 'GET', `${path}/history`);
    expect(
      (history.body.items as Json[]).map((e) =>
        Object.keys(e.changes as Json)
          .sort()
          .join(),
      ),
    ).toContain('receipt');

    const files = keptFiles(folder).length;
    expect((await call(clerk, 'DELETE', path)).status).toBe(204);
    expect((await download(clerk, second)).statusCode).toBe(404);
    expect(keptFiles(folder).length).toBe(files - 3);
  });

  it('takes a record sent as a JSON Blob beside a file in every slot the fields have', async () => {
    // FormData sends a Blob as a file part (a typed client's record does): it must not take one
    // of the files' places.
    const created = await send(clerk, 'POST', '/api/claims', { title: 'Full', amount: 40 }, [
      { field: 'receipt', name: 'full.pdf', bytes: pdf('full') },
      { field: 'photos', name: 'a.png', bytes: png() },
      { field: 'photos', name: 'b.png', bytes: png() },
      { field: 'photos', name: 'c.png', bytes: png() },
      { field: 'scan', name: 'scan.pdf', bytes: pdf('scan') },
    ]);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(String(created.body.photos).split(',')).toHaveLength(3);
    expect((await download(clerk, String(created.body.receipt))).rawPayload).toEqual(Buffer.from(pdf('full')));
  });

  it('answers each bad upload with its problem, keeping no file and no row of any', async () => {
    const before = keptFiles(folder).length;
    const rowsBefore = (await rows()).length;
    const bad = async (files: Parameters<typeof upload>[5], record: unknown = { title: 'Bad', amount: 1 }) => {
      const answer = await send(clerk, 'POST', '/api/claims', record, files);
      return `${answer.status} ${answer.body.code}`;
    };
    expect(await bad([{ field: 'receipt', name: 'empty.pdf', bytes: new Uint8Array() }])).toBe('422 FILE_EMPTY');
    expect(await bad([{ field: 'photos', name: 'big.png', bytes: png(70 * 1024) }])).toBe('413 FILE_TOO_LARGE');
    expect(await bad([{ field: 'receipt', name: 'x.pdf', bytes: new TextEncoder().encode('just text') }])).toBe(
      '415 FILE_KIND_NOT_ALLOWED',
    );
    expect(await bad([{ field: 'attachment', name: 'x.pdf', bytes: pdf() }])).toBe('400 INVALID_PAYLOAD');
    expect(await bad([{ field: 'receipt', name: '../../etc/passwd.pdf', bytes: pdf() }])).toBe('422 INVALID_FILE_NAME');
    expect(await bad([{ field: 'receipt', name: 'a\u0007b.pdf', bytes: pdf() }])).toBe('422 INVALID_FILE_NAME');
    expect(
      await bad([
        { field: 'receipt', name: 'a.pdf', bytes: pdf() },
        { field: 'receipt', name: 'b.pdf', bytes: pdf() },
      ]),
    ).toBe('422 TOO_MANY_FILES');
    expect(await bad([], { title: 'Bad', amount: 1, receipt: '0190f3a2-0000-7000-8000-000000000000' })).toBe(
      '422 VALIDATION_FAILED',
    );
    // A text part that is not the record: refused, and nothing of the write kept.
    const extra = await multipartBody(
      { title: 'Bad', amount: 1 },
      [{ field: 'receipt', name: 'r.pdf', bytes: pdf() }],
      [['note', 'hello']],
    );
    const withNote = await server.app.inject({
      method: 'POST',
      url: '/api/claims',
      headers: { authorization: clerk, 'content-type': extra.contentType },
      payload: extra.body,
    });
    expect(`${withNote.statusCode} ${withNote.json().code}`).toBe('400 INVALID_PAYLOAD');
    expect(keptFiles(folder).filter((n) => n.endsWith('.part'))).toEqual([]);
    expect(keptFiles(folder).length).toBe(before);
    expect((await rows()).length).toBe(rowsBefore);
  });

  it('answers an upload cut off half way with UPLOAD_INCOMPLETE and keeps nothing of it', async () => {
    const rowsBefore = (await rows()).length;
    const before = keptFiles(folder).length;
    const boundary = 'cutoffboundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="record"\r\nContent-Type: application/json\r\n\r\n{"title":"Cut","amount":1}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="receipt"; filename="r.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
    );
    const answer = await server.app.inject({
      method: 'POST',
      url: '/api/claims',
      headers: { authorization: clerk, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: Buffer.concat([head, Buffer.from(pdf('half')).subarray(0, 20)]),
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ code: 'UPLOAD_INCOMPLETE' });
    expect((await rows()).length).toBe(rowsBefore);
    expect(keptFiles(folder).length).toBe(before);
  });

  it('removes what an upload stored when its client drops the connection half way', async () => {
    const rowsBefore = (await rows()).length;
    const before = keptFiles(folder).length;
    const url = new URL(await server.listen({ port: 0, host: '127.0.0.1' }));
    const boundary = 'droppedboundary';
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="record"\r\nContent-Type: application/json\r\n\r\n{"title":"Dropped","amount":1}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="receipt"; filename="r.pdf"\r\nContent-Type: application/pdf\r\n\r\n`;
    // Half of a 60 KB PDF, then the socket closed: the server sees the body end early, not a finished form.
    const half = Buffer.concat([Buffer.from(pdf('dropped')), Buffer.alloc(30 * 1024, 0x20)]);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.write(
      `POST /api/claims HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${clerk}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${head.length + 2 * half.length}\r\n\r\n`,
    );
    socket.write(head);
    socket.write(half);
    // The file's row is written before its bytes: wait until the upload has begun, then drop it.
    await expect.poll(async () => (await rows()).length).toBe(rowsBefore + 1);
    socket.destroy();
    await expect.poll(async () => (await rows()).length).toBe(rowsBefore);
    await expect.poll(() => keptFiles(folder).length).toBe(before);
  });

  it('serves an image’s thumbnail without its EXIF location, made once, and none for other files', async () => {
    const { default: sharp } = await import('sharp');
    const photo = await sharp({ create: { width: 400, height: 200, channels: 3, background: '#c33' } })
      .jpeg()
      .withExif({ IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '52/1 31/1 0/1' } })
      .toBuffer();
    expect((await sharp(photo).metadata()).exif).toBeDefined();
    const created = await send(clerk, 'POST', '/api/claims', { title: 'Photo', amount: 5 }, [
      { field: 'photos', name: 'site.jpg', bytes: new Uint8Array(photo) },
      { field: 'receipt', name: 'r.pdf', bytes: pdf() },
    ]);
    expect(created.status).toBe(201);
    const id = String(created.body.photos);
    const thumb = await server.app.inject({
      method: 'GET',
      url: `/api/files/${id}/thumbnail?size=96`,
      headers: { authorization: clerk },
    });
    expect(thumb.statusCode).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/webp');
    const meta = await sharp(thumb.rawPayload).metadata();
    expect([meta.width, meta.height]).toEqual([96, 48]);
    expect(meta.exif).toBeUndefined();
    // Made once: the second ask reads what the first kept.
    const files = keptFiles(folder).length;
    expect(
      (
        await server.app.inject({
          method: 'GET',
          url: `/api/files/${id}/thumbnail?size=96`,
          headers: { authorization: clerk },
        })
      ).statusCode,
    ).toBe(200);
    expect(keptFiles(folder).length).toBe(files);
    expect((await download(other, id)).statusCode).toBe(404);
    expect(
      (await server.app.inject({ method: 'GET', url: `/api/files/${id}/thumbnail`, headers: { authorization: other } }))
        .statusCode,
    ).toBe(404);
    const receipt = String(created.body.receipt);
    expect(
      (
        await server.app.inject({
          method: 'GET',
          url: `/api/files/${receipt}/thumbnail`,
          headers: { authorization: clerk },
        })
      ).statusCode,
    ).toBe(404);
    // The photo's inline, the PDF an attachment.
    expect((await download(clerk, id)).headers['content-disposition']).toMatch(/^inline; /);
  });

  it('stores an uploaded photo once, without its EXIF location, turned as its orientation said', async () => {
    const { default: sharp } = await import('sharp');
    // 400 × 200 pixels stored, to be shown turned a quarter (orientation 6): 200 × 400.
    const photo = await sharp({ create: { width: 400, height: 200, channels: 3, background: '#36c' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .withExifMerge({
        IFD0: { Make: 'Phone' },
        IFD3: {
          GPSLatitudeRef: 'N',
          GPSLatitude: '52/1 31/1 0/1',
          GPSLongitudeRef: 'E',
          GPSLongitude: '13/1 24/1 0/1',
        },
      })
      .toBuffer();
    const sent = await sharp(photo).metadata();
    expect(sent.exif?.length).toBeGreaterThan(0);
    expect(sent.orientation).toBe(6);
    storage.calls.length = 0;
    const created = await send(clerk, 'POST', '/api/claims', { title: 'Site', amount: 5 }, [
      { field: 'photos', name: 'site.jpg', bytes: new Uint8Array(photo) },
      { field: 'receipt', name: 'r.pdf', bytes: pdf() },
    ]);
    expect(created.status).toBe(201);
    // Stripped as it arrived: one write a file, nothing read back and written again.
    expect(storage.calls).toEqual(['write', 'write']);
    const id = String(created.body.photos);
    const served = await download(clerk, id);
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/jpeg');
    expect(Number(served.headers['content-length'])).toBe(served.rawPayload.length);
    const meta = await sharp(served.rawPayload).metadata();
    expect(meta.format).toBe('jpeg');
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect([meta.width, meta.height, meta.orientation ?? 1]).toEqual([200, 400, 1]);
    // What the file's description says is what is served.
    const about = await server.app.inject({
      method: 'GET',
      url: `/api/files/${id}/about`,
      headers: { authorization: clerk },
    });
    expect(about.json()).toMatchObject({ size: served.rawPayload.length, kind: 'jpeg' });
    // A PDF is stored as sent, byte for byte.
    const receipt = await download(clerk, String(created.body.receipt));
    expect(Buffer.from(receipt.rawPayload).equals(Buffer.from(pdf()))).toBe(true);
  });

  it('attaches a pending file its record names when it is downloaded (the write committed, its server killed before settling)', async () => {
    const created = await send(clerk, 'POST', '/api/claims', { title: 'Killed', amount: 5 }, [
      { field: 'receipt', name: 'killed.pdf', bytes: pdf('killed') },
    ]);
    expect(created.status).toBe(201);
    const id = String(created.body.receipt);
    // As a server killed between the record's commit and the settling of its files leaves it.
    await server.store.sql.run(`UPDATE "${FILES_TABLE}" SET "state" = 'pending' WHERE "id" = ?`, [id]);
    expect((await server.files?.table.get(id))?.state).toBe('pending');
    // Long before the sweep's grace has passed: the download finds it through the record.
    const served = await download(clerk, id);
    expect(served.statusCode).toBe(200);
    expect(Buffer.from(served.rawPayload).equals(Buffer.from(pdf('killed')))).toBe(true);
    expect((await server.files?.table.get(id))?.state).toBe('attached');
    // Another user still may not read it, pending or not.
    expect((await download(other, id)).statusCode).toBe(404);
    // A pending file no record names stays unserved (the sweep removes it later).
    await server.files?.table.addPending({
      id: '0190f3a2-0000-7000-8000-00000000cafe',
      storageKey: 'y'.repeat(43),
      entity: 'Claim',
      recordId: String(created.body.id),
      field: 'receipt',
      name: 'stray.pdf',
      size: 3,
      mime: 'application/pdf',
      kind: 'pdf',
      createdBy: null,
      createdAt: clock,
    });
    expect((await download(clerk, '0190f3a2-0000-7000-8000-00000000cafe')).statusCode).toBe(404);
    expect((await server.files?.table.get('0190f3a2-0000-7000-8000-00000000cafe'))?.state).toBe('pending');
    await server.files?.table.forget('0190f3a2-0000-7000-8000-00000000cafe');
  });

  it('sweeps pending files once their grace has passed: attached if their record holds them, else removed', async () => {
    const created = await send(clerk, 'POST', '/api/claims', { title: 'Kept', amount: 5 }, [
      { field: 'receipt', name: 'k.pdf', bytes: pdf('k') },
    ]);
    const files = server.files;
    if (!files) throw new Error('the server has no files');
    // As a server killed between the write and its settling leaves them: the record's file still
    // pending, and an upload's bytes whose write never happened.
    await server.store.sql.run(`UPDATE "${FILES_TABLE}" SET "state" = 'pending' WHERE "id" = ?`, [
      created.body.receipt,
    ]);
    await files.table.addPending({
      id: '0190f3a2-0000-7000-8000-00000000beef',
      storageKey: 'x'.repeat(43),
      entity: 'Claim',
      recordId: String(created.body.id),
      field: 'scan',
      name: 'lost.png',
      size: 0,
      mime: 'application/octet-stream',
      kind: null,
      createdBy: null,
      createdAt: clock,
    });
    await files.storage.write('x'.repeat(43), Readable.from([Buffer.from(png())]));
    const before = keptFiles(folder).length;
    expect(await files.sweep(clock + 1000)).toEqual({ attached: 0, removed: 0 });
    expect(await files.sweep(clock + PENDING_GRACE_MS + 1000)).toEqual({ attached: 1, removed: 1 });
    expect(keptFiles(folder).length).toBe(before - 1);
    expect((await download(clerk, String(created.body.receipt))).statusCode).toBe(200);
    expect(await files.table.get('0190f3a2-0000-7000-8000-00000000beef')).toBeUndefined();
  });
});
