import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { LENDING_DESK, modelOf } from '../../test/helpers.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import { SAVED_VIEW_LIMITS } from './saved-views-api.ts';
import { SAVED_VIEWS_TABLE, SHARED_VIEWS_TABLE } from './saved-views-store.ts';

type Json = Record<string, unknown>;
const SCHEMA = 'the body does not match its schema';

// On PostgreSQL too: the only suite of the saved-views store, whose upsert is SQL each database runs.
describe.each(TEST_DATABASES)('saved list views on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let ada: string;
  let bob: string;
  const call = callAs(() => server);
  const names = async (who: string, screen = '/books') => {
    const answer = await call(who, 'GET', `/api/views?screen=${encodeURIComponent(screen)}`);
    expect(answer.status).toBe(200);
    return (answer.body.items as Json[]).filter((v) => v.role === null).map((v) => `${v.name}: ${v.query}`);
  };

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(LENDING_DESK), ...fresh.options, logger: false });
    ada = (await userWithToken(server, ['staff'])).authorization;
    bob = (await userWithToken(server, ['staff'])).authorization;
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('saves a view by name for its user, lists them by name, and replaces one saved again under its name', async () => {
    const first = await call(ada, 'POST', '/api/views', {
      screen: '/books',
      name: 'Many copies',
      query: '?filter[copies][from]=3&sort=-copies',
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      screen: '/books',
      name: 'Many copies',
      query: 'filter[copies][from]=3&sort=-copies',
    });
    expect(String(first.body.savedAt)).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(
      (await call(ada, 'POST', '/api/views', { screen: '/books', name: '  All   dune ', query: 'q=dune' })).status,
    ).toBe(201);
    expect(await names(ada)).toEqual(['All dune: q=dune', 'Many copies: filter[copies][from]=3&sort=-copies']);

    const again = await call(ada, 'POST', '/api/views', {
      screen: '/books',
      name: 'Many copies',
      query: 'filter[copies][from]=5',
    });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(await names(ada)).toEqual(['All dune: q=dune', 'Many copies: filter[copies][from]=5']);
    // Views are per screen.
    expect(await names(ada, '/my/loans')).toEqual([]);
  });

  it('shows and deletes a user’s own views only', async () => {
    const saved = await call(ada, 'POST', '/api/views', { screen: '/books', name: 'Mine', query: 'sort=title' });
    expect(await names(bob)).toEqual([]);
    const taken = await call(bob, 'DELETE', `/api/views/${saved.body.id}`);
    expect(taken.status).toBe(404);
    expect(taken.body.code).toBe('NOT_FOUND');
    // Bob's view of the same name is his own, beside Ada's.
    expect((await call(bob, 'POST', '/api/views', { screen: '/books', name: 'Mine', query: 'sort=isbn' })).status).toBe(
      201,
    );
    expect(await names(bob)).toEqual(['Mine: sort=isbn']);
    expect(await names(ada)).toContain('Mine: sort=title');

    expect((await call(ada, 'DELETE', `/api/views/${saved.body.id}`)).status).toBe(204);
    expect(await names(ada)).not.toContain('Mine: sort=title');
    expect((await call(ada, 'DELETE', `/api/views/${saved.body.id}`)).status).toBe(404);
    expect((await call(ada, 'DELETE', '/api/views/not-an-id')).status).toBe(404);
  });

  it('shares a view with a role: its members see it beside their own, only they may replace or delete it', async () => {
    const member = (await userWithToken(server, ['member'])).authorization;
    const other = (await userWithToken(server, ['member'])).authorization;
    const shared = await call(member, 'POST', '/api/views', {
      screen: '/books',
      name: 'Paperbacks',
      query: 'filter[title][contains]=a',
      role: 'member',
    });
    expect(shared.status, JSON.stringify(shared.body)).toBe(201);
    expect(shared.body).toMatchObject({ role: 'member', mayChange: true });
    const items = async (who: string) =>
      ((await call(who, 'GET', '/api/views?screen=/books')).body.items as Json[]).map(
        (v) => `${v.name} ${v.role ?? 'own'} ${v.mayChange}`,
      );
    // Every member sees it; a staff member holds no member role and manages no people.
    expect(await items(other)).toEqual(['Paperbacks member true']);
    expect(await items(ada)).not.toContain('Paperbacks member true');
    // Staff may not share with members, nor with a role that cannot open the screen.
    const forbidden = await call(ada, 'POST', '/api/views', { screen: '/books', name: 'x', query: '', role: 'member' });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('FORBIDDEN');
    const blind = await call(member, 'POST', '/api/views', {
      screen: '/my/loans',
      name: 'x',
      query: '',
      role: 'staff',
    });
    expect(blind.status).toBe(400);
    expect(
      (await call(member, 'POST', '/api/views', { screen: '/books', name: 'x', query: '', role: 'admiral' })).body
        .detail,
    ).toContain("role must be one of the app's roles");
    // The same name again replaces it for the role; a personal view of that name is another view.
    const again = await call(other, 'POST', '/api/views', {
      screen: '/books',
      name: 'Paperbacks',
      query: 'q=b',
      role: 'member',
    });
    expect([again.status, again.body.id]).toEqual([200, shared.body.id]);
    // A staff member cannot see it, so cannot delete it; a member can.
    expect((await call(ada, 'DELETE', `/api/views/${shared.body.id}`)).status).toBe(404);
    expect((await call(member, 'DELETE', `/api/views/${shared.body.id}`)).status).toBe(204);
    expect(await items(other)).toEqual([]);
  });

  it('keeps a role’s shared views of a screen within the limit, asking for room in one query before the save', async () => {
    const member = (await userWithToken(server, ['member'])).authorization;
    const share = (name: string, query = '') =>
      call(member, 'POST', '/api/views', { screen: '/books', name, query, role: 'member' });
    for (let n = 0; n < SAVED_VIEW_LIMITS.perScreen; n++) expect((await share(`s${n}`)).status).toBe(201);
    const statements: string[] = [];
    const sql = server.store.sql;
    const original = sql.all.bind(sql);
    const all = vi.spyOn(sql, 'all').mockImplementation(((text: string, params?: readonly unknown[]) => {
      if (text.includes(SHARED_VIEWS_TABLE)) statements.push(text.trim().split(/\s+/)[0] ?? '');
      return original(text, params);
    }) as typeof sql.all);
    try {
      const over = await share('one more');
      expect(over.status).toBe(400);
      expect(String(over.body.detail)).toContain(`at most ${SAVED_VIEW_LIMITS.perScreen} views may be shared`);
      expect(statements).toEqual(['SELECT']);
      statements.length = 0;
      // Replacing one at the limit is not one more: the room query, then the save.
      expect((await share('s0', 'q=a')).status).toBe(200);
      expect(statements).toEqual(['SELECT', 'INSERT']);
    } finally {
      all.mockRestore();
    }
  });

  it('deletes a user’s views with the user', async () => {
    const dora = await userWithToken(server, ['staff']);
    expect(
      (await call(dora.authorization, 'POST', '/api/views', { screen: '/books', name: 'x', query: '' })).status,
    ).toBe(201);
    const count = async () =>
      Number(
        (
          await server.store.sql.all<{ n: number | string }>(
            `SELECT count(*) AS "n" FROM "${SAVED_VIEWS_TABLE}" WHERE "user_id" = ?`,
            [dora.user.id],
          )
        )[0]?.n,
      );
    expect(await count()).toBe(1);
    expect(await server.auth.removeUser(dora.user.email)).toBe(true);
    expect(await count()).toBe(0);
  });

  it('keeps views for signed-in users of list screens only, within bounds', async () => {
    const visitor = await server.app.inject({ method: 'GET', url: '/api/views?screen=/books' });
    expect(visitor.statusCode).toBe(401);
    const refused = async (body: unknown, detail: string) => {
      const answer = await call(ada, 'POST', '/api/views', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(String(answer.body.detail)).toContain(detail);
    };
    await refused({ screen: '/nowhere', name: 'x', query: '' }, 'screen must be the route of a list screen');
    // A board is not a list.
    await refused({ screen: '/loans', name: 'x', query: '' }, 'screen must be the route of a list screen');
    await refused({ screen: '/books', name: ' \t ', query: '' }, 'name must be words');
    await refused({ screen: '/books', name: 'a\u0007b', query: '' }, 'name must be words');
    await refused({ screen: '/books', name: 'x'.repeat(SAVED_VIEW_LIMITS.name + 1), query: '' }, SCHEMA);
    await refused({ screen: '/books', name: 'x', query: 'q'.repeat(SAVED_VIEW_LIMITS.query + 1) }, SCHEMA);
    await refused({ screen: '/books', name: 'x', query: '', owner: 'bob' }, SCHEMA);
    expect((await call(ada, 'GET', '/api/views')).status).toBe(400);
    expect((await call(ada, 'GET', '/api/views?screen=/books&user=x')).status).toBe(400);

    const carol = (await userWithToken(server, ['staff'])).authorization;
    for (let n = 0; n < SAVED_VIEW_LIMITS.perScreen; n++) {
      expect((await call(carol, 'POST', '/api/views', { screen: '/books', name: `v${n}`, query: '' })).status).toBe(
        201,
      );
    }
    const over = await call(carol, 'POST', '/api/views', { screen: '/books', name: 'one more', query: '' });
    expect(over.status).toBe(400);
    expect(String(over.body.detail)).toContain(`at most ${SAVED_VIEW_LIMITS.perScreen} views`);
    // Replacing one is not one more.
    expect((await call(carol, 'POST', '/api/views', { screen: '/books', name: 'v0', query: 'q=a' })).status).toBe(200);
  });
});
