import { describe, expect, it } from 'vitest';
import { TEST_DATABASES } from '../../test/databases.ts';
import { AuthStore, USERS_TABLE } from './auth-store.ts';
import { openStore } from './open-store.ts';

/** The users table as databases made before accounts could be deactivated have it. */
const OLD_USERS_TABLE = `CREATE TABLE "${USERS_TABLE}" (
  "id" TEXT PRIMARY KEY,
  "email" TEXT NOT NULL UNIQUE,
  "name" TEXT NOT NULL,
  "roles" TEXT NOT NULL,
  "password_hash" TEXT NOT NULL,
  "created_at" TEXT NOT NULL
)`;

const ID = '0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f';

describe.each(TEST_DATABASES)('the runtime’s tables on $name', (db) => {
  it('upgrades an older users table in place: the new column is added, the accounts kept', async () => {
    const fresh = await db.fresh();
    const store = await openStore(fresh.options);
    try {
      await store.sql.exec([OLD_USERS_TABLE]);
      await store.sql.run(
        `INSERT INTO "${USERS_TABLE}" ("id", "email", "name", "roles", "password_hash", "created_at") VALUES (?, ?, ?, ?, ?, ?)`,
        [ID, 'old@example.test', 'Old Timer', '["staff"]', 'hash', '2025-01-01T00:00:00.000Z'],
      );
      const auth = new AuthStore(store.sql);
      await auth.setUp();
      // Twice: starting again on an upgraded database changes nothing.
      await auth.setUp();
      expect(await auth.managedUser(ID)).toEqual({
        id: ID,
        email: 'old@example.test',
        name: 'Old Timer',
        roles: ['staff'],
        createdAt: '2025-01-01T00:00:00.000Z',
        active: true,
        deactivatedAt: null,
      });
      expect(await auth.setDeactivated(ID, '2026-01-01T00:00:00.000Z')).toBe(true);
      expect(await auth.setDeactivated(ID, '2026-01-02T00:00:00.000Z')).toBe(false);
      expect(await auth.managedUser(ID)).toMatchObject({ active: false, deactivatedAt: '2026-01-01T00:00:00.000Z' });
      expect((await auth.userForSignIn('old@example.test'))?.active).toBe(false);
      expect(await auth.activeUserByEmail('old@example.test')).toBeUndefined();
    } finally {
      await store.close();
      await fresh.remove();
    }
  });

  it('keeps an account’s history, oldest first, and removes it with the account', async () => {
    const fresh = await db.fresh();
    const store = await openStore(fresh.options);
    try {
      const auth = new AuthStore(store.sql);
      await auth.setUp();
      await auth.addUser({
        id: ID,
        email: 'h@example.test',
        name: 'H',
        roles: [],
        passwordHash: 'x',
        createdAt: '2026-01-01T00:00:00.000Z',
      });
      const at = '2026-01-01T00:00:00.000Z';
      await auth.addAccountEvent({
        id: '0190f3c4-7a2b-7c3d-8e4f-000000000002',
        userId: ID,
        at,
        by: null,
        kind: 'deactivated',
      });
      await auth.addAccountEvent({
        id: '0190f3c4-7a2b-7c3d-8e4f-000000000001',
        userId: ID,
        at,
        by: ID,
        kind: 'created',
        how: 'sign-up',
        roles: [],
      });
      expect((await auth.accountHistory(ID)).map((e) => e.kind)).toEqual(['created', 'deactivated']);
      await auth.removeUser('h@example.test');
      expect(await auth.accountHistory(ID)).toEqual([]);
    } finally {
      await store.close();
      await fresh.remove();
    }
  });
});
