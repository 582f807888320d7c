import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { LENDING_DESK } from '../../../server/test/helpers.ts';
import { piped, runIn, startBin, tempDir } from '../test-support.ts';

/** The lending desk, with a rate limit the writers below stay under however fast they go. */
const DESK = LENDING_DESK.replace(
  '| MAX_LOANS  |',
  '| RATE_LIMIT_PER_MINUTE | 1000000 | calls per user per minute |\n| MAX_LOANS  |',
);

/** A folder with the desk as spec.md, its database at data/app.db, and an API token of a staff member. */
async function deskWithToken(): Promise<{ dir: string; token: string }> {
  const dir = tempDir({ 'spec.md': DESK });
  const db = ['--db', 'data/app.db'];
  const added = await runIn(
    dir,
    ['users', 'add', 'ada@example.org', 'spec.md', '--role', 'staff', ...db, '--password-stdin'],
    { stdin: piped('correct horse battery staple') },
  );
  expect(added.code).toBe(0);
  const created = await runIn(dir, ['tokens', 'create', 'ada@example.org', 'spec.md', '--name', 'writer', ...db]);
  expect(created.code).toBe(0);
  return { dir, token: created.stdout.trim() };
}

/**
 * Creates books against a running server from `lanes` concurrent clients until `stop` is called;
 * `committed` holds the id of every book whose creation the server has acknowledged.
 */
