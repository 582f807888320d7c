import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { LENDING_DESK_DERIVED, modelOf } from '../../test/helpers.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

/**
 * Every refusal names where the spec writes what refused (`spec: { line, text }`), every call of
 * the OpenAPI document the line that declares it (`x-spec-line`), and every history entry of a
 * transition that transition's line: issue 28, "every refusal names its spec line".
 */
const SOURCE = readFileSync(new URL('../../../../examples/lending-desk.md', import.meta.url), 'utf8');
const LINES = SOURCE.split('\n');

/** The spec line (1-based) and its words, of the one line that starts with `start` (after trimming). */
function lineOf(start: string): { line: number; text: string } {
  const found = LINES.flatMap((text, i) => (text.trim().startsWith(start) ? [{ line: i + 1, text: text.trim() }] : []));
  if (found.length !== 1) throw new Error(`"${start}" starts ${found.length} lines of the spec.`);
  return found[0] as { line: number; text: string };
}

type Body = Record<string, unknown>;

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

// The lines come from the compiled model, but the refusals that carry them are made by each database's store.
describe.each(TEST_DATABASES)('spec lines in answers, on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let staff: string;
  let staffId: string;
  let member: { auth: string; id: string };
  let bookId: string;
  const call = callAs(() => server);
  const lend = (extra: Body = {}) =>
    call(staff, 'POST', '/api/loans', { book: bookId, borrower: member.id, due: inDays(7), ...extra });

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(SOURCE), ...fresh.options, logger: false });
    const desk = await userWithToken(server, ['staff']);
    staff = desk.authorization;
    staffId = desk.user.id;
    const m = await userWithToken(server, ['member']);
    member = { auth: m.authorization, id: m.user.id };
    const book = { title: 'Dune', author: 'Herbert, Frank', isbn: '9780441013593', copies: 3, shelf: 'FIC-1' };
    const created = await call(staff, 'POST', '/api/books', book);
    expect(created.status).toBe(201);
    bookId = String(created.body.id);
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('names the rule that refused, top-level and at its field', async () => {
    const early = await lend({ lent_on: inDays(3), due: inDays(2) });
    expect(early.status).toBe(422);
    const line = lineOf('| due after lending');
    expect(early.body).toMatchObject({ code: 'DUE_BEFORE_LENT', spec: line });
    expect(early.body.errors).toEqual([expect.objectContaining({ field: 'due', code: 'DUE_BEFORE_LENT', spec: line })]);
  });

  it('names each rule when rules of different lines refuse together, and none at the top', async () => {
    // Lent to someone without a card (NOT_A_MEMBER), due before it was lent (DUE_BEFORE_LENT).
    const both = await lend({ borrower: staffId, lent_on: inDays(3), due: inDays(2) });
    expect(both.body.code).toBe('VALIDATION_FAILED');
    expect(both.body.spec).toBeUndefined();
    expect(both.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'DUE_BEFORE_LENT', spec: lineOf('| due after lending') }),
        expect.objectContaining({ code: 'NOT_A_MEMBER', spec: lineOf('| members only') }),
      ]),
    );
  });

  it("names a field's row when its own rules refuse", async () => {
    const long = await call(staff, 'PATCH', `/api/books/${bookId}`, { title: 'x'.repeat(201) });
    expect(long.body.code).toBe('VALIDATION_FAILED');
    expect(long.body.errors).toEqual([expect.objectContaining({ field: 'title', spec: lineOf('| title   | text') })]);
  });

  it("names the permission cell of the caller's role, or anyone's for a visitor", async () => {
    const forbidden = await call(member.auth, 'POST', '/api/loans', {
      book: bookId,
      borrower: member.id,
      due: inDays(7),
    });
    expect(forbidden.body).toMatchObject({ code: 'FORBIDDEN', spec: lineOf('| member | read | read own') });
    const visitor = await server.app.inject({ method: 'GET', url: '/api/loans' });
    expect(visitor.json()).toMatchObject({ code: 'NOT_SIGNED_IN', spec: lineOf('| anyone | read') });
    // Managing people is point 6 too: the role's row (its people column) says who may.
    const promote = await call(member.auth, 'PATCH', `/api/users/${member.id}`, { roles: ['staff'] });
    expect(promote.body).toMatchObject({ code: 'FORBIDDEN', spec: lineOf('| member | read | read own') });
  });

  it("names the transition's row for a guard and a wrong state, and its history entries name it", async () => {
    const loan = await lend();
    expect(loan.status).toBe(201);
    const id = String(loan.body.id);
    expect((await call(staff, 'POST', `/api/loans/${id}/return`)).status).toBe(200);
    const again = await call(staff, 'POST', `/api/loans/${id}/return`);
    expect(again.body).toMatchObject({ code: 'TRANSITION_NOT_ALLOWED', spec: lineOf('| return ') });
    const history = await call(staff, 'GET', `/api/loans/${id}/history`);
    const entries = history.body.items as Body[];
    // The create is no transition's entry (`transition` null); the return's names its row.
    expect(entries.map((e) => [e.transition, (e.spec as Body | undefined)?.line])).toEqual([
      [null, undefined],
      ['return', lineOf('| return ').line],
    ]);

    const none = await call(staff, 'POST', '/api/books', {
      title: 'Gone',
      author: 'Nobody',
      isbn: '9780000000002',
      copies: 0,
      shelf: 'FIC-2',
    });
    const guarded = await lend({ book: none.body.id });
    expect(guarded.body).toMatchObject({ code: 'TRANSITION_NOT_ALLOWED', spec: lineOf('| lend ') });
  });

  it('names the limit that refused', async () => {
    const refused: Body[] = [];
    for (let i = 0; i < 6; i++) {
      const answer = await lend();
      if (answer.status !== 201) refused.push(answer.body);
    }
    expect(refused[0]).toMatchObject({ code: 'LOAN_LIMIT', spec: lineOf('| loan limit') });
  });

  it('names the line that declares each call in the OpenAPI document', async () => {
    const doc = (await server.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
      paths: Record<string, Record<string, Body>>;
    };
    expect(doc.paths['/api/loans']?.post?.['x-spec-line']).toEqual(lineOf('| POST   | /api/loans   '));
    // Every call of the spec (an entity's tag), and none of the runtime's own.
    const operations = Object.values(doc.paths).flatMap((p) => Object.values(p));
    const ofSpec = operations.filter((o) => (o.tags as string[]).some((t) => t === 'Book' || t === 'Loan'));
    expect(ofSpec.length).toBeGreaterThan(10);
    for (const operation of ofSpec) {
      const line = operation['x-spec-line'] as { line: number; text: string } | undefined;
      expect(line, String(operation.operationId)).toBeDefined();
      expect(LINES[(line?.line ?? 0) - 1]?.trim(), String(operation.operationId)).toBe(line?.text);
    }
    expect(doc.paths['/api/loans/{id}/return']?.post?.['x-spec-line']).toEqual(
      lineOf('| POST   | /api/loans/:id/return'),
    );
  });
});

describe('spec lines of calls the spec does not declare', () => {
  it('names for a summary call the line of the list it is served beside', async () => {
    // Calls derived from point 3: every list has a summary beside it.
    const server = await createServer({ model: modelOf(LENDING_DESK_DERIVED), dbPath: ':memory:', logger: false });
    try {
      const doc = (await server.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
        paths: Record<string, Record<string, Body>>;
      };
      const summaries = Object.entries(doc.paths).filter(([path]) => path.endsWith('/summary'));
      expect(summaries.length).toBeGreaterThan(0);
      for (const [path, operations] of summaries) {
        const list = doc.paths[path.slice(0, -'/summary'.length)]?.get?.['x-spec-line'];
        expect(list, path).toBeDefined();
        expect(operations.get?.['x-spec-line'], path).toEqual(list);
      }
    } finally {
      await server.close();
    }
  });
});
