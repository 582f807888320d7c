import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { LENDING_DESK, modelOf } from '../../test/helpers.ts';
import { userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from './server.ts';

describe.each(TEST_DATABASES)('the user directory on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let authorization: string;

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(LENDING_DESK), ...fresh.options, logger: false });
    ({ authorization } = await userWithToken(server, ['staff'], 'ada@example.test'));
    await userWithToken(server, ['member'], 'grace.hopper@example.test');
    await userWithToken(server, ['member'], 'linus_t@example.test');
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  const get = (url: string, headers: Record<string, string> = { authorization }) =>
    server.app.inject({ method: 'GET', url, headers });

  it('finds users by email or name for reference pickers, showing no password hash', async () => {
    const found = await get('/api/users?q=GRACE');
    expect(found.statusCode).toBe(200);
    const items = (found.json() as { items: Record<string, unknown>[] }).items;
    expect(items.map((u) => u.email)).toEqual(['grace.hopper@example.test']);
    expect(Object.keys(items[0] ?? {}).sort()).toEqual(['createdAt', 'email', 'id', 'name', 'roles']);
    expect((await get('/api/users?limit=2')).json()).toMatchObject({ items: [{}, {}] });
  });

  it('takes _ and % literally in q', async () => {
    const items = (await get('/api/users?q=_')).json() as { items: { email: string }[] };
    expect(items.items.map((u) => u.email)).toEqual(['linus_t@example.test']);
    expect(((await get('/api/users?q=%25')).json() as { items: unknown[] }).items).toEqual([]);
  });

  it('is only for those who may fill in a User field', async () => {
    // Members may only read their own loans: they never pick a borrower.
    const { authorization: member } = await userWithToken(server, ['member'], 'member@example.test');
    const answer = await get('/api/users', { authorization: member });
    expect(answer.statusCode).toBe(403);
    expect(answer.json()).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('answers users by id to any signed-in user, so records can show names', async () => {
    const { authorization: member, user } = await userWithToken(server, ['member'], 'reader@example.test');
    const items = (
      await get(`/api/users?id=${user.id.toUpperCase()}&id=${user.id}`, { authorization: member })
    ).json() as {
      items: { email: string }[];
    };
    expect(items.items.map((u) => u.email)).toEqual(['reader@example.test']);
    expect((await get('/api/users?id=nope', { authorization: member })).statusCode).toBe(400);
  });

  it('answers NOT_SIGNED_IN to visitors and INVALID_PAYLOAD to bad parameters', async () => {
    const visitor = await get('/api/users', {});
    expect(visitor.statusCode).toBe(401);
    expect(visitor.json()).toMatchObject({ code: 'NOT_SIGNED_IN' });
    for (const query of ['limit=0', 'limit=101', 'limit=x', 'sort=name', 'q=a&q=b']) {
      const answer = await get(`/api/users?${query}`);
      expect(answer.statusCode, query).toBe(400);
      expect(answer.json(), query).toMatchObject({ code: 'INVALID_PAYLOAD' });
    }
  });
});
