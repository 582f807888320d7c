import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers.ts';
import { foundByHash } from '../../people/found-by-hash.ts';
import { SqliteStore } from './sqlite-store.ts';
import { countWrites } from './write-count.ts';

describe('countWrites', () => {
  it('counts every statement that may write and every exec, and no read', () => {
    const db = new Database(':memory:');
    try {
      const count = countWrites(db);
      db.exec('CREATE TABLE t (x INTEGER)');
      expect(count.writes).toBe(1);
      const insert = db.prepare('INSERT INTO t VALUES (?)');
      insert.run(1);
      db.prepare('INSERT INTO t VALUES (2) RETURNING x').get();
      db.prepare('UPDATE t SET x = x + 1 RETURNING x').all();
      db.prepare('DELETE FROM t WHERE x > 100').run();
      expect(count.writes).toBe(5);
      db.prepare('SELECT x FROM t').all();
      db.prepare('SELECT count(*) FROM t').pluck().get();
      db.prepare('PRAGMA data_version').pluck().get();
      for (const _ of db.prepare('SELECT x FROM t').iterate());
      expect(count.writes).toBe(5);
      // A write that fails still counts: it only makes what was read under the stamp be read again.
      expect(() => db.prepare('INSERT INTO t VALUES (?)').run({})).toThrow();
      expect(count.writes).toBe(6);
      // Inside a transaction of better-sqlite3's, the writes are the statements': each is counted.
      db.transaction(() => {
        insert.run(3);
        insert.run(4);
      })();
      expect(count.writes).toBe(8);
      expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(4);
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
      await store.sql.exec(['CREATE TABLE "secrets" ("hash" TEXT PRIMARY KEY, "owner" TEXT NOT NULL)']);
      await store.sql.run('INSERT INTO "secrets" VALUES (?, ?)', ['h1', 'ada']);
      const reads: string[] = [];
      const find = foundByHash<{ owner: string }, string>(
        store.sql,
        'SELECT "owner" FROM "secrets" WHERE "hash" = ?',
        (row) => {
          reads.push(row?.owner ?? '-');
          return row?.owner;
        },
      );
      expect(await find('h1')).toBe('ada');
      const stamp = store.sql.changeStamp();
      await store.sql.all('SELECT * FROM "secrets"');
      store.db.prepare('SELECT * FROM "secrets"').all();
      expect(store.sql.changeStamp()).toBe(stamp);
      expect(await find('h1')).toBe('ada');
      expect(reads).toEqual(['ada']);

      // Code that holds the connection itself (a module of the app's, a command) writes past the runner.
      store.db.prepare('UPDATE "secrets" SET "owner" = ? WHERE "hash" = ?').run('grace', 'h1');
      expect(await find('h1')).toBe('grace');
      store.db.exec(`DELETE FROM "secrets" WHERE "hash" = 'h1'`);
      expect(await find('h1')).toBeUndefined();

      // Another process's commit (here another connection) is heard through data_version.
      const other = new Database(temp.dbPath);
      try {
        other.prepare('INSERT INTO "secrets" VALUES (?, ?)').run('h1', 'alan');
      } finally {
        other.close();
      }
      expect(await find('h1')).toBe('alan');
      expect(reads).toEqual(['ada', 'grace', '-', 'alan']);
    } finally {
      store.db.close();
      temp.remove();
    }
  });
});
