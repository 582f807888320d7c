import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { addUser, openAccounts } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { TEST_DATABASES } from '../../../server/test/databases.ts';
import { listQuery } from '../../../server/test/stores.ts';
import { tempDir } from '../test-support.ts';
import { copyRows } from './copy-rows.ts';
import { openSqlite } from './read-sqlite.ts';
import { specFromSchema } from './spec-from-schema.ts';

/** A chain of categories, each the parent of the next, written children first: one round a level. */
const LEVELS = 6;

describe.each(TEST_DATABASES)('copyRows into $name', (target) => {
  it('copies a table whose rows refer to its own in rounds, listing each copied record once for its key', async () => {
    const dir = tempDir();
    const fresh = await target.fresh();
    const source = (() => {
      const db = new Database(join(dir, 'shop.db'));
      db.pragma('foreign_keys = OFF');
      db.exec(
        'CREATE TABLE categories (code TEXT PRIMARY KEY, label TEXT NOT NULL, parent_code TEXT REFERENCES categories)',
      );
      const insert = db.prepare('INSERT INTO categories VALUES (?, ?, ?)');
      for (let level = LEVELS - 1; level >= 0; level--) {
        insert.run(`c${level}`, `Level ${level}`, level === 0 ? null : `c${level - 1}`);
      }
      db.close();
      return openSqlite(join(dir, 'shop.db'), 'shop.db');
    })();
    const plan = specFromSchema(source, 'Shop');
    const checked = checkSpec(plan.text);
    expect(checked.ok).toBe(true);
    const db = await openAccounts(checked.model, fresh.options);
    try {
      const user = await addUser(
        db.auth,
        { email: 'ada@example.org', roles: [], password: 'correct horse battery staple' },
        db.roles,
      );
      // Every record the copy lists to learn the copied ids, counted as the store answers them.
      let listed = 0;
      const records = db.store.records.bind(db.store);
      const counted = new WeakSet<object>();
      db.store.records = (entity) => {
        const table = records(entity);
        if (counted.has(table)) return table;
        counted.add(table);
        const list = table.list.bind(table);
        table.list = async (query) => {
          const page = await list(query);
          listed += page.records.length;
          return page;
        };
        return table;
      };
      const outcomes = await copyRows({
        source,
        tables: source.tables,
        entities: plan.entities,
        model: checked.model,
        db,
        user,
      });
      expect(outcomes.map((o) => [o.entity.entity, o.report.imported, o.report.refused])).toEqual([
        ['Category', LEVELS, 0],
      ]);
      expect(listed).toBe(LEVELS);
      db.store.records = records;
      const page = await db.store.records('Category').list(listQuery({ sort: { column: 'id', descending: false } }));
      const byId = new Map(page.records.map((r) => [r.id, r]));
      expect(page.records.map((r) => [r.code, byId.get(r.parent)?.code ?? null]).sort()).toEqual(
        Array.from({ length: LEVELS }, (_, level) => [`c${level}`, level === 0 ? null : `c${level - 1}`]),
      );
    } finally {
      await db.close();
      await source.close();
      await fresh.remove();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
