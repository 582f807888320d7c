import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, SQLITE_ONLY } from '../../test/databases.ts';
import { LENDING_DESK, modelOf, replaceOnce } from '../../test/helpers.ts';
import { userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

/**
 * The lending desk with a clerk who may create books but not stock them, and restock but not
 * retitle them; books have an optional summary, which clerks may not write either.
 */
const SOURCE = replaceOnce(
  replaceOnce(
    replaceOnce(LENDING_DESK, /\| copies +\|[^\n]*\|/, (row) => `${row}\n| summary | long text | optional |`),
    /\| member \| read +\| read own +\|/,
    (row) => `${row}\n| clerk | create (title, isbn), read, update (copies) | read |`,
  ),
  /\| POST +\| \/api\/books +\| Book +\| create Book +\|/,
  (row) => `${row}\n| PUT | /api/books/:id | Book | update Book |\n| PATCH | /api/books/:id | Book | update Book |`,
);

describe.each(SQLITE_ONLY)('fields a role may set, on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let clerk: string;
  let both: string;

  const call = async (authorization: string, method: string, url: string, body?: unknown) => {
    const answer = await server.app.inject({
      method: method as 'PUT',
      url,
      headers: { authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    return { status: answer.statusCode, body: answer.json() as Record<string, unknown> };
  };

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(SOURCE), ...fresh.options, logger: false });
    clerk = (await userWithToken(server, ['clerk'])).authorization;
    both = (await userWithToken(server, ['clerk', 'staff'])).authorization;
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('refuses a create that sets a field the role may not, and gives the field its default otherwise', async () => {
    const stocked = await call(clerk, 'POST', '/api/books', { title: 'Dune', isbn: '9780441013593', copies: 3 });
    expect(stocked).toMatchObject({
      status: 403,
      body: { code: 'FORBIDDEN', detail: 'Your roles may not set copies on a new Book.' },
    });
    const plain = await call(clerk, 'POST', '/api/books', { title: 'Dune', isbn: '9780441013593' });
    expect(plain).toMatchObject({ status: 201, body: { title: 'Dune', copies: 1 } });
    const asDefault = await call(clerk, 'POST', '/api/books', { title: 'Emma', isbn: '9780141439587', copies: 1 });
    expect(asDefault.status).toBe(201);
  });

  it('lets a user with several roles set what any of them may', async () => {
    const stocked = await call(both, 'POST', '/api/books', { title: 'Ulysses', isbn: '9780199535675', copies: 4 });
    expect(stocked).toMatchObject({ status: 201, body: { copies: 4 } });
  });

  it('refuses an update that changes a field the role may not, passes one that sends it unchanged, and keeps it on a PUT', async () => {
    const book = await call(both, 'POST', '/api/books', {
      title: 'Middlemarch',
      isbn: '9780141439549',
      summary: 'A study of provincial life.',
    });
    const path = `/api/books/${book.body.id}`;
    const retitled = await call(clerk, 'PATCH', path, { title: 'Middlemarch, abridged', copies: 2 });
    expect(retitled).toMatchObject({
      status: 403,
      body: { code: 'FORBIDDEN', detail: 'Your roles may not change title of this Book.' },
    });
    expect((await call(clerk, 'PATCH', path, { title: 'Middlemarch', copies: 2 })).status).toBe(200);
    // PUT's payload needs the required fields; the optional summary, which clerks may not write, is kept.
    const replaced = await call(clerk, 'PUT', path, { title: 'Middlemarch', isbn: '9780141439549', copies: 5 });
    expect(replaced).toMatchObject({
      status: 200,
      body: { title: 'Middlemarch', copies: 5, summary: 'A study of provincial life.' },
    });
    const cleared = await call(clerk, 'PUT', path, { title: 'Middlemarch', isbn: '9780141439549', summary: null });
    expect(cleared).toMatchObject({ status: 403, body: { detail: 'Your roles may not change summary of this Book.' } });
    // The required fields clerks may not change may be left out of their PUT too: they are kept.
    const bare = await call(clerk, 'PUT', path, { copies: 7 });
    expect(bare).toMatchObject({ status: 200, body: { title: 'Middlemarch', isbn: '9780141439549', copies: 7 } });
    const wrongType = await call(clerk, 'PUT', path, { copies: 'many' });
    expect(wrongType).toMatchObject({ status: 422, body: { errors: [{ field: 'copies' }] } });
    // Without clerk's limit, a PUT replaces the optional field too.
    const staffPut = await call(both, 'PUT', path, { title: 'Middlemarch', isbn: '9780141439549', copies: 5 });
    expect(staffPut).toMatchObject({ status: 200, body: { summary: null } });
  });
});
