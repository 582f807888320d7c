import { describe, expect, it } from 'vitest';
import { TEST_DATABASES } from '../../test/databases.ts';
import { secretsTable } from '../../test/secrets-table.ts';
import { openStore } from '../store/open-store.ts';

describe.each(TEST_DATABASES)('foundByHash on $name', (db) => {
  it('answers the row a hash names as its caller turns it, sees a write at once, and never keeps what is missing', async () => {
    const fresh = await db.fresh();
    const store = await openStore(fresh.options);
    try {
      const { find, reads } = await secretsTable(store.sql);
      expect(await find('h1')).toBe('ADA');
      expect(await find('h1')).toBe('ADA');
      // SQLite keeps the first answer while nothing is written; PostgreSQL reads every time.
      expect(reads).toEqual(store.dialect === 'sqlite' ? ['ada'] : ['ada', 'ada']);
      await store.sql.run('UPDATE "secrets" SET "owner" = ? WHERE "hash" = ?', ['grace', 'h1']);
      expect(await find('h1')).toBe('GRACE');
      expect(await find('h2')).toBeUndefined();
      await store.sql.run('INSERT INTO "secrets" ("hash", "owner") VALUES (?, ?)', ['h2', 'alan']);
      expect(await find('h2')).toBe('ALAN');
    } finally {
      await store.close();
      await fresh.remove();
    }
  });
});
