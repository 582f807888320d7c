import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, TEST_DATABASES, type TestDatabase } from '../../test/databases.ts';
import { LENDING_DESK_DERIVED, modelOf, replaceOnce } from '../../test/helpers.ts';
import { knownUser, userWithToken } from '../../test/users.ts';
import { createServer } from '../app/server.ts';

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  body: Json;
}

const BORROWER = '0190f3c4-7a2b-7c3d-8e4f-000000000001';
const EXAMPLE = readFileSync(new URL('../../../../examples/lending-desk.md', import.meta.url), 'utf8');

/** An ISO date `days` from today (UTC). */
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

async function start(db: TestDatabase, source: string) {
  const temp = await db.fresh();
  const server = await createServer({ model: modelOf(source), ...temp.options, logger: false });
  const { authorization } = await userWithToken(server);
  // Every borrower the tests name is a member.
  for (const suffix of [
    '000001',
    '0000a1',
    '0000a2',
    '0000a3',
    '0000a4',
    '0000b1',
    '0000c1',
    '0000c2',
    '0000d1',
    '0000e1',
    '0000f1',
    '0000f2',
  ]) {
    await knownUser(server, `0190f3c4-7a2b-7c3d-8e4f-000000${suffix}`, ['member']);
  }
  const call = async (method: string, url: string, body?: unknown): Promise<Answer> => {
    const response = await server.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    if (response.statusCode >= 400) {
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    }
    return { status: response.statusCode, body: response.body === '' ? {} : (response.json() as Json) };
  };
  /** Writes a column behind the API's back: a loan that fell due while nobody looked. */
  const backdate = (table: string, id: string, due: string) =>
    execute(server.store, `UPDATE "${table}" SET "due" = ? WHERE "id" = ?`, [due, id]);
  const stop = async () => {
    await server.close();
    await temp.remove();
  };
  return { server, call, backdate, stop, authorization };
}

let isbnCounter = 0;
const isbn = () => `978${String(++isbnCounter).padStart(10, '0')}`;

