import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { LENDING_DESK, modelOf, tempDir } from '../../../test/helpers.ts';
import { blockingSteps } from '../../compile/migration-contract.ts';
import { compileSqlSchema } from '../../compile/sql-schema.ts';
import { BackupError, backupSqlite, inspectSqliteBackup, restoreSqlite } from './sqlite-backup.ts';
import { SqliteStore } from './sqlite-store.ts';

const require = createRequire(import.meta.url);
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const model = modelOf(LENDING_DESK);
const schema = compileSqlSchema(model);

/** A lending desk database kept open, as a running server keeps it, with `books` books in it. */
async function openDesk(books: number) {
  const temp = tempDir();
  const store = SqliteStore.open(temp.dbPath);
  cleanups.push(() => {
    if (store.db.open) store.db.close();
    temp.remove();
  });
  await store.applySchema(schema, model);
  // No checkpoint: rows committed since the last one are only in the -wal file.
  store.db.pragma('wal_autocheckpoint = 0');
  const insert = store.db.prepare(
    "INSERT INTO books (id, created_at, updated_at, title, isbn) VALUES (?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', ?, ?)",
  );
  for (let i = 0; i < books; i++) insert.run(`b${i}`, `Book ${i}`, `978${String(i).padStart(10, '0')}`);
  return { store, dir: temp.dir, dbPath: temp.dbPath, insert };
}

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BackupError);
  return (error as BackupError).message;
};

describe('backupSqlite', () => {
  it('copies an open database with the rows still in its write-ahead log into one checked file', async () => {
    const desk = await openDesk(120);
    expect(existsSync(`${desk.dbPath}-wal`)).toBe(true);
    const destination = join(desk.dir, 'backups', 'desk.db');
    const summary = await backupSqlite(desk.dbPath, destination);
    expect(summary).toMatchObject({
      product: 'Lending desk',
      records: [
        { entity: 'Book', table: 'books', count: 120 },
        { entity: 'Loan', table: 'loans', count: 0 },
      ],
      users: 0,
    });
    expect(summary.bytes).toBeGreaterThan(0);
    expect(summary.tables).toBeGreaterThanOrEqual(4);
    // One self-contained file: no log of its own, nothing left beside it.
    expect(existsSync(`${destination}-wal`)).toBe(false);
    const copy = new Database(destination, { readonly: true });
    try {
      expect(copy.pragma('journal_mode', { simple: true })).toBe('delete');
      expect(copy.prepare('SELECT count(*) AS n FROM books').get()).toEqual({ n: 120 });
    } finally {
      copy.close();
    }
  });

  it('refuses to replace an existing file unless asked, and to write over the database itself', async () => {
    const desk = await openDesk(1);
    const destination = join(desk.dir, 'desk-backup.db');
    writeFileSync(destination, 'precious');
    expect(await refusal(backupSqlite(desk.dbPath, destination))).toBe(
      `${destination} exists already; choose another name, or pass --force to replace it.`,
    );
    expect(readFileSync(destination, 'utf8')).toBe('precious');
    expect(await refusal(backupSqlite(desk.dbPath, desk.dbPath, { overwrite: true }))).toMatch(/another file/);
    expect(await refusal(backupSqlite(desk.dbPath, desk.dir, { overwrite: true }))).toBe(
      `${desk.dir} is a folder; name the backup file in it, e.g. ${join(desk.dir, 'ninepoint.db')}.`,
    );
    desk.insert.run('b-late', 'Late', '9780000000999');
    const summary = await backupSqlite(desk.dbPath, destination, { overwrite: true });
    expect(summary.records[0]?.count).toBe(2);
  });

  it('refuses a file that is not a Ninepoint database, leaving nothing behind', async () => {
    const temp = tempDir();
    cleanups.push(temp.remove);
    const other = join(temp.dir, 'other.db');
    new Database(other).exec('CREATE TABLE notes (text TEXT)');
    const destination = join(temp.dir, 'backup.db');
    expect(await refusal(backupSqlite(other, destination))).toMatch(/is not a Ninepoint database/);
    expect(await refusal(backupSqlite(join(temp.dir, 'missing.db'), destination))).toMatch(/There is no database at/);
    expect(existsSync(destination)).toBe(false);
  });
});

