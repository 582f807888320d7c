import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createServer } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, SQLITE_ONLY, TEST_DATABASES } from '../../packages/server/test/databases.ts';
import { killMoment } from './desk.ts';
import { scaled } from './scale.ts';
import { type ApiUser, addApiUsers, call, type ServedDatabase, servedDatabase, startServe } from './server-process.ts';

/**
 * Uploads under load and under SIGKILL, against `ninepoint serve` in a process of its own:
 *
 * - a 200 MB file streams to disk (and back) while the server's resident memory grows by less
 *   than 50 MB: it is never held whole;
 * - servers killed with SIGKILL while uploads are under way, restarted on the same database and
 *   folder: no record ever names a file that is not there whole, and what the cut-off uploads
 *   left (pending rows, bytes, `.part` files) is removed by the sweep once its grace has passed.
 */

const SPEC = `# Specification: Scans

## 3. Entities and their fields

### Scan

| field | type | rules          |
| ----- | ---- | -------------- |
| title | text | required       |
| file  | file | at most 250 MB |

## 6. Roles and permissions

| role  | Scan                         |
| ----- | ---------------------------- |
| clerk | create, read, update, delete |
`;

const MB = 1024 * 1024;
const ROUNDS = scaled(10, 30);
/** At most MAX_PAGE_SIZE (200) records in all, so one page lists them. */
const UPLOADS_PER_ROUND = scaled(4, 6);

/**
 * A multipart body of a record part and one file of `size` bytes, made as it is sent (64 KB at a
 * time). With `held`, it stops half way until that promise settles: an upload still streaming
 * when the server is killed, however fast the machine.
 */
