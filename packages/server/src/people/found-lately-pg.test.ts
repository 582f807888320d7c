import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, TEST_DATABASES, TEST_POSTGRES_URL } from '../../test/databases.ts';
import { openStore } from '../store/open-store.ts';
import { identityChannelFor, MAX_NAMED_USERS } from '../store/postgres/pg-identity-watch.ts';
import { PgStore } from '../store/postgres/pg-store.ts';
import type { IdentityChange } from '../store/sql-runner.ts';
import { AuthStore } from './auth-store.ts';

const ID = '0190a3c4-0000-7000-8000-000000000001';
const user = {
  id: ID,
  email: 'kept@example.test',
  name: 'Kept',
  roles: ['staff'],
  createdAt: '2025-01-01T00:00:00.000Z',
};
const postgres = TEST_DATABASES.find((d) => d.name === 'postgres');
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Waits until `check` holds (a notification or a reconnection arrives a moment after its cause). */
async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * This server's store, watching the identity tables as `createServer` does, and another
 * process's (`ninepoint tokens revoke`, another server, bare SQL) on the same schema.
 */
async function twoConnections() {
  const fresh = await (postgres as NonNullable<typeof postgres>).fresh();
  cleanups.push(() => fresh.remove());
  const store = await openStore(fresh.options);
  if (!(store instanceof PgStore)) throw new Error('not PostgreSQL');
  cleanups.push(() => store.close());
  const auth = new AuthStore(store.sql);
  await auth.setUp();
  await auth.users.add({ ...user, passwordHash: 'hash' });
  await auth.tokens.create({ id: 'token-1', userId: ID, name: 'ci', hash: 'token-hash', now: 1000 });
  await auth.sessions.create('session-hash', ID, 1000, Date.now() + 3_600_000);
  await store.sql.watchIdentity(fresh.options.databaseUrl as string);
  const other = await openStore(fresh.options);
  cleanups.push(() => other.close());
  if (!(other instanceof PgStore)) throw new Error('not PostgreSQL');
  const elsewhere = new AuthStore(other.sql);
  // Statements the store sends on its pool: a lookup kept in memory sends none.
  let sent = 0;
  store.pool.on('acquire', () => sent++);
  return { store, auth, elsewhere, other, url: fresh.options.databaseUrl as string, sent: () => sent };
}

