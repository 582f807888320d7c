import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers.ts';
import { secretsTable } from '../../../test/secrets-table.ts';
import { SqliteStore } from './sqlite-store.ts';
import { countWrites } from './write-count.ts';

describe('countWrites', () => {
  it('moves with every statement that may write, every exec and every rollback, and never with a read', () => {
    const db = new Database(':memory:');
    try {
      const count = countWrites(db);
      const moves = (work: () => unknown): boolean => {
        const before = count.writes;
        try {
          work();
        } catch {
          // A write that fails is counted all the same.
        }
        return count.writes !== before;
      };
      expect(moves(() => db.exec('CREATE TABLE t (x INTEGER)'))).toBe(true);
      const insert = db.prepare('INSERT INTO t VALUES (?)');
      expect(moves(() => insert.run(1))).toBe(true);
      expect(moves(() => db.prepare('INSERT INTO t VALUES (2) RETURNING x').get())).toBe(true);
      expect(moves(() => db.prepare('UPDATE t SET x = x + 1 RETURNING x').all())).toBe(true);
      expect(moves(() => db.prepare('DELETE FROM t WHERE x > 100').run())).toBe(true);
      expect(moves(() => db.prepare('INSERT INTO t VALUES (?)').run({}))).toBe(true);
      expect(moves(() => db.transaction(() => insert.run(3))())).toBe(true);

      expect(moves(() => db.prepare('SELECT x FROM t').all())).toBe(false);
      expect(moves(() => db.prepare('SELECT count(*) FROM t').pluck().get())).toBe(false);
      expect(moves(() => db.prepare('PRAGMA data_version').pluck().get())).toBe(false);
      expect(moves(() => [...db.prepare('SELECT x FROM t').iterate()])).toBe(false);
      const select = db.prepare('SELECT x FROM t');
      expect(moves(() => db.transaction(() => select.all())())).toBe(false);

      // A rollback undoes writes: better-sqlite3's own when the work throws, or a prepared one.
      expect(
        moves(() =>
          db.transaction(() => {
            select.all();
            throw new Error('refused');
          })(),
        ),
      ).toBe(true);
      db.exec('BEGIN');
      const rollback = db.prepare('ROLLBACK');
      expect(moves(() => rollback.run())).toBe(true);
      expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(3);
    } finally {
      db.close();
    }
  });

  it('moves as an iteration writes: a read between its start and its first row is stale after it', () => {
    const db = new Database(':memory:');
    try {
      const count = countWrites(db);
      db.exec('CREATE TABLE t (x INTEGER)');
      db.prepare('INSERT INTO t VALUES (?)').run(1);
      const rows = db.prepare('UPDATE t SET x = x + 1 RETURNING x').iterate();
      const read = db.prepare('SELECT x FROM t').pluck();
      // SQLite writes when the first row is asked for, not before.
      expect(read.get()).toBe(1);
      const readUnder = count.writes;
      expect(rows.next().value).toEqual({ x: 2 });
      rows.return?.();
      expect(read.get()).toBe(2);
      expect(count.writes).not.toBe(readUnder);
      let seen = 0;
      for (const _ of db.prepare('UPDATE t SET x = x + 1 RETURNING x').iterate()) seen = count.writes;
      expect(seen).toBeGreaterThan(readUnder);
      expect(count.writes).toBeGreaterThan(seen);
    } finally {
      db.close();
    }
  });
});

describe('the SQLite change stamp', () => {
  it('moves with a write on the connection by any path and with another process’s commit, and not with a read', async () => {
    const temp = tempDir();
    const store = SqliteStore.open(temp.dbPath);
    try {
      const { find, reads } = await secretsTable(store.sql);
      expect(await find('h1')).toBe('ADA');
      const stamp = store.sql.changeStamp();
      await store.sql.all('SELECT * FROM "secrets"');
      store.db.prepare('SELECT * FROM "secrets"').all();
      expect(store.sql.changeStamp()).toBe(stamp);
      expect(await find('h1')).toBe('ADA');
      expect(reads).toEqual(['ada']);

      // Code that holds the connection itself (a module of the app's, a command) writes past the runner.
      store.db.prepare('UPDATE "secrets" SET "owner" = ? WHERE "hash" = ?').run('grace', 'h1');
      expect(await find('h1')).toBe('GRACE');
      store.db.exec(`DELETE FROM "secrets" WHERE "hash" = 'h1'`);
      expect(await find('h1')).toBeUndefined();

      // Another process's commit (here another connection) is heard through data_version.
      const other = new Database(temp.dbPath);
      try {
        other.prepare('INSERT INTO "secrets" VALUES (?, ?)').run('h1', 'alan');
      } finally {
        other.close();
      }
      expect(await find('h1')).toBe('ALAN');
      expect(reads).toEqual(['ada', 'grace', '-', 'alan']);
    } finally {
      store.db.close();
      temp.remove();
    }
  });
});