function multipart(
  title: string,
  size: number,
  pace = false,
  held?: Promise<void>,
): { body: Readable; type: string; length: number } {
  const boundary = `ninepoint${Math.random().toString(16).slice(2)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="record"\r\nContent-Type: application/json\r\n\r\n` +
      `${JSON.stringify({ title })}\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${title}.bin"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(64 * 1024, 0x5a);
  async function* bytes() {
    yield head;
    for (let sent = 0; sent < size; sent += chunk.length) {
      if (held && sent >= size / 2) await held;
      yield chunk.subarray(0, Math.min(chunk.length, size - sent));
      // Paced: an upload lasts long enough for a kill to find it half way.
      if (pace) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    yield tail;
  }
  return {
    body: Readable.from(bytes(), { objectMode: false }),
    type: `multipart/form-data; boundary=${boundary}`,
    length: head.length + size + tail.length,
  };
}

/** POSTs a multipart body; answers the status and JSON, or null when the connection died first. */
function post(url: string, token: string, path: string, upload: ReturnType<typeof multipart>) {
  return new Promise<{ status: number; body: Record<string, unknown> } | null>((resolve) => {
    const req = request(
      `${url}${path}`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': upload.type,
          'content-length': String(upload.length),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} }));
        res.on('error', () => resolve(null));
      },
    );
    req.on('error', () => resolve(null));
    upload.body.on('error', () => resolve(null));
    upload.body.pipe(req);
  });
}

/** Every file kept under the folder, with its size, `.part` files included. */
function kept(folder: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) found.set(entry.name, statSync(join(entry.parentPath, entry.name)).size);
  }
  return found;
}

describe.each(SQLITE_ONLY)('a 200 MB upload on $name', (db) => {
  let fresh: FreshDatabase;
  let dir: string;
  let user: ApiUser;
  let database: ServedDatabase;

  beforeAll(async () => {
    fresh = await db.fresh();
    dir = mkdtempSync(join(tmpdir(), 'ninepoint-uploads-'));
    writeFileSync(join(dir, 'spec.md'), SPEC);
    database = servedDatabase(fresh);
    const { model } = checkSpec(SPEC);
    [user] = (await addApiUsers(model, database, [{ email: 'clerk@example.test', roles: ['clerk'] }])) as [ApiUser];
  });
  afterAll(async () => {
    await fresh.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('streams to disk and back with the server’s memory growing by less than 50 MB', async () => {
    const folder = join(dir, 'files');
    const server = await startServe({
      specPath: join(dir, 'spec.md'),
      database,
      env: { FILE_STORAGE: folder },
    });
    try {
      // Warm: the first upload loads the multipart and file-type modules.
      expect((await post(server.url, user.token, '/api/scans', multipart('warm', 1 * MB)))?.status).toBe(201);
      const baseline = server.rssKb();
      let peak = baseline;
      const sampler = setInterval(() => {
        peak = Math.max(peak, server.rssKb());
      }, 20);
      const size = 200 * MB;
      let answer: Awaited<ReturnType<typeof post>>;
      let downloaded = 0;
      try {
        answer = await post(server.url, user.token, '/api/scans', multipart('big', size));
        expect(answer?.status).toBe(201);
        console.log(`uploads: after the upload, peak ${Math.round(peak / 1024)} MB`);
        const response = await fetch(`${server.url}/api/files/${answer?.body.file}`, {
          headers: { authorization: `Bearer ${user.token}` },
        });
        expect(response.status).toBe(200);
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) downloaded += chunk.length;
      } finally {
        clearInterval(sampler);
      }
      peak = Math.max(peak, server.rssKb());
      const growthMb = (peak - baseline) / 1024;
      console.log(
        `uploads: 200 MB up and down, server RSS ${Math.round(baseline / 1024)} MB → peak ${Math.round(peak / 1024)} MB (+${growthMb.toFixed(1)} MB)`,
      );
      expect(downloaded).toBe(size);
      expect([...kept(folder).values()]).toContain(size);
      expect(growthMb).toBeLessThan(50);
    } finally {
      await server.stop();
    }
  }, 180_000);
});

// On PostgreSQL too: what survives a kill is what each database committed, and the files' rows
// (pending, attached) are SQL each database runs.
describe.each(TEST_DATABASES)('uploads killed with SIGKILL on $name', (db) => {
  let fresh: FreshDatabase;
  let dir: string;
  let folder: string;
  let user: ApiUser;
  let database: ServedDatabase;

  beforeAll(async () => {
    fresh = await db.fresh();
    dir = mkdtempSync(join(tmpdir(), 'ninepoint-upload-kills-'));
    folder = join(dir, 'files');
    writeFileSync(join(dir, 'spec.md'), SPEC);
    database = servedDatabase(fresh);
    const { model } = checkSpec(SPEC);
    [user] = (await addApiUsers(model, database, [{ email: 'clerk@example.test', roles: ['clerk'] }])) as [ApiUser];
  });
  afterAll(async () => {
    await fresh.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`leaves no record naming a missing file over ${ROUNDS} kills, and the sweep removes what cut-off uploads left`, async () => {
    const answered = new Map<string, number>();
    let cut = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const server = await startServe({ specPath: join(dir, 'spec.md'), database, env: { FILE_STORAGE: folder } });
      // Every record the database holds names a file that is there, whole: after each kill.
      const page = await call(server.url, user.token, 'GET', '/api/scans?limit=200');
      for (const scan of page.body.items as Record<string, unknown>[]) {
        const got = await fetch(`${server.url}/api/files/${scan.file}`, {
          headers: { authorization: `Bearer ${user.token}` },
        });
        expect(got.status, `round ${round}: ${scan.title} names ${scan.file}`).toBe(200);
        const bytes = (await got.arrayBuffer()).byteLength;
        const sent = answered.get(String(scan.id));
        if (sent !== undefined) expect(bytes).toBe(sent);
        else expect(bytes % (256 * 1024)).toBe(0);
      }
      let answeredThisRound = 0;
      // One upload a round is held half way until the kill: on a quiet machine the others can all
      // be answered before it, which would leave no cut-off upload for the sweep to clear.
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const cutOff = post(server.url, user.token, '/api/scans', multipart(`r${round}-held`, MB, false, held)).then(
        (answer) => {
          expect(answer, `round ${round}: the held upload was answered`).toBeNull();
          cut++;
        },
      );
      const uploads = Array.from({ length: UPLOADS_PER_ROUND }, (_, i) => {
        const size = (1 + ((round + i) % 4)) * 256 * 1024;
        return post(server.url, user.token, '/api/scans', multipart(`r${round}-${i}`, size, true)).then((answer) => {
          if (answer?.status === 201) {
            answered.set(String(answer.body.id), size);
            answeredThisRound++;
          } else cut++;
        });
      });
      // Killed while some uploads stream, some are written and some are still to come: once the
      // round's time has passed and at least one upload was answered (the smallest, mostly), so
      // that the records checked after the kill include answered ones. On a loaded machine the
      // time alone had seen no upload answered in 10 rounds, which left nothing to check.
      await killMoment(60 + ((round * 53) % 400), () => answeredThisRound, 1, 20_000);
      await server.kill();
      release();
      await Promise.all([...uploads, cutOff]);
    }
    expect(cut, 'some uploads were cut off by the kills').toBeGreaterThan(0);
    expect(answered.size, 'uploads answered before the kills').toBeGreaterThanOrEqual(ROUNDS);

    // What was cut off is pending until its grace has passed; then the sweep removes it.
    const { model } = checkSpec(SPEC);
    const later = Date.now() + 2 * 60 * 60 * 1000;
    const server = await createServer({
      model,
      ...(database.kind === 'sqlite' ? { dbPath: database.dbPath } : { databaseUrl: database.databaseUrl }),
      logger: false,
      fileStorage: folder,
      sweepFiles: false,
      now: () => later,
    });
    try {
      const swept = await server.files?.sweep();
      console.log(
        `uploads: ${ROUNDS} kills, ${answered.size} uploads answered, ${cut} cut off; swept ${JSON.stringify(swept)}`,
      );
      const records = (await server.files?.table.kept()) ?? [];
      expect(records.every((f) => f.state === 'attached')).toBe(true);
      // The folder holds exactly the attached files' bytes: no `.part`, nothing no row names.
      const keys = new Set(records.map((f) => f.storageKey));
      expect([...kept(folder).keys()].sort()).toEqual([...keys].sort());
      const listed = await server.app.inject({
        method: 'GET',
        url: '/api/scans?limit=200',
        headers: { authorization: `Bearer ${user.token}` },
      });
      const items = listed.json().items as Record<string, unknown>[];
      expect(new Set(items.map((r) => String(r.file)))).toEqual(new Set(records.map((f) => f.id)));
    } finally {
      await server.close();
    }
  }, 300_000);
});
