import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIMS } from '../../test/claims-spec.ts';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { startS3 } from '../../test/s3-server.ts';
import { pdf, png, upload } from '../../test/uploads.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import { S3Storage } from './s3-storage.ts';

/**
 * Files in an S3-compatible bucket: a real one (s3rver) on loopback, reached through the AWS SDK
 * as AWS S3 would be. On both databases, as `files.test.ts` on disk: the files table's rows and the
 * bucket's objects must agree on each, whatever a write does.
 */
describe.each(TEST_DATABASES)('file fields in S3, on $name', (db) => {
  let fresh: FreshDatabase;
  let s3: Awaited<ReturnType<typeof startS3>>;
  let server: NinepointServer;
  let clerk: string;
  let other: string;
  let auditor: string;
  const call = callAs(() => server);
  const objects = async () => {
    const client = new S3Client({
      endpoint: s3.endpoint,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    try {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'claims/' }));
      return (listed.Contents ?? []).map((o) => o.Key ?? '').sort();
    } finally {
      client.destroy();
    }
  };
  const download = (who: string, id: string, query = '') =>
    server.app.inject({ method: 'GET', url: `/api/files/${id}${query}`, headers: { authorization: who } });

  beforeAll(async () => {
    fresh = await db.fresh();
    s3 = await startS3();
    server = await createServer({
      model: modelOf(CLAIMS),
      ...fresh.options,
      logger: false,
      fileStorage: `s3://${s3.bucket}/claims`,
      filesEnv: s3.env,
      sweepFiles: false,
    });
    clerk = (await userWithToken(server, ['clerk'])).authorization;
    other = (await userWithToken(server, ['clerk'])).authorization;
    auditor = (await userWithToken(server, ['auditor'])).authorization;
  });
  afterAll(async () => {
    await server.close();
    await s3.close();
    await fresh.remove();
  });

  it('uploads to the bucket, downloads through the app or a presigned address (another user’s file is 404), replaces, adds, removes and deletes', async () => {
    expect(server.files?.storage.description).toBe(`s3://${s3.bucket}/claims/`);
    const created = await upload(server, clerk, 'POST', '/api/claims', { title: 'Train', amount: 80 }, [
      { field: 'receipt', name: 'ticket.pdf', bytes: pdf('s3') },
    ]);
    expect(created.status).toBe(201);
    const first = String(created.body.receipt);
    // Kept under an unguessable key (256 random bits), nothing of the record, the file or its name.
    const [key] = await objects();
    expect(key).toMatch(/^claims\/[A-Za-z0-9_-]{43}$/);
    expect(key).not.toContain(first);
    expect(key).not.toContain('ticket');
    const through = await download(clerk, first);
    expect(through.statusCode).toBe(200);
    expect(through.rawPayload).toEqual(Buffer.from(pdf('s3')));

    // Another user's file is not found, through the app or as a presigned address.
    const refused = await download(other, first);
    expect(refused.statusCode).toBe(404);
    expect(refused.json().code).toBe('FILE_NOT_FOUND');
    expect((await download(other, first, '?direct=true')).statusCode).toBe(404);
    const direct = await download(clerk, first, '?direct=true');
    expect(direct.statusCode).toBe(303);
    const location = String(direct.headers.location);
    expect(location.startsWith(`${s3.endpoint}/${s3.bucket}/claims/`)).toBe(true);
    expect(location).toContain('X-Amz-Expires=60');
    const fetched = await fetch(location);
    expect(fetched.status).toBe(200);
    expect(Buffer.from(await fetched.arrayBuffer())).toEqual(Buffer.from(pdf('s3')));
    expect(fetched.headers.get('content-disposition')).toContain('attachment');

    const replaced = await upload(server, clerk, 'PATCH', `/api/claims/${created.body.id}`, undefined, [
      { field: 'receipt', name: 'b.pdf', bytes: pdf('b') },
    ]);
    expect(replaced.status).toBe(200);
    expect(await objects()).toHaveLength(1);
    expect((await download(clerk, first)).statusCode).toBe(404);
    expect((await download(clerk, String(replaced.body.receipt))).rawPayload).toEqual(Buffer.from(pdf('b')));

    // Added to a field of several without touching what it holds, then one removed by value.
    const one = await upload(server, clerk, 'PATCH', `/api/claims/${created.body.id}`, undefined, [
      { field: 'photos', name: 'one.png', bytes: png() },
    ]);
    const two = await upload(server, clerk, 'PATCH', `/api/claims/${created.body.id}`, undefined, [
      { field: 'photos', name: 'two.png', bytes: png() },
    ]);
    expect(two.status).toBe(200);
    const photos = String(two.body.photos).split(',');
    expect(photos).toEqual([String(one.body.photos), photos[1]]);
    expect(await objects()).toHaveLength(3);
    const kept = await call(clerk, 'PATCH', `/api/claims/${created.body.id}`, { photos: photos[1] });
    expect(kept.status).toBe(200);
    expect(await objects()).toHaveLength(2);
    expect((await download(clerk, photos[0] as string)).statusCode).toBe(404);
    expect((await download(clerk, photos[1] as string)).statusCode).toBe(200);

    expect((await call(clerk, 'DELETE', `/api/claims/${created.body.id}`)).status).toBe(204);
    expect(await objects()).toEqual([]);
  });

  it('keeps nothing in the bucket for a refused record, and hides a hidden field’s file', async () => {
    const refused = await upload(server, clerk, 'POST', '/api/claims', { title: 'Dinner', amount: 90 }, [
      { field: 'photos', name: 'plate.png', bytes: png() },
    ]);
    expect(refused.status).toBe(422);
    expect(await objects()).toEqual([]);
    const scanned = await upload(server, clerk, 'POST', '/api/claims', { title: 'Hotel', amount: 10 }, [
      { field: 'scan', name: 'scan.png', bytes: png() },
    ]);
    expect(scanned.status).toBe(201);
    expect((await download(auditor, String(scanned.body.scan))).statusCode).toBe(404);
    expect((await download(auditor, String(scanned.body.scan), '?direct=true')).statusCode).toBe(404);
    expect((await download(clerk, String(scanned.body.scan))).statusCode).toBe(200);
  });

  it('strips a photo’s EXIF location as it arrives: one PUT to the bucket, no GET and no second PUT', async () => {
    const { default: sharp } = await import('sharp');
    const photo = await sharp({ create: { width: 64, height: 32, channels: 3, background: '#693' } })
      .jpeg()
      .withExif({ IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '52/1 31/1 0/1' } })
      .toBuffer();
    expect((await sharp(photo).metadata()).exif).toBeDefined();
    // The bucket's own requests, as the SDK sends them.
    const client = new S3Client({
      endpoint: s3.endpoint,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    const requests: string[] = [];
    client.middlewareStack.add(
      (next, context) => (args) => {
        requests.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize' },
    );
    const own = await db.fresh();
    const counted = await createServer({
      model: modelOf(CLAIMS),
      ...own.options,
      logger: false,
      fileStorage: new S3Storage(client, s3.bucket, 'counted'),
      sweepFiles: false,
    });
    try {
      const who = (await userWithToken(counted, ['clerk'])).authorization;
      const created = await upload(counted, who, 'POST', '/api/claims', { title: 'Site', amount: 5 }, [
        { field: 'photos', name: 'site.jpg', bytes: new Uint8Array(photo) },
        { field: 'receipt', name: 'r.pdf', bytes: pdf('site') },
      ]);
      expect(created.status).toBe(201);
      expect(requests).toEqual(['PutObjectCommand', 'PutObjectCommand']);
      const served = await counted.app.inject({
        method: 'GET',
        url: `/api/files/${created.body.photos}`,
        headers: { authorization: who },
      });
      expect(served.statusCode).toBe(200);
      const meta = await sharp(served.rawPayload).metadata();
      expect([meta.format, meta.exif]).toEqual(['jpeg', undefined]);
    } finally {
      await counted.close();
      await own.remove();
    }
  });
});
