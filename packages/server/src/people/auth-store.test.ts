import { describe, expect, it } from 'vitest';
import { SQLITE_ONLY, TEST_DATABASES, type TestDatabase } from '../../test/databases.ts';
import { openStore } from '../store/open-store.ts';
import { SqliteStore } from '../store/sqlite/sqlite-store.ts';
import type { Store } from '../store/store.ts';
import { USERS_TABLE } from '../store/users-table.ts';
import { AuthStore } from './auth-store.ts';

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

/** A fresh database of `db` with the runtime's tables set up, closed and removed after `work`. */
async function withAuth(db: TestDatabase, work: (auth: AuthStore, store: Store) => Promise<void>): Promise<void> {
  const fresh = await db.fresh();
  const store = await openStore(fresh.options);
  try {
    const auth = new AuthStore(store.sql);
    await auth.setUp();
    await work(auth, store);
  } finally {
    await store.close();
    await fresh.remove();
  }
}

// On PostgreSQL too: the runtime's tables are created and queried with each database's own SQL.
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
      expect(await auth.users.managed(ID)).toEqual({
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
      expect(await auth.users.managed(ID)).toMatchObject({ active: false, deactivatedAt: '2026-01-01T00:00:00.000Z' });
      expect((await auth.users.forSignIn('old@example.test'))?.active).toBe(false);
      expect(await auth.users.activeByEmail('old@example.test')).toBeUndefined();
    } finally {
      await store.close();
      await fresh.remove();
    }
  });

  it('adds a passkey and answers it as kept, without reading it back; a second of the same credential id is refused', async () => {
    await withAuth(db, async (auth) => {
      await auth.users.add({
        id: ID,
        email: 'keys@example.test',
        name: 'Keys',
        roles: [],
        createdAt: '2025-01-01T00:00:00.000Z',
        passwordHash: 'hash',
      });
      const passkey = {
        id: 'credential-1',
        userId: ID,
        publicKey: 'cHVibGlj',
        counter: 7,
        transports: ['internal', 'hybrid'],
        name: 'Laptop',
        createdAt: 1000,
      };
      const added = await auth.passkeys.add(passkey);
      expect(added).toEqual({ ...passkey, lastUsedAt: null });
      // What it answered is what a read finds.
      expect(await auth.passkeys.byId('credential-1')).toEqual(added);
      expect(await auth.passkeys.add({ ...passkey, name: 'Again' })).toBeNull();
      expect((await auth.passkeys.byId('credential-1'))?.name).toBe('Laptop');
    });
  });

  it('finds a token’s or session’s user in one lookup, only while the token is unrevoked and the user active and present', async () => {
    await withAuth(db, async (auth, store) => {
      const user = {
        id: ID,
        email: 'lookup@example.test',
        name: 'Look Up',
        roles: ['staff'],
        createdAt: '2025-01-01T00:00:00.000Z',
      };
      await auth.users.add({ ...user, passwordHash: 'hash' });
      await auth.tokens.create({ id: 'token-1', userId: ID, name: 'ci', hash: 'token-hash', now: 1000 });
      await auth.sessions.create('session-hash', ID, 1000, 9000);
      expect(await auth.tokens.user('token-hash')).toEqual({ tokenId: 'token-1', user, lastUsedAt: null });
      expect(await auth.sessions.get('session-hash')).toEqual({
        user,
        createdAt: 1000,
        lastSeenAt: 1000,
        expiresAt: 9000,
        passkey: false,
      });
      await auth.sessions.create('passkey-session-hash', ID, 1000, 9000, 'passkey');
      expect((await auth.sessions.get('passkey-session-hash'))?.passkey).toBe(true);
      // A passkey challenge is taken once, and not after it expired.
      await auth.passkeys.addChallenge('challenge-hash', 'sign-in', null, 'abc', 1000, 2000);
      expect(await auth.passkeys.takeChallenge('challenge-hash', 'register', 1500)).toBeUndefined();
      expect(await auth.passkeys.takeChallenge('challenge-hash', 'sign-in', 1500)).toEqual({
        userId: null,
        challenge: 'abc',
      });
      expect(await auth.passkeys.takeChallenge('challenge-hash', 'sign-in', 1500)).toBeUndefined();
      await auth.passkeys.addChallenge('late-hash', 'sign-in', null, 'abc', 1000, 2000);
      expect(await auth.passkeys.takeChallenge('late-hash', 'sign-in', 2000)).toBeUndefined();
      expect(await auth.tokens.user('other-hash')).toBeUndefined();
      expect(await auth.sessions.get('other-hash')).toBeUndefined();
      // SQLite answers at once: the lookup every call makes costs no promise there.
      if (db.name === 'sqlite') expect(auth.tokens.user('token-hash')).not.toBeInstanceOf(Promise);

      await auth.tokens.touch('token-1', 2000);
      expect((await auth.tokens.user('token-hash'))?.lastUsedAt).toBe(2000);
      await auth.setDeactivated(ID, '2026-01-01T00:00:00.000Z');
      expect(await auth.tokens.user('token-hash')).toBeUndefined();
      await auth.setDeactivated(ID, null);
      expect((await auth.tokens.user('token-hash'))?.user).toEqual(user);
      await auth.tokens.revoke('token-1', 3000);
      expect(await auth.tokens.user('token-hash')).toBeUndefined();

      // A user row deleted on its own (cascading, or not where foreign keys are off) leaves no way in.
      await auth.tokens.create({ id: 'token-2', userId: ID, name: 'ci', hash: 'token-hash-2', now: 1000 });
      await auth.sessions.create('session-hash-2', ID, 1000, 9000);
      await store.sql.run(`DELETE FROM "${USERS_TABLE}" WHERE "id" = ?`, [ID]);
      expect(await auth.tokens.user('token-hash-2')).toBeUndefined();
      expect(await auth.sessions.get('session-hash-2')).toBeUndefined();
    });
  });

  it('keeps an account’s history, oldest first, and removes it with the account', async () => {
    await withAuth(db, async (auth) => {
      await auth.users.add({
        id: ID,
        email: 'h@example.test',
        name: 'H',
        roles: [],
        passwordHash: 'x',
        createdAt: '2026-01-01T00:00:00.000Z',
      });
      const at = '2026-01-01T00:00:00.000Z';
      await auth.users.addEvent({
        id: '0190f3c4-7a2b-7c3d-8e4f-000000000002',
        userId: ID,
        at,
        by: null,
        kind: 'deactivated',
      });
      await auth.users.addEvent({
        id: '0190f3c4-7a2b-7c3d-8e4f-000000000001',
        userId: ID,
        at,
        by: ID,
        kind: 'created',
        how: 'sign-up',
        roles: [],
      });
      expect((await auth.users.history(ID)).map((e) => e.kind)).toEqual(['created', 'deactivated']);
      await auth.removeUser('h@example.test');
      expect(await auth.users.history(ID)).toEqual([]);
    });
  });
});

