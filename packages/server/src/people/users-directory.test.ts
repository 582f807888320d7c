import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { LENDING_DESK, modelOf } from '../../test/helpers.ts';
import { userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

type Entry = Record<string, unknown>;

// On PostgreSQL too: the directory's search and paging are SQL on the users table, read by each database its own way.
describe.each(TEST_DATABASES)('the user directory on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let authorization: string;
  let staffId: string;
  let grace: { id: string; name: string };

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(LENDING_DESK), ...fresh.options, logger: false });
    let staff: { id: string };
    ({ authorization, user: staff } = await userWithToken(server, ['staff'], 'ada@example.test'));
    staffId = staff.id;
    const { user } = await userWithToken(server, ['member'], 'grace.hopper@example.test');
    grace = { id: user.id, name: user.name };
    await userWithToken(server, ['member'], 'linus_t@example.test');
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  const get = (url: string, headers: Record<string, string> = { authorization }) =>
    server.app.inject({ method: 'GET', url, headers });
  const items = async (url: string, headers?: Record<string, string>) =>
    ((await get(url, headers)).json() as { items: Entry[] }).items;

  it('finds users by name for reference pickers, showing only their id and name', async () => {
    const found = await get('/api/users?q=GRACE');
    expect(found.statusCode).toBe(200);
    expect((found.json() as { items: Entry[] }).items).toEqual([grace]);
    expect((await get('/api/users?limit=2')).json()).toMatchObject({ items: [{}, {}] });
  });

  it('does not search emails, which it does not show', async () => {
    // The names are the emails' local parts: only the domain is in no name.
    expect(await items('/api/users?q=example.test')).toEqual([]);
  });

  it('shows the caller their own email and roles, and nobody else’s', async () => {
    const all = await items('/api/users?limit=100');
    expect(all.length).toBeGreaterThanOrEqual(3);
    for (const entry of all) {
      if (entry.id === staffId) expect(entry).toMatchObject({ email: 'ada@example.test', roles: ['staff'] });
      else expect(Object.keys(entry).sort()).toEqual(['id', 'name']);
    }
  });

  it('takes _ and % literally in q', async () => {
    expect((await items('/api/users?q=_')).map((u) => u.name)).toEqual(['linus_t']);
    expect(await items('/api/users?q=%25')).toEqual([]);
  });

  it('is only for those who may fill in a User field', async () => {
    // Members may only read their own loans: they never pick a borrower.
    const { authorization: member } = await userWithToken(server, ['member'], 'member@example.test');
    const answer = await get('/api/users', { authorization: member });
    expect(answer.statusCode).toBe(403);
    expect(answer.json()).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('answers users by id with no email or roles but the caller’s own, and names to a non-picker only whom their records show', async () => {
    const { authorization: member, user } = await userWithToken(server, ['member'], 'reader@example.test');
    const own = await items(`/api/users?id=${user.id.toUpperCase()}&id=${user.id}`, { authorization: member });
    expect(own).toEqual([expect.objectContaining({ id: user.id, email: 'reader@example.test', roles: ['member'] })]);
    // A member picks nobody, and no loan of theirs names Grace or Ada: their ids name nobody to them.
    expect(await items(`/api/users?id=${grace.id}&id=${staffId}`, { authorization: member })).toEqual([]);
    // Staff may pick users (a loan's borrower): they could find anyone by name, so ids name anyone.
    const others = await items(`/api/users?id=${grace.id}&id=${staffId}`);
    expect(others).toEqual([expect.objectContaining({ id: staffId, name: 'ada' }), grace]);
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
