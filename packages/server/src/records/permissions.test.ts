import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, SQLITE_ONLY } from '../../test/databases.ts';
import { LENDING_DESK, modelOf } from '../../test/helpers.ts';
import { userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

/**
 * What a write reveals to someone who may not read its record: nothing. The permission check runs
 * first in the transaction, before "nothing changed", the version and the references.
 */
describe.each(SQLITE_ONLY)('writes to records the actor may not read, on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let staff: string;
  let stranger: string;
  let loanPath: string;

  const call = async (authorization: string, method: string, url: string, body?: unknown, headers = {}) => {
    const answer = await server.app.inject({
      method: method as 'PATCH',
      url,
      headers: { authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    return { status: answer.statusCode, body: answer.json() as Record<string, unknown> };
  };

  beforeAll(async () => {
    fresh = await db.fresh();
    // The fixture's loan routes are declared: return only. Derive the REST set for this test.
    const source = LENDING_DESK.replace(
      /## 7\. The calls it makes\n[\s\S]*?(?=\n## 8\.)/,
      '## 7. The calls it makes\nNot shown.\n',
    );
    server = await createServer({ model: modelOf(source), ...fresh.options, logger: false });
    staff = (await userWithToken(server, ['staff'])).authorization;
    const borrower = await userWithToken(server, ['member']);
    stranger = (await userWithToken(server, ['member'])).authorization;
    const book = await call(staff, 'POST', '/api/books', { title: 'Dune', isbn: '9780441013593', copies: 2 });
    const due = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
    const loan = await call(staff, 'POST', '/api/loans', { book: book.body.id, borrower: borrower.user.id, due });
    expect(loan.status).toBe(201);
    loanPath = `/api/loans/${loan.body.id}`;
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('answers NOT_FOUND to an update that changes nothing, not the record', async () => {
    const answer = await call(stranger, 'PATCH', loanPath, {});
    expect(answer.status).toBe(404);
    expect(answer.body).not.toHaveProperty('borrower');
  });

  it('answers NOT_FOUND to a stale If-Match, not CONFLICT', async () => {
    const answer = await call(stranger, 'PATCH', loanPath, { due: '2031-01-01' }, { 'if-match': '"99"' });
    expect(answer.status).toBe(404);
  });

  it('answers NOT_FOUND before looking at the references the payload names', async () => {
    const answer = await call(stranger, 'PATCH', loanPath, { book: '0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f' });
    expect(answer.status).toBe(404);
    expect((await call(staff, 'GET', loanPath)).body.book).not.toBe('0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f');
  });

  it('answers NOT_FOUND to a transition and a delete as well', async () => {
    expect((await call(stranger, 'POST', `${loanPath}/return`)).status).toBe(404);
    expect((await call(stranger, 'DELETE', loanPath)).status).toBe(404);
    expect((await call(staff, 'GET', loanPath)).body.state).toBe('out');
  });
});
