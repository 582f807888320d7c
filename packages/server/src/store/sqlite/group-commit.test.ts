import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatchCommitError, GroupCommit } from './group-commit.ts';

const execFileAsync = promisify(execFile);

let dir: string;
let path: string;
const open: Database.Database[] = [];

function connect(synchronous: 'NORMAL' | 'FULL' = 'FULL'): Database.Database {
  const db = new Database(path, { timeout: 5000 });
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('foreign_keys = ON');
  // No checkpoint while a test runs: the WAL keeps every commit, for `commitsInWal` to count.
  db.pragma('wal_autocheckpoint = 0');
  open.push(db);
  return db;
}

/**
 * The commits in the WAL file, read from the file itself: each commit's last frame carries the
 * database size in pages after it, every other frame 0 (https://www.sqlite.org/fileformat.html#wal_file_format).
 */
function commitsInWal(): number {
  const wal = readFileSync(`${path}-wal`);
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  let commits = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    // Frames left from before the last reset carry older salts.
    if (wal.readUInt32BE(at + 8) !== salt1 || wal.readUInt32BE(at + 12) !== salt2) break;
    if (wal.readUInt32BE(at + 4) !== 0) commits++;
  }
  return commits;
}

function names(db: Database.Database): string[] {
  return db
    .prepare<[], { name: string }>('SELECT name FROM item ORDER BY id')
    .all()
    .map((row) => row.name);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
  path = join(dir, 'app.db');
  const db = connect();
  db.exec(`CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
    CREATE TABLE part (id INTEGER PRIMARY KEY, item INTEGER NOT NULL REFERENCES item (id))`);
});

afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('GroupCommit', () => {
  it('commits the writes queued in one turn of the event loop once', async () => {
    const db = open[0] as Database.Database;
    const insert = db.prepare<[string]>('INSERT INTO item (name) VALUES (?)');
    const commits = new GroupCommit(db);
    const before = commitsInWal();

    const written = await Promise.all(
      Array.from({ length: 20 }, (_, i) => commits.run(() => insert.run(`item ${i}`).changes)),
    );

    expect(written).toEqual(Array(20).fill(1));
    expect(commitsInWal() - before).toBe(1);
    expect(names(db)).toHaveLength(20);
  });

  it('holds at most maxBatch writes in one commit, the rest in the next turns', async () => {
    const db = open[0] as Database.Database;
    const insert = db.prepare<[string]>('INSERT INTO item (name) VALUES (?)');
    const commits = new GroupCommit(db, { maxBatch: 3 });
    const before = commitsInWal();

    await Promise.all(Array.from({ length: 7 }, (_, i) => commits.run(() => insert.run(`item ${i}`))));

    expect(commitsInWal() - before).toBe(3);
    expect(names(db)).toEqual(Array.from({ length: 7 }, (_, i) => `item ${i}`));
  });

  it('settles a write only after its commit: before that, another connection does not see it', async () => {
    const db = open[0] as Database.Database;
    const other = connect();
    const insert = db.prepare<[string]>('INSERT INTO item (name) VALUES (?)');
    const commits = new GroupCommit(db);
    let settled = false;

    const write = commits
      .run(() => insert.run('first'))
      .then(() => {
        settled = true;
        return names(other);
      });
    await Promise.resolve();

    expect(settled).toBe(false);
    expect(names(other)).toEqual([]);
    expect(await write).toEqual(['first']);
  });

  it('rolls back a write that throws, alone: the others of its batch commit', async () => {
    const db = open[0] as Database.Database;
    const insert = db.prepare<[string]>('INSERT INTO item (name) VALUES (?)');
    const commits = new GroupCommit(db);
    const before = commitsInWal();

    const results = await Promise.allSettled([
      commits.run(() => insert.run('a')),
      commits.run(() => {
        insert.run('b');
        throw new Error('refused after writing');
      }),
      // A constraint failing inside SQLite, like a unique value taken by an earlier write of the batch.
      commits.run(() => insert.run('a')),
      commits.run(() => insert.run('c')),
    ]);

    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ message: 'refused after writing' });
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
    expect(names(db)).toEqual(['a', 'c']);
    expect(commitsInWal() - before).toBe(1);
  });

  it('runs the writes in order: a write sees the writes queued before it', async () => {
    const db = open[0] as Database.Database;
    const insert = db.prepare<[string]>('INSERT INTO item (name) VALUES (?)');
    const commits = new GroupCommit(db);

    const [, seen, , seenLater] = await Promise.all([
      commits.run(() => insert.run('first')),
      commits.run(() => names(db)),
      commits.run(() => insert.run('second')),
      commits.run(() => names(db)),
    ]);

    expect(seen).toEqual(['first']);
    expect(seenLater).toEqual(['first', 'second']);
  });

  it('rejects every write of a batch whose COMMIT fails, and commits nothing of it', async () => {
    const db = open[0] as Database.Database;
    const insert = db.prepare<[string]>('INSERT INTO item (name) VALUES (?)');
    const commits = new GroupCommit(db);

    const results = await Promise.allSettled([
      commits.run(() => insert.run('a')),
      // A deferred foreign key is checked at COMMIT only: this write succeeds, its batch's COMMIT fails.
      commits.run(() => {
        db.pragma('defer_foreign_keys = ON');
        return db.prepare('INSERT INTO part (item) VALUES (999)').run().changes;
      }),
      commits.run(() => insert.run('b')),
    ]);

    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const result of results) {
      const reason = (result as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(BatchCommitError);
      expect((reason as Error).cause).toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    }
    expect(db.inTransaction).toBe(false);
    expect(names(db)).toEqual([]);
    expect(db.prepare('SELECT count(*) AS n FROM part').get()).toEqual({ n: 0 });

    // The connection goes on: the next batch commits.
    await commits.run(() => insert.run('c'));
    expect(names(db)).toEqual(['c']);
  });

  it('when a write ends the whole transaction, rejects the writes before it and runs those after it in a new one', async () => {
    const db = open[0] as Database.Database;
    const insert = db.prepare<[string]>('INSERT INTO item (name) VALUES (?)');
    const commits = new GroupCommit(db);

    const results = await Promise.allSettled([
      commits.run(() => insert.run('before')),
      // What SQLite does itself on some I/O errors: the transaction is gone, savepoints and all.
      commits.run(() => db.exec('ROLLBACK')),
      commits.run(() => insert.run('after')),
    ]);

    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseRejectedResult).reason).toBeInstanceOf(BatchCommitError);
    expect(names(db)).toEqual(['after']);
  });

  it('rejects the batch when the write lock stays taken past the busy timeout', async () => {
    const db = open[0] as Database.Database;
    db.pragma('busy_timeout = 50');
    const other = connect();
    other.exec('BEGIN IMMEDIATE');
    const commits = new GroupCommit(db);
    const insert = db.prepare<[string]>('INSERT INTO item (name) VALUES (?)');

    const results = await Promise.allSettled([commits.run(() => insert.run('a')), commits.run(() => insert.run('b'))]);
    other.exec('ROLLBACK');

    expect(results.map((r) => (r as PromiseRejectedResult).reason?.code)).toEqual(['SQLITE_BUSY', 'SQLITE_BUSY']);
    expect(names(db)).toEqual([]);
  });

  it('keeps the writes of two connections on one file apart, all committed', async () => {
    const first = open[0] as Database.Database;
    const second = connect();
    const a = new GroupCommit(first);
    const b = new GroupCommit(second);
    const insertA = first.prepare<[string]>('INSERT INTO item (name) VALUES (?)');
    const insertB = second.prepare<[string]>('INSERT INTO item (name) VALUES (?)');

    await Promise.all(
      Array.from({ length: 10 }, (_, i) => [
        a.run(() => insertA.run(`a ${i}`)),
        b.run(() => insertB.run(`b ${i}`)),
      ]).flat(),
    );

    expect(names(first).sort()).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `a ${i}`),
      ...Array.from({ length: 10 }, (_, i) => `b ${i}`),
    ]);
  });

  it('takes turns with another process writing to the same file: every write of both commits', async () => {
    const db = open[0] as Database.Database;
    const insert = db.prepare<[string]>('INSERT INTO item (name) VALUES (?)');
    const commits = new GroupCommit(db);
    // The other process writes as better-sqlite3 does on its own: one BEGIN IMMEDIATE transaction per row.
    const script = `
      const Database = require('better-sqlite3');
      const db = new Database(process.argv[1], { timeout: 5000 });
      db.pragma('synchronous = FULL');
      const insert = db.transaction((i) => db.prepare('INSERT INTO item (name) VALUES (?)').run('other ' + i));
      for (let i = 0; i < 200; i++) insert.immediate(i);
      db.close();`;
    const other = execFileAsync(process.execPath, ['-e', script, path], { cwd: import.meta.dirname });

    for (let turn = 0; turn < 20; turn++) {
      await Promise.all(Array.from({ length: 10 }, (_, i) => commits.run(() => insert.run(`this ${turn} ${i}`))));
    }
    await other;

    const counts = db
      .prepare<[], { who: string; n: number }>(
        "SELECT substr(name, 1, instr(name, ' ') - 1) AS who, count(*) AS n FROM item GROUP BY who ORDER BY who",
      )
      .all();
    expect(counts).toEqual([
      { who: 'other', n: 200 },
      { who: 'this', n: 200 },
    ]);
  });

  it('waits for a transaction left open across an await (a migration) instead of joining it', async () => {
    const db = open[0] as Database.Database;
    const insert = db.prepare<[string]>('INSERT INTO item (name) VALUES (?)');
    const commits = new GroupCommit(db);
    db.exec('BEGIN IMMEDIATE');
    db.exec("INSERT INTO item (name) VALUES ('migrated')");

    const write = commits.run(() => insert.run('queued'));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    db.exec('ROLLBACK');
    await write;

    expect(names(db)).toEqual(['queued']);
  });

  it('keeps acknowledged writes after the connection closes and the file is opened again', async () => {
    const db = open[0] as Database.Database;
    const insert = db.prepare<[string]>('INSERT INTO item (name) VALUES (?)');
    const commits = new GroupCommit(db);

    await Promise.all(Array.from({ length: 50 }, (_, i) => commits.run(() => insert.run(`item ${i}`))));
    db.close();
    const again = connect();

    expect(names(again)).toHaveLength(50);
  });

  it('drains: every write queued before it has committed when it resolves', async () => {
    const db = open[0] as Database.Database;
    const insert = db.prepare<[string]>('INSERT INTO item (name) VALUES (?)');
    const commits = new GroupCommit(db, { maxBatch: 2 });
    const writes = Array.from({ length: 5 }, (_, i) => commits.run(() => insert.run(`item ${i}`)));

    await commits.drain();

    expect(commits.pending).toBe(0);
    expect(names(db)).toHaveLength(5);
    await Promise.all(writes);
  });

  it('rejects writes queued when the connection is closed before their turn', async () => {
    const db = open[0] as Database.Database;
    const insert = db.prepare<[string]>('INSERT INTO item (name) VALUES (?)');
    const commits = new GroupCommit(db);

    const write = commits.run(() => insert.run('late'));
    db.close();

    await expect(write).rejects.toThrow(/not open/);
  });
});