describe('inspectSqliteBackup', () => {
  it('describes a backup and plans the migration serve would run to a spec', async () => {
    const desk = await openDesk(3);
    const backup = join(desk.dir, 'backup.db');
    await backupSqlite(desk.dbPath, backup);
    const same = await inspectSqliteBackup(backup, { model, schema });
    expect(same.summary.records[0]).toEqual({ entity: 'Book', table: 'books', count: 3 });
    expect(same.plan && blockingSteps(same.plan, false)).toEqual([]);
    // A spec without the isbn field would hide the backup's ISBNs: serve would refuse it.
    const withoutIsbn = modelOf(LENDING_DESK.replace(/\| isbn .*\n/, ''));
    const narrower = await inspectSqliteBackup(backup, { model: withoutIsbn, schema: compileSqlSchema(withoutIsbn) });
    expect(narrower.plan && blockingSteps(narrower.plan, false).map((s) => s.kind)).toEqual(['keep-column']);
  });

  it('refuses a file that is not SQLite, a database that is not Ninepoint, and a damaged one', async () => {
    const desk = await openDesk(400);
    const text = join(desk.dir, 'notes.txt');
    writeFileSync(text, 'not a database at all\n'.repeat(100));
    expect(await refusal(inspectSqliteBackup(text))).toMatch(/is not a usable SQLite database: file is not a database/);

    const other = join(desk.dir, 'other.db');
    new Database(other).exec('CREATE TABLE notes (text TEXT)');
    expect(await refusal(inspectSqliteBackup(other))).toMatch(/is not a Ninepoint database/);

    const backup = join(desk.dir, 'backup.db');
    await backupSqlite(desk.dbPath, backup);
    const bytes = readFileSync(backup);
    // Scribble over the middle of the file, past the schema on page 1: the books' pages.
    bytes.fill(0x5a, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 2048);
    const damaged = join(desk.dir, 'damaged.db');
    writeFileSync(damaged, bytes);
    expect(await refusal(inspectSqliteBackup(damaged))).toMatch(/^The backup is damaged/);
  });
});

describe('restoreSqlite', () => {
  it('restores into a new file, and over an existing database only when asked and no server has it open', async () => {
    const desk = await openDesk(5);
    const backup = join(desk.dir, 'backup.db');
    await backupSqlite(desk.dbPath, backup);

    const fresh = join(desk.dir, 'restored', 'app.db');
    expect(await restoreSqlite(backup, fresh)).toMatchObject({
      summary: { records: [{ count: 5 }, {}] },
      replaced: null,
    });

    expect(await refusal(restoreSqlite(backup, desk.dbPath))).toMatch(/exists already; .*Pass --force/);
    expect(await refusal(restoreSqlite(backup, desk.dbPath, { overwrite: true }))).toBe(
      `${desk.dbPath} is in use (is the app still running?); stop it, then restore.`,
    );
    desk.store.db.close();
    // A server that crashed after writing a row the backup lacks: the row is only in the -wal file.
    const crash = spawnSync(process.execPath, [
      '-e',
      `const db = new (require(${JSON.stringify(require.resolve('better-sqlite3'))}))(${JSON.stringify(desk.dbPath)});
       db.pragma('wal_autocheckpoint = 0');
       db.prepare("INSERT INTO books (id, created_at, updated_at, title, isbn) VALUES ('b-after', 'x', 'x', 'After', '9780000000998')").run();
       process.kill(process.pid, 'SIGKILL');`,
    ]);
    expect(crash.signal).toBe('SIGKILL');
    expect(existsSync(`${desk.dbPath}-wal`)).toBe(true);
    const now = new Date('2026-05-01T09:30:15.123Z');
    const restored = await restoreSqlite(backup, desk.dbPath, { overwrite: true, now });
    const replaced = `${desk.dbPath}.replaced-2026-05-01T09-30-15Z`;
    expect(restored).toMatchObject({ summary: { records: [{ count: 5 }, {}] }, replaced });
    expect(existsSync(`${desk.dbPath}-wal`)).toBe(false);

    // The restored database is the backup: the replaced database's log did not leak into it.
    const reopened = SqliteStore.open(desk.dbPath);
    try {
      await reopened.applySchema(schema, model);
      expect(reopened.db.prepare("SELECT count(*) AS n FROM books WHERE id = 'b-after'").get()).toEqual({ n: 0 });
      expect(reopened.db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      await reopened.close();
    }
    // The replaced database is kept whole, its log with it.
    const kept = new Database(replaced, { readonly: true });
    try {
      expect(kept.prepare("SELECT count(*) AS n FROM books WHERE id = 'b-after'").get()).toEqual({ n: 1 });
    } finally {
      kept.close();
    }
  });
});