describe.each(TEST_DATABASES)('on $name', (db) => {
  describe('rules, guards, limits and transitions on the lending desk sketch', () => {
    let desk: Awaited<ReturnType<typeof start>>;
    let call: (typeof desk)['call'];
    let bookId: string;

    beforeAll(async () => {
      desk = await start(db, LENDING_DESK_DERIVED);
      call = desk.call;
      const book = await call('POST', '/api/books', { title: 'Dune', isbn: isbn(), copies: 3 });
      expect(book.status).toBe(201);
      bookId = String(book.body.id);
    });
    afterAll(() => desk.stop());

    const lend = (borrower = BORROWER, book = bookId, due = inDays(14)) =>
      call('POST', '/api/loans', { book, borrower, due });

    it('creates a loan in the start state, with a history entry that enters it', async () => {
      const loan = await lend('0190f3c4-7a2b-7c3d-8e4f-0000000000a1');
      expect(loan.status).toBe(201);
      expect(loan.body.state).toBe('out');
      const history = await call('GET', `/api/loans/${loan.body.id}/history`);
      expect(history.body.items).toMatchObject([{ action: 'create', from: null, to: 'out' }]);
    });

    it('refuses to lend a title with no copies: the guard answers TRANSITION_NOT_ALLOWED', async () => {
      const none = await call('POST', '/api/books', { title: 'Withdrawn', isbn: isbn(), copies: 0 });
      const answer = await lend('0190f3c4-7a2b-7c3d-8e4f-0000000000a2', String(none.body.id));
      expect(answer.status).toBe(409);
      expect(answer.body.code).toBe('TRANSITION_NOT_ALLOWED');
      expect(answer.body.detail).toBe('Lend is allowed only when the book’s copies are more than 0.');
      const list = await call('GET', `/api/loans?filter[book]=${none.body.id}`);
      expect(list.body.items).toEqual([]);
    });

    it('reports a due date in the past as DUE_IN_PAST, top-level and at the field due', async () => {
      const answer = await lend('0190f3c4-7a2b-7c3d-8e4f-0000000000a3', bookId, inDays(-1));
      expect(answer.status).toBe(422);
      // One rule refused: its code is where a client reads FORBIDDEN's or a limit's (issue 28, item 9).
      expect(answer.body.code).toBe('DUE_IN_PAST');
      expect(answer.body.detail).toBe('The due date must be in the future.');
      expect(answer.body.errors).toEqual([
        expect.objectContaining({ field: 'due', code: 'DUE_IN_PAST', message: 'The due date must be in the future.' }),
      ]);
    });

    it('checks an unknown reference before the guard', async () => {
      const answer = await lend('0190f3c4-7a2b-7c3d-8e4f-0000000000a4', '0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f');
      expect(answer.status).toBe(422);
      expect(answer.body.code).toBe('UNKNOWN_REFERENCE');
    });

    it('lets exactly MAX_LOANS of 30 concurrent loans to one borrower through', async () => {
      const borrower = '0190f3c4-7a2b-7c3d-8e4f-0000000000b1';
      const answers = await Promise.all(Array.from({ length: 30 }, () => lend(borrower)));
      const created = answers.filter((a) => a.status === 201);
      const refused = answers.filter((a) => a.status !== 201);
      expect(created).toHaveLength(5);
      expect(refused).toHaveLength(25);
      for (const answer of refused) {
        expect(answer.status).toBe(409);
        expect(answer.body.code).toBe('LOAN_LIMIT');
        expect(answer.body.detail).toBe('A member may hold at most 5 books at once.');
        expect(answer.body.errors).toEqual([
          expect.objectContaining({
            field: null,
            code: 'LOAN_LIMIT',
            message: 'A member may hold at most 5 books at once.',
          }),
        ]);
      }
      const list = await call('GET', `/api/loans?filter[borrower]=${borrower}&filter[state]=out&count=true`);
      expect(list.body.total).toBe(5);
      // A returned loan no longer counts: one more may be lent.
      const first = created[0]?.body.id;
      expect((await call('POST', `/api/loans/${first}/return`)).status).toBe(200);
      expect((await lend(borrower)).status).toBe(201);
      expect((await lend(borrower)).body.code).toBe('LOAN_LIMIT');
    });

    it('enforces the limit when an update moves a loan to another borrower', async () => {
      const full = '0190f3c4-7a2b-7c3d-8e4f-0000000000c1';
      for (let i = 0; i < 5; i++) expect((await lend(full)).status).toBe(201);
      const other = await lend('0190f3c4-7a2b-7c3d-8e4f-0000000000c2');
      const moved = await call('PATCH', `/api/loans/${other.body.id}`, { borrower: full });
      expect(moved.status).toBe(409);
      expect(moved.body.code).toBe('LOAN_LIMIT');
      // Failures with different codes answer VALIDATION_FAILED (422), listing each at its field.
      const both = await lend(full, bookId, inDays(-1));
      expect(both.status).toBe(422);
      expect(both.body.code).toBe('VALIDATION_FAILED');
      expect(both.body.errors).toEqual([
        expect.objectContaining({ field: 'due', code: 'DUE_IN_PAST', message: 'The due date must be in the future.' }),
        expect.objectContaining({
          field: null,
          code: 'LOAN_LIMIT',
          message: 'A member may hold at most 5 books at once.',
        }),
      ]);
      expect((await call('GET', `/api/loans/${other.body.id}`)).body.borrower).toBe(
        '0190f3c4-7a2b-7c3d-8e4f-0000000000c2',
      );
    });

    it('returns a loan once: the from-state is checked and the history names the transition', async () => {
      const loan = await lend('0190f3c4-7a2b-7c3d-8e4f-0000000000d1');
      const id = String(loan.body.id);
      const returned = await call('POST', `/api/loans/${id}/return`);
      expect(returned.status).toBe(200);
      expect(returned.body.state).toBe('returned');
      const again = await call('POST', `/api/loans/${id}/return`, {});
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('TRANSITION_NOT_ALLOWED');
      expect(again.body.detail).toBe('return is not allowed when the Loan is returned.');
      const history = await call('GET', `/api/loans/${id}/history`);
      expect(history.body.items).toMatchObject([
        { action: 'create', transition: null, from: null, to: 'out' },
        { action: 'transition', transition: 'return', from: 'out', to: 'returned', changes: {} },
      ]);
      expect((await call('POST', `/api/loans/0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f/return`)).body.code).toBe(
        'NOT_FOUND',
      );
    });

    it('marks a loan overdue only once it is past due, and returns it from overdue', async () => {
      const loan = await lend('0190f3c4-7a2b-7c3d-8e4f-0000000000e1');
      const id = String(loan.body.id);
      const early = await call('POST', `/api/loans/${id}/mark-overdue`);
      expect(early.status).toBe(409);
      expect(early.body.code).toBe('TRANSITION_NOT_ALLOWED');
      expect(early.body.detail).toBe('Mark overdue is allowed only when the due date has passed.');
      await desk.backdate('loans', id, inDays(-3));
      // The due date is now in the past: the rule about it is not re-checked, since nothing changes it.
      const overdue = await call('POST', `/api/loans/${id}/mark-overdue`);
      expect(overdue.status).toBe(200);
      expect(overdue.body.state).toBe('overdue');
      expect((await call('POST', `/api/loans/${id}/mark-overdue`)).body.code).toBe('TRANSITION_NOT_ALLOWED');
      const returned = await call('POST', `/api/loans/${id}/return`);
      expect(returned.body.state).toBe('returned');
      const history = await call('GET', `/api/loans/${id}/history`);
      expect((history.body.items as Json[]).map((h) => [h.transition, h.from, h.to])).toEqual([
        [null, null, 'out'],
        ['mark overdue', 'out', 'overdue'],
        ['return', 'overdue', 'returned'],
      ]);
    });

    it('never writes the state through an update', async () => {
      const loan = await lend('0190f3c4-7a2b-7c3d-8e4f-0000000000f1');
      const id = String(loan.body.id);
      for (const body of [{ state: 'returned' }, { due: inDays(9), state: 'returned' }]) {
        const answer = await call('PATCH', `/api/loans/${id}`, body);
        expect(answer.status).toBe(422);
        expect(answer.body.code).toBe('VALIDATION_FAILED');
      }
      expect((await call('GET', `/api/loans/${id}`)).body.state).toBe('out');
      const create = await call('POST', '/api/loans', {
        book: bookId,
        borrower: BORROWER,
        due: inDays(9),
        state: 'returned',
      });
      expect(create.status).toBe(422);
    });

    it('checks a rule on update when the update changes a field it mentions', async () => {
      const loan = await lend('0190f3c4-7a2b-7c3d-8e4f-0000000000f2');
      const answer = await call('PATCH', `/api/loans/${loan.body.id}`, { due: inDays(-2) });
      expect(answer.status).toBe(422);
      expect(answer.body.errors).toEqual([
        expect.objectContaining({ field: 'due', code: 'DUE_IN_PAST', message: 'The due date must be in the future.' }),
      ]);
    });
  });

  describe('the loan limit over real HTTP', () => {
    it('lets exactly MAX_LOANS of 30 concurrent requests on a port through', async () => {
      const desk = await start(db, LENDING_DESK_DERIVED);
      try {
        const url = await desk.server.listen({ port: 0 });
        const book = await desk.call('POST', '/api/books', { title: 'Dune', isbn: isbn(), copies: 3 });
        const statuses = await Promise.all(
          Array.from({ length: 30 }, async () => {
            const response = await fetch(`${url}/api/loans`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: desk.authorization },
              body: JSON.stringify({ book: book.body.id, borrower: BORROWER, due: inDays(7) }),
            });
            return response.status;
          }),
        );
        expect(statuses.filter((s) => s === 201)).toHaveLength(5);
        expect(statuses.filter((s) => s === 409)).toHaveLength(25);
      } finally {
        await desk.stop();
      }
    });
  });

  describe('a guard whose evaluation fails', () => {
    it('fails closed: the transition is not allowed', async () => {
      // Division by zero when the title has no copies: an evaluation error, not false.
      const source = replaceOnce(LENDING_DESK_DERIVED, /\| book\.copies > 0 \|/, () => '| 10 / book.copies > 0 |');
      const desk = await start(db, source);
      try {
        const none = await desk.call('POST', '/api/books', { title: 'Zero', isbn: isbn(), copies: 0 });
        const answer = await desk.call('POST', '/api/loans', {
          book: none.body.id,
          borrower: BORROWER,
          due: inDays(5),
        });
        expect(answer.status).toBe(409);
        expect(answer.body.code).toBe('TRANSITION_NOT_ALLOWED');
        const some = await desk.call('POST', '/api/books', { title: 'Some', isbn: isbn(), copies: 2 });
        const ok = await desk.call('POST', '/api/loans', { book: some.body.id, borrower: BORROWER, due: inDays(5) });
        expect(ok.status).toBe(201);
      } finally {
        await desk.stop();
      }
    });
  });

  describe('the lending desk example', () => {
    it('walks one loan through lend, renew and return', async () => {
      const desk = await start(db, EXAMPLE);
      const { call } = desk;
      try {
        const book = await call('POST', '/api/books', {
          title: 'The Left Hand of Darkness',
          author: 'Le Guin, Ursula K.',
          isbn: isbn(),
          copies: 2,
          shelf: 'FIC-120',
        });
        expect(book.status).toBe(201);
        const tooLong = await call('POST', '/api/loans', { book: book.body.id, borrower: BORROWER, due: inDays(40) });
        expect(tooLong.status).toBe(422);
        // It mentions two fields (due, lent_on), so it is reported at none.
        expect(tooLong.body.errors).toMatchObject([{ field: null, code: 'LOAN_TOO_LONG' }]);
        const lent = await call('POST', '/api/loans', { book: book.body.id, borrower: BORROWER, due: inDays(14) });
        expect(lent.status).toBe(201);
        expect(lent.body).toMatchObject({ state: 'out', renewals: 0, lent_on: inDays(0) });
        const id = String(lent.body.id);

        // Renewing asks for nothing: it moves the due date on by LOAN_PERIOD (21 days) and counts itself.
        const renewed = await call('POST', `/api/loans/${id}/renew`);
        expect(renewed.status).toBe(200);
        expect(renewed.body).toMatchObject({ state: 'out', renewals: 1, due: inDays(35) });
        expect((await call('POST', `/api/loans/${id}/renew`)).body).toMatchObject({ renewals: 2, due: inDays(56) });
        // The guard (renewals < MAX_RENEWALS) sees the count before the renewal: a third is refused.
        const third = await call('POST', `/api/loans/${id}/renew`);
        expect(third.status).toBe(409);
        expect(third.body).toMatchObject({
          code: 'TRANSITION_NOT_ALLOWED',
          detail: 'Renew is allowed only when the renewals are less than 2.',
        });
        // A payload is not accepted: the call takes none.
        const sent = await call('POST', `/api/loans/${id}/renew`, { due: inDays(10) });
        expect(sent.body).toMatchObject({
          code: 'VALIDATION_FAILED',
          errors: [{ field: 'due', code: 'READ_ONLY_FIELD' }],
        });

        const returned = await call('POST', `/api/loans/${id}/return`, { condition_note: 'coffee stain on p. 12' });
        expect(returned.status).toBe(200);
        expect(returned.body).toMatchObject({ state: 'returned', condition_note: 'coffee stain on p. 12' });
        expect((await call('POST', `/api/loans/${id}/renew`)).body.code).toBe('TRANSITION_NOT_ALLOWED');
        const history = await call('GET', `/api/loans/${id}/history`);
        expect((history.body.items as Json[]).map((h) => [h.action, h.transition, h.from, h.to])).toEqual([
          ['create', null, null, 'out'],
          ['transition', 'renew', 'out', 'out'],
          ['transition', 'renew', 'out', 'out'],
          ['transition', 'return', 'out', 'returned'],
        ]);
        expect((history.body.items as Json[])[1]?.changes).toEqual({ due: inDays(35), renewals: 1 });
        expect((history.body.items as Json[])[3]?.changes).toEqual({ condition_note: 'coffee stain on p. 12' });
      } finally {
        await desk.stop();
      }
    });
  });
});