function keepCreatingBooks(url: string, token: string, lanes = 4) {
  const committed: string[] = [];
  let stopping = false;
  let next = 0;
  const lane = async () => {
    while (!stopping) {
      const n = next++;
      const response = await fetch(`${url}/api/books`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Book ${n}`, isbn: `978${String(n).padStart(10, '0')}`, copies: 1 }),
      });
      const body = (await response.json()) as { id?: string };
      if (response.status !== 201 || !body.id) throw new Error(`creating a book: ${JSON.stringify(body)}`);
      committed.push(body.id);
    }
  };
  const running = Promise.all(Array.from({ length: lanes }, lane));
  return {
    committed,
    async until(count: number) {
      while (committed.length < count) await Promise.race([running, new Promise((r) => setTimeout(r, 20))]);
    },
    async stop() {
      stopping = true;
      await running;
    },
  };
}

// Concurrent: each test has a folder of its own; most of their time is spent waiting on the
// bin's servers to start.
describe.concurrent('ninepoint backup and restore', () => {
  it('backs up a database while its server writes, and the restored copy serves every book created before', async () => {
    const { dir, token } = await deskWithToken();
    const server = await startBin(dir, ['serve', 'spec.md', '--port', '0', '--db', 'data/app.db']);
    const writer = keepCreatingBooks(server.url, token);
    let before: string[];
    let backup: Awaited<ReturnType<typeof runIn>>;
    try {
      await writer.until(40);
      before = [...writer.committed];
      // In this process, while the server's process goes on creating books.
      backup = await runIn(dir, ['backup', 'backups/desk.db', '--db', 'data/app.db']);
    } finally {
      await writer.stop();
      expect(await server.stop()).toBe(0);
    }
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    const backedUp = Number(/\n {2}Book +(\d+)\n/.exec(backup.stdout)?.[1]);
    expect(backedUp).toBeGreaterThanOrEqual(before.length);
    expect(backedUp).toBeLessThanOrEqual(writer.committed.length);
    expect(backup.stdout).toContain(
      `Backed up "Lending desk" (SQLite: ${join(dir, 'data/app.db')}) to ${dir}/backups/desk.db:\n`,
    );
    expect(backup.stdout).toMatch(
      /^ {2}\d+ KB, \d+ tables, \d+ records, 1 user; spec last applied .*; integrity checked\.$/m,
    );
    expect(backup.stdout).toContain('Restore it with: npx ninepoint restore backups/desk.db --db data/app.db\n');

    const restore = await runIn(dir, ['restore', 'backups/desk.db', 'spec.md', '--db', 'restored/app.db']);
    expect(restore.stderr).toBe('');
    expect(restore.code).toBe(0);
    expect(restore.stdout).toContain('It fits spec.md as it is.\n');
    expect(restore.stdout).toContain(`Restored it to SQLite: ${dir}/restored/app.db (${backedUp} records, 1 user).\n`);

    const restored = await startBin(dir, ['serve', 'spec.md', '--port', '0', '--db', 'restored/app.db']);
    try {
      // Every book, through the app's list call (the spec declares no single-book call).
      const served = new Set<string>();
      let cursor = '';
      do {
        const response = await fetch(`${restored.url}/api/books?limit=100${cursor}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(response.status).toBe(200);
        const page = (await response.json()) as { items: { id: string }[]; next: string | null };
        for (const book of page.items) served.add(book.id);
        cursor = page.next ? `&cursor=${encodeURIComponent(page.next)}` : '';
      } while (cursor);
      expect(served.size).toBe(backedUp);
      expect(before.filter((id) => !served.has(id))).toEqual([]);
    } finally {
      expect(await restored.stop()).toBe(0);
    }
  });

  it('refuses to replace an existing backup or database unless asked', async () => {
    const { dir } = await deskWithToken();
    writeFileSync(join(dir, 'kept.db'), 'an older backup');
    const refused = await runIn(dir, ['backup', 'kept.db', '--db', 'data/app.db']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `error: ${dir}/kept.db exists already; choose another name, or pass --force to replace it.\nNo backup was written.\n`,
    );
    expect(readFileSync(join(dir, 'kept.db'), 'utf8')).toBe('an older backup');
    expect((await runIn(dir, ['backup', 'kept.db', '--db', 'data/app.db', '--force'])).code).toBe(0);

    const onto = await runIn(dir, ['restore', 'kept.db', 'spec.md', '--db', 'data/app.db']);
    expect(onto.code).toBe(1);
    expect(onto.stderr).toContain(`error: ${dir}/data/app.db exists already; restoring replaces everything in it.`);
    const forced = await runIn(dir, ['restore', 'kept.db', 'spec.md', '--db', 'data/app.db', '--force']);
    expect(forced.code).toBe(0);
    const replaced = /The database it replaced is kept as (\S+); delete it when you no longer need it\.\n/.exec(
      forced.stdout,
    )?.[1];
    expect(replaced).toMatch(
      new RegExp(`^${dir}/data/app\\.db\\.replaced-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\dZ$`),
    );
    expect(existsSync(replaced ?? '')).toBe(true);
  });

  it('restores nothing from a damaged file, a file that is not a Ninepoint database, or one the spec does not fit', async () => {
    const { dir, token } = await deskWithToken();
    const server = await createServer({
      model: checkSpec(DESK).model,
      dbPath: join(dir, 'data/app.db'),
      logger: false,
    });
    try {
      const created = await server.app.inject({
        method: 'POST',
        url: '/api/books',
        headers: { authorization: `Bearer ${token}` },
        payload: { title: 'Dune', isbn: '9780441013593' },
      });
      expect(created.statusCode).toBe(201);
    } finally {
      await server.close();
    }
    expect((await runIn(dir, ['backup', 'good.db', '--db', 'data/app.db'])).code).toBe(0);
    const good = readFileSync(join(dir, 'good.db'));
    const damaged = Buffer.from(good);
    // Page 2 onwards: the tables' pages, past the header and schema on page 1.
    damaged.fill(0x5a, 4096, 4096 + 8192);
    writeFileSync(join(dir, 'damaged.db'), damaged);
    writeFileSync(join(dir, 'notes.db'), 'Remember the milk.\n');

    for (const [file, why] of [
      ['damaged.db', /^error: The backup is damaged/],
      ['notes.db', /is not a usable SQLite database: file is not a database\./],
      ['missing.db', /^error: There is no backup at /],
    ] as const) {
      const restore = await runIn(dir, ['restore', file, 'spec.md', '--db', 'restored.db']);
      expect(restore.code).toBe(1);
      expect(restore.stderr).toMatch(why);
      expect(restore.stderr).toMatch(/Nothing was restored\.\n$/);
      expect(existsSync(join(dir, 'restored.db'))).toBe(false);
    }

    // The spec without Book's isbn: serve would refuse to hide the backup's ISBNs.
    writeFileSync(join(dir, 'narrower.md'), DESK.replace(/\| isbn .*\n/, ''));
    const unfit = await runIn(dir, ['restore', 'good.db', 'narrower.md', '--db', 'restored.db']);
    expect(unfit.code).toBe(1);
    expect(unfit.stderr).toContain('serve would refuse to open this backup with narrower.md');
    expect(existsSync(join(dir, 'restored.db'))).toBe(false);

    const checked = await runIn(dir, ['restore', 'good.db', 'spec.md', '--db', 'restored.db', '--check']);
    expect(checked.code).toBe(0);
    expect(checked.stdout).toMatch(/It fits spec.md as it is.\nNothing was changed \(--check\).\n$/);
    expect(existsSync(join(dir, 'restored.db'))).toBe(false);
  });

  it('points to pg_dump and pg_restore when the data is in PostgreSQL', async () => {
    const dir = tempDir({ 'spec.md': LENDING_DESK });
    const env = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' };
    for (const args of [
      ['backup', 'x.dump'],
      ['restore', 'x.dump', 'spec.md'],
    ]) {
      const result = await runIn(dir, args, { env });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("the app's data is in PostgreSQL");
      expect(result.stderr).toContain('pg_dump --format=custom --file ninepoint.dump "$DATABASE_URL"');
      expect(existsSync(join(dir, 'x.dump'))).toBe(false);
    }
  });
});