describe('a token or session found lately (SQLite)', () => {
  const user = {
    id: ID,
    email: 'kept@example.test',
    name: 'Kept',
    roles: ['staff'],
    createdAt: '2025-01-01T00:00:00.000Z',
  };

  /** Two connections to one file: this server's, and another process's (the `ninepoint` CLI). */
  async function twoConnections() {
    const fresh = await (SQLITE_ONLY[0] as (typeof SQLITE_ONLY)[number]).fresh();
    const store = await openStore(fresh.options);
    const auth = new AuthStore(store.sql);
    await auth.setUp();
    await auth.users.add({ ...user, passwordHash: 'hash' });
    await auth.tokens.create({ id: 'token-1', userId: ID, name: 'ci', hash: 'token-hash', now: 1000 });
    await auth.sessions.create('session-hash', ID, 1000, 9000);
    const other = await openStore(fresh.options);
    const elsewhere = new AuthStore(other.sql);
    return {
      store,
      auth,
      elsewhere,
      close: async () => {
        await other.close();
        await store.close();
        await fresh.remove();
      },
    };
  }

  it('is answered from memory while nothing in the database changed', async () => {
    const { auth, close } = await twoConnections();
    try {
      const first = auth.tokens.user('token-hash');
      expect(first).toEqual({ tokenId: 'token-1', user, lastUsedAt: null });
      expect(auth.tokens.user('token-hash')).toBe(first);
    } finally {
      await close();
    }
  });

  it('is refused by the very next lookup once revoked in another process', async () => {
    const { auth, elsewhere, close } = await twoConnections();
    try {
      expect(auth.tokens.user('token-hash')).toBeDefined();
      expect(await elsewhere.tokens.revoke('token-1', 2000)).toBe(true);
      expect(auth.tokens.user('token-hash')).toBeUndefined();
    } finally {
      await close();
    }
  });

  it('for a request, reads another process’s commits once per turn of the event loop: the next turn’s request is refused', async () => {
    const { auth, elsewhere, close } = await twoConnections();
    try {
      expect(auth.tokens.user('token-hash', true)).toBeDefined();
      expect(await elsewhere.tokens.revoke('token-1', 2000)).toBe(true);
      // The same turn: a request that arrived with the first, before the commit.
      expect(auth.tokens.user('token-hash', true)).toBeDefined();
      await new Promise(setImmediate);
      expect(auth.tokens.user('token-hash', true)).toBeUndefined();
    } finally {
      await close();
    }
  });

  it('reads another process’s commits at once for a lookup that is not a request’s (a timer’s)', async () => {
    const { auth, elsewhere, close } = await twoConnections();
    try {
      expect(auth.tokens.user('token-hash', true)).toBeDefined();
      expect(await elsewhere.tokens.revoke('token-1', 2000)).toBe(true);
      expect(auth.tokens.user('token-hash')).toBeUndefined();
    } finally {
      await close();
    }
  });

  it('is refused at once when its user is deactivated in another process, and takes up new roles at once', async () => {
    const { auth, elsewhere, close } = await twoConnections();
    try {
      expect(auth.tokens.user('token-hash')).toBeDefined();
      expect(await elsewhere.users.setRolesOf(ID, ['manager'])).toBeTruthy();
      expect(await auth.tokens.user('token-hash')).toMatchObject({ user: { roles: ['manager'] } });
      expect(await elsewhere.setDeactivated(ID, '2026-01-01T00:00:00.000Z')).toBe(true);
      expect(auth.tokens.user('token-hash')).toBeUndefined();
    } finally {
      await close();
    }
  });

  it('is refused at once after a write on the server’s own connection, by any path', async () => {
    const { store, auth, close } = await twoConnections();
    try {
      expect(auth.tokens.user('token-hash')).toBeDefined();
      expect(await auth.setDeactivated(ID, '2026-01-01T00:00:00.000Z')).toBe(true);
      expect(auth.tokens.user('token-hash')).toBeUndefined();
      expect(await auth.setDeactivated(ID, null)).toBe(true);
      expect(auth.tokens.user('token-hash')).toBeDefined();
      // Not through the stores at all: a statement on the connection itself (a migration's, say).
      if (!(store instanceof SqliteStore)) throw new Error('expected SQLite');
      store.db.prepare(`UPDATE "_ninepoint_tokens" SET "revoked_at" = 1 WHERE "id" = 'token-1'`).run();
      expect(auth.tokens.user('token-hash')).toBeUndefined();
    } finally {
      await close();
    }
  });

  it('a session is ended at once by a sign-out here or a deactivation in another process', async () => {
    const { auth, elsewhere, close } = await twoConnections();
    try {
      const first = auth.sessions.get('session-hash');
      expect(first).toMatchObject({ user, expiresAt: 9000 });
      expect(auth.sessions.get('session-hash')).toBe(first);
      await auth.sessions.touch('session-hash', 5000);
      expect(auth.sessions.get('session-hash')).toMatchObject({ lastSeenAt: 5000 });
      await auth.sessions.end('session-hash');
      expect(auth.sessions.get('session-hash')).toBeUndefined();
      await auth.sessions.create('session-2', ID, 6000, 9000);
      expect(auth.sessions.get('session-2')).toBeDefined();
      // The account only (its sessions' rows stay): the session is refused for its user's sake.
      expect(await elsewhere.users.setDeactivated(ID, '2026-01-01T00:00:00.000Z')).toBe(true);
      expect(auth.sessions.get('session-2')).toBeUndefined();
    } finally {
      await close();
    }
  });
});