describe.skipIf(!POSTGRES_AVAILABLE)('a token or session found lately (PostgreSQL)', () => {
  it('is answered from memory, with no statement, while the server listens and nothing changed', async () => {
    const { auth, sent } = await twoConnections();
    const first = await auth.tokens.user('token-hash');
    expect(first).toEqual({ tokenId: 'token-1', user, lastUsedAt: null });
    const before = sent();
    expect(auth.tokens.user('token-hash')).toBe(first);
    expect(await auth.sessions.get('session-hash')).toMatchObject({ user });
    const afterSession = sent();
    expect(auth.sessions.get('session-hash')).toMatchObject({ user });
    expect(sent()).toBe(afterSession);
    expect(afterSession).toBe(before + 1);
  });

  it('sends one statement for calls of one token that come together, and none once it is kept', async () => {
    const { auth, sent } = await twoConnections();
    const before = sent();
    const answers = await Promise.all(Array.from({ length: 5 }, () => auth.tokens.user('token-hash')));
    expect(sent()).toBe(before + 1);
    for (const answer of answers) expect(answer).toEqual({ tokenId: 'token-1', user, lastUsedAt: null });
  });

  it('is refused by the very next lookup once revoked through this server’s own connection pool', async () => {
    const { auth } = await twoConnections();
    expect(await auth.tokens.user('token-hash')).toBeDefined();
    expect(await auth.tokens.revoke('token-1', 2000)).toBe(true);
    expect(await auth.tokens.user('token-hash')).toBeUndefined();
  });

  it('is refused by the next lookup once the notification of another connection’s revocation is heard', async () => {
    const { auth, elsewhere, store } = await twoConnections();
    expect(await auth.tokens.user('token-hash')).toBeDefined();
    const stamp = store.sql.changeStamp();
    expect(await elsewhere.tokens.revoke('token-1', 2000)).toBe(true);
    await eventually(() => store.sql.changeStamp() !== stamp);
    expect(await auth.tokens.user('token-hash')).toBeUndefined();
  });

  it('hears another process deactivate its user, a bare statement end its session, and a role change', async () => {
    const { auth, elsewhere, other, store } = await twoConnections();
    const heard = async (write: () => Promise<unknown>) => {
      const stamp = store.sql.changeStamp();
      await write();
      await eventually(() => store.sql.changeStamp() !== stamp);
    };
    expect(await auth.sessions.get('session-hash')).toBeDefined();
    await heard(() => other.pool.query(`DELETE FROM "_ninepoint_sessions" WHERE "id_hash" = 'session-hash'`));
    expect(await auth.sessions.get('session-hash')).toBeUndefined();
    expect(await auth.tokens.user('token-hash')).toMatchObject({ user: { roles: ['staff'] } });
    await heard(() => elsewhere.users.setRolesOf(ID, ['manager']));
    expect(await auth.tokens.user('token-hash')).toMatchObject({ user: { roles: ['manager'] } });
    await heard(() => elsewhere.setDeactivated(ID, '2026-01-01T00:00:00.000Z'));
    expect(await auth.tokens.user('token-hash')).toBeUndefined();
  });

  it('reads the row on every lookup when nobody listens (the terminal’s commands)', async () => {
    const { elsewhere, other } = await twoConnections();
    expect(other.sql.changeStamp()).toBeUndefined();
    const first = await elsewhere.tokens.user('token-hash');
    expect(first).toBeDefined();
    expect(await elsewhere.tokens.user('token-hash')).not.toBe(first);
  });

  it('hears a write made from another search path, by the table’s own schema', async () => {
    const { auth, store } = await twoConnections();
    const stamp = store.sql.changeStamp();
    const schema = (await store.pool.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s as string;
    expect(await auth.tokens.user('token-hash')).toBeDefined();
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    try {
      await admin.query(`UPDATE "${schema}"."_ninepoint_tokens" SET "revoked_at" = 3000 WHERE "id" = 'token-1'`);
    } finally {
      await admin.end();
    }
    await eventually(() => store.sql.changeStamp() !== stamp);
    expect(await auth.tokens.user('token-hash')).toBeUndefined();
  });

  it('keeps nothing while the listening connection is lost, and again once it listens', async () => {
    const { auth, store, other } = await twoConnections();
    expect(await auth.tokens.user('token-hash')).toBeDefined();
    const schema = (await store.pool.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s as string;
    // The listener's backend ended by the database (a restart, a failover, an administrator).
    const ended = await other.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query = $1`,
      [`LISTEN "${identityChannelFor(schema)}"`],
    );
    expect(ended.rowCount).toBe(1);
    // From the moment the loss is seen until it listens again, nothing is kept.
    await eventually(() => store.sql.changeStamp() === undefined);
    // Revoked while nobody listens: no notification reaches this server, and none is needed.
    await other.pool.query(`UPDATE "_ninepoint_tokens" SET "revoked_at" = 3000 WHERE "id" = 'token-1'`);
    expect(await auth.tokens.user('token-hash')).toBeUndefined();
    await other.pool.query(`UPDATE "_ninepoint_tokens" SET "revoked_at" = NULL WHERE "id" = 'token-1'`);
    await eventually(() => store.sql.changeStamp() !== undefined);
    const found = await auth.tokens.user('token-hash');
    expect(found).toBeDefined();
    expect(auth.tokens.user('token-hash')).toBe(found);
  });
});

/** The identity channel's notifications, heard on a connection of the test's own. */
async function identityNotifications(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  cleanups.push(() => client.end());
  const schema = (await client.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s as string;
  let count = 0;
  const payloads: string[] = [];
  client.on('notification', (message) => {
    count++;
    payloads.push(message.payload ?? '');
  });
  await client.query(`LISTEN "${identityChannelFor(schema)}"`);
  return {
    count: () => count,
    /** The payloads heard, as JSON, from the `from`th on. */
    payloads: (from = 0) => payloads.slice(from).map((payload) => JSON.parse(payload) as unknown),
    /** Whether a notification comes within a moment (one round trip on this connection drains what came). */
    async after(write: () => Promise<unknown>): Promise<number> {
      const before = count;
      await write();
      await new Promise((resolve) => setTimeout(resolve, 150));
      await client.query('SELECT 1');
      return count - before;
    },
  };
}

describe.skipIf(!POSTGRES_AVAILABLE)('the identity tables’ trigger (PostgreSQL)', () => {
  it('notifies nothing for a touch of a session or a token, and still for a revocation, a sign-out and a deactivation', async () => {
    const { auth, elsewhere, store, url } = await twoConnections();
    const heard = await identityNotifications(url);
    expect(await auth.tokens.user('token-hash')).toBeDefined();
    const found = await auth.sessions.get('session-hash');
    const stamp = store.sql.changeStamp();
    expect(await heard.after(() => elsewhere.sessions.touch('session-hash', Date.now()))).toBe(0);
    expect(await heard.after(() => elsewhere.tokens.touch('token-1', Date.now()))).toBe(0);
    // Another server's touch leaves this server's kept entries be.
    expect(store.sql.changeStamp()).toBe(stamp);
    expect(auth.sessions.get('session-hash')).toBe(found);
    expect(await heard.after(() => elsewhere.tokens.revoke('token-1', 2000))).toBeGreaterThan(0);
    expect(await heard.after(() => elsewhere.sessions.end('session-hash'))).toBeGreaterThan(0);
    expect(await heard.after(() => elsewhere.setDeactivated(ID, '2026-01-01T00:00:00.000Z'))).toBeGreaterThan(0);
    expect(await heard.after(() => elsewhere.users.setRolesOf(ID, ['manager']))).toBeGreaterThan(0);
  });

  it('replaces, at start, an older database’s trigger that notified every update, and once only', async () => {
    const { store, url } = await twoConnections();
    const heard = await identityNotifications(url);
    const trigger = async () =>
      (
        await store.pool.query<{ oid: number }>(
          `SELECT oid FROM pg_trigger
           WHERE tgname = '_ninepoint_sessions_identity_changed' AND tgrelid = '"_ninepoint_sessions"'::regclass`,
        )
      ).rows.map((row) => Number(row.oid));
    // As a server before the column lists made it.
    await store.pool.query(`DROP TRIGGER "_ninepoint_sessions_identity_changed" ON "_ninepoint_sessions"`);
    await store.pool.query(`CREATE TRIGGER "_ninepoint_sessions_identity_changed"
      AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "_ninepoint_sessions"
      FOR EACH STATEMENT EXECUTE FUNCTION "_ninepoint_identity_changed"()`);
    const touch = () =>
      store.pool.query(`UPDATE "_ninepoint_sessions" SET "last_seen_at" = 5 WHERE "id_hash" = 'session-hash'`);
    expect(await heard.after(touch)).toBe(1);
    const old = await trigger();
    await new AuthStore(store.sql).setUp();
    const replaced = await trigger();
    expect(replaced).toHaveLength(1);
    expect(replaced).not.toEqual(old);
    expect(await heard.after(touch)).toBe(0);
    expect(
      await heard.after(() =>
        store.pool.query(`UPDATE "_ninepoint_sessions" SET "expires_at" = 6 WHERE "id_hash" = 'session-hash'`),
      ),
    ).toBe(1);
    // A server starting again leaves the new trigger as it is.
    await new AuthStore(store.sql).setUp();
    expect(await trigger()).toEqual(replaced);
  });
});

describe.skipIf(!POSTGRES_AVAILABLE)('what the identity tables’ trigger tells (PostgreSQL)', () => {
  it('names the table and the users a bare statement wrote, and the table alone past the most it names', async () => {
    const { other, url } = await twoConnections();
    const heard = await identityNotifications(url);
    let from = heard.count();
    await heard.after(() =>
      other.pool.query(`UPDATE "_ninepoint_users" SET "deactivated_at" = 'x' WHERE "id" = $1`, [ID]),
    );
    expect(heard.payloads(from)).toEqual([{ t: '_ninepoint_users', u: [ID] }]);
    from = heard.count();
    await heard.after(() => other.pool.query(`DELETE FROM "_ninepoint_sessions" WHERE "user_id" = $1`, [ID]));
    expect(heard.payloads(from)).toEqual([{ t: '_ninepoint_sessions', u: [ID] }]);
    // An update of a token lists columns: PostgreSQL gives such a trigger no rows, so no users.
    from = heard.count();
    await heard.after(() =>
      other.pool.query(`UPDATE "_ninepoint_tokens" SET "revoked_at" = 5 WHERE "user_id" = $1`, [ID]),
    );
    expect(heard.payloads(from)).toEqual([{ t: '_ninepoint_tokens' }]);
    // One user more than a payload names (8,000 bytes at most): the table alone, "some users".
    await heard.after(() =>
      other.pool.query(
        `INSERT INTO "_ninepoint_users" ("id", "email", "name", "roles", "password_hash", "created_at")
       SELECT gen_random_uuid()::text, 'u' || n || '@example.test', 'U', '[]', 'h', 'now' FROM generate_series(1, $1::int) AS n`,
        [MAX_NAMED_USERS],
      ),
    );
    from = heard.count();
    await heard.after(() => other.pool.query(`UPDATE "_ninepoint_users" SET "roles" = '["staff"]'`));
    expect(heard.payloads(from)).toEqual([{ t: '_ninepoint_users' }]);
    from = heard.count();
    await heard.after(() =>
      other.pool.query(
        `UPDATE "_ninepoint_users" SET "roles" = '[]' WHERE "id" IN (SELECT "id" FROM "_ninepoint_users" LIMIT $1)`,
        [MAX_NAMED_USERS],
      ),
    );
    const [named] = heard.payloads(from) as { u: string[] }[];
    expect(named?.u).toHaveLength(MAX_NAMED_USERS);
  });

  it('says nothing of a statement that wrote no row, where the rows a statement wrote are known', async () => {
    const { other, url } = await twoConnections();
    const heard = await identityNotifications(url);
    expect(await heard.after(() => other.pool.query(`DELETE FROM "_ninepoint_sessions" WHERE "expires_at" < 0`))).toBe(
      0,
    );
    expect(await heard.after(() => other.pool.query(`UPDATE "_ninepoint_users" SET "name" = 'N' WHERE false`))).toBe(0);
    expect(
      await heard.after(() => other.pool.query(`UPDATE "_ninepoint_users" SET "name" = 'N' WHERE "id" = $1`, [ID])),
    ).toBe(1);
  });

  it('hands each write heard to the server’s listeners after the stamp moved, and “unknown” once it listens again after a loss', async () => {
    const { store, other } = await twoConnections();
    const heard: { change: IdentityChange; stamp: string | undefined }[] = [];
    const stop = store.sql.onIdentityChange((change) => heard.push({ change, stamp: store.sql.changeStamp() }));
    cleanups.push(async () => stop());
    const stamp = store.sql.changeStamp();
    await other.pool.query(`UPDATE "_ninepoint_users" SET "roles" = '[]' WHERE "id" = $1`, [ID]);
    await eventually(() => heard.length === 1);
    expect(heard[0]?.change).toEqual({ table: '_ninepoint_users', users: [ID] });
    expect(heard[0]?.stamp).not.toBe(stamp);
    expect(heard[0]?.stamp).not.toBeUndefined();
    const schema = (await store.pool.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s as string;
    await other.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query = $1`,
      [`LISTEN "${identityChannelFor(schema)}"`],
    );
    await eventually(() => heard.length === 2);
    expect(heard[1]?.change).toEqual({ table: null });
    expect(heard[1]?.stamp).not.toBeUndefined();
  });

  it('replaces, at start, an older database’s one users trigger for every event by one trigger an event, once only', async () => {
    const { store, url } = await twoConnections();
    const triggers = async () =>
      (
        await store.pool.query<{ name: string; oid: number; type: number }>(
          `SELECT tgname AS name, oid, tgtype AS type FROM pg_trigger
           WHERE tgrelid = '"_ninepoint_users"'::regclass AND tgname LIKE '%identity%' ORDER BY tgname`,
        )
      ).rows.map((row) => ({ ...row, oid: Number(row.oid) }));
    // As a server before the transition tables made it: one trigger, every event, no users named.
    for (const event of ['changed', 'inserted', 'deleted', 'truncated']) {
      await store.pool.query(`DROP TRIGGER IF EXISTS "_ninepoint_users_identity_${event}" ON "_ninepoint_users"`);
    }
    await store.pool.query(`CREATE TRIGGER "_ninepoint_users_identity_changed"
      AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "_ninepoint_users"
      FOR EACH STATEMENT EXECUTE FUNCTION "_ninepoint_identity_changed"()`);
    const heard = await identityNotifications(url);
    const rename = () => store.pool.query(`UPDATE "_ninepoint_users" SET "name" = 'M' WHERE "id" = $1`, [ID]);
    let from = heard.count();
    await heard.after(rename);
    expect(heard.payloads(from)).toEqual([{ t: '_ninepoint_users' }]);
    await new AuthStore(store.sql).setUp();
    const replaced = await triggers();
    expect(replaced.map(({ name, type }) => [name, type])).toEqual([
      ['_ninepoint_users_identity_changed', 16],
      ['_ninepoint_users_identity_deleted', 8],
      ['_ninepoint_users_identity_inserted', 4],
      ['_ninepoint_users_identity_truncated', 32],
    ]);
    from = heard.count();
    await heard.after(rename);
    expect(heard.payloads(from)).toEqual([{ t: '_ninepoint_users', u: [ID] }]);
    await new AuthStore(store.sql).setUp();
    expect(await triggers()).toEqual(replaced);
  });
});