describe('ninepoint backup and restore with uploaded files', () => {
  const SPEC = `# Specification: Scans

## 3. Entities and their fields

### Scan

| field | type | rules    |
| ----- | ---- | -------- |
| title | text | required |
| file  | file |          |

## 6. Roles and permissions

| role  | Scan                         |
| ----- | ---------------------------- |
| clerk | create, read, update, delete |
`;

  it('copies the files the snapshot holds beside the backup, and restores them into the new store', async () => {
    const dir = tempDir({ 'spec.md': SPEC });
    const { model } = checkSpec(SPEC);
    const server = await createServer({ model, dbPath: join(dir, 'data', 'app.db'), logger: false, sweepFiles: false });
    const file = server.files;
    if (!file) throw new Error('no files');
    const id = '0190f3a2-0000-7000-8000-0000000000aa';
    const key = 'k'.repeat(43);
    await file.table.addPending({
      id,
      storageKey: key,
      entity: 'Scan',
      recordId: '0190f3a2-0000-7000-8000-0000000000bb',
      field: 'file',
      name: 'scan.pdf',
      size: 5,
      mime: 'application/pdf',
      kind: 'pdf',
      createdBy: null,
      createdAt: Date.now(),
    });
    await file.table.attach([id]);
    const { Readable } = await import('node:stream');
    await file.storage.write(key, Readable.from([Buffer.from('%PDF-')]));
    await server.close();

    const backedUp = await runIn(dir, ['backup', 'backups/one.db', '--db', 'data/app.db']);
    expect(backedUp.code).toBe(0);
    expect(backedUp.stdout).toContain('Copied 1 uploaded file (5 bytes)');
    expect(readFileSync(join(dir, 'backups', 'one.db.files', 'kk', key), 'utf8')).toBe('%PDF-');

    const restored = await runIn(dir, ['restore', 'backups/one.db', '--db', 'other/app.db']);
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain('Restored 1 uploaded file');
    expect(readFileSync(join(dir, 'other', 'files', 'kk', key), 'utf8')).toBe('%PDF-');

    const s3 = await runIn(dir, ['backup', 'backups/two.db', '--db', 'data/app.db'], {
      env: { FILE_STORAGE: 's3://bucket/app' },
    });
    expect(s3.stdout).toContain('back the bucket up with its own versioning or replication');
  });
});
