import type { OutgoingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_ONLY, type TestDatabase } from '../../test/databases.ts';
import { insertRowBefore, LENDING_DESK_DERIVED, modelOf, replaceOnce } from '../../test/helpers.ts';
import { knownUser, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import { replayHistory } from '../store/history.ts';
import type { HistoryEntry } from '../store/store.ts';

/** The lending desk with every call derived, and Book grown by an optional choice, text and date-time. */
const SPEC = insertRowBefore(
  LENDING_DESK_DERIVED,
  ['copies', 'integer'],
  '| format | choice of hardcover, paperback | |\n| note | text | |\n| acquired | datetime | |',
);

const USER = '0190f3c4-7a2b-7c3d-8e4f-000000000001';
const MISSING = '0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f';
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  headers: OutgoingHttpHeaders;
  body: Json;
}

async function start(db: TestDatabase, source = SPEC) {
  const temp = await db.fresh();
  const server = await createServer({ model: modelOf(source), ...temp.options, logger: false });
  const { authorization, user } = await userWithToken(server);
  await knownUser(server, USER, ['member']);
  const call = async (method: string, url: string, body?: unknown, headers: Json = {}): Promise<Answer> => {
    const response = await server.app.inject({
      method: method as 'GET',
      url,
      headers: {
        authorization,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      } as Record<string, string>,
      ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    if (response.statusCode >= 400) {
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    }
    return {
      status: response.statusCode,
      headers: response.headers,
      body: response.body === '' ? {} : (response.json() as Json),
    };
  };
  return { server, call, temp, authorization, user };
}

let isbnCounter = 0;
const isbn = () => `978${String(++isbnCounter).padStart(10, '0')}`;
const book = (extra: Json = {}) => ({ title: 'Dune', isbn: isbn(), ...extra });

/** The field errors of a VALIDATION_FAILED answer, as `field code` pairs. */
function fieldCodes(answer: Answer): string[] {
  expect(answer.status).toBe(422);
  expect(answer.body.code).toBe('VALIDATION_FAILED');
  return (answer.body.errors as { field: string; code: string }[]).map((e) => `${e.field} ${e.code}`);
}

describe.each(SQLITE_ONLY)('on $name', (db) => {
  describe('the entity calls of the lending desk', () => {
    let server: NinepointServer;
    let call: Awaited<ReturnType<typeof start>>['call'];
    let remove: () => Promise<void>;
    let authorization: string;
    let me: string;

    beforeAll(async () => {
      const started = await start(db);
      server = started.server;
      call = started.call;
      remove = started.temp.remove;
      authorization = started.authorization;
      me = started.user.id;
    });
    afterAll(async () => {
      await server.close();
      await remove();
    });

    it('creates a book with its defaults and answers 201 with Location and ETag', async () => {
      const created = await call('POST', '/api/books', { title: 'Dune', isbn: '9780441013593' });
      expect(created.status).toBe(201);
      const record = created.body;
      expect(record).toEqual({
        id: expect.stringMatching(UUID_V7),
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        updated_at: record.created_at,
        created_by: me,
        title: 'Dune',
        isbn: '9780441013593',
        format: null,
        note: null,
        acquired: null,
        copies: 1,
      });
      expect(Object.keys(record)).toEqual([
        'id',
        'created_at',
        'updated_at',
        'created_by',
        'title',
        'isbn',
        'format',
        'note',
        'acquired',
        'copies',
      ]);
      expect(created.headers.location).toBe(`/api/books/${record.id}`);
      expect(created.headers.etag).toBe('"1"');

      const got = await call('GET', String(created.headers.location));
      expect(got.status).toBe(200);
      expect(got.body).toEqual(record);
      expect(got.headers.etag).toBe('"1"');
      expect(got.headers['content-type']).toBe('application/json; charset=utf-8');
    });

    it('stores date-times in UTC whatever offset they are sent with', async () => {
      const created = await call('POST', '/api/books', book({ acquired: '2025-03-01T10:30:00+02:00' }));
      expect(created.body.acquired).toBe('2025-03-01T08:30:00.000Z');
      const found = await call('GET', '/api/books?filter[acquired]=2025-03-01T09:30:00%2B01:00');
      expect((found.body.items as Json[]).map((b) => b.id)).toEqual([created.body.id]);
      // A leap second passes the format but is no time JavaScript can hold: a field error, not a 500.
      expect(fieldCodes(await call('POST', '/api/books', book({ acquired: '2016-12-31T23:59:60Z' })))).toEqual([
        'acquired INVALID_TYPE',
      ]);
    });

    it('puts a new loan into the initial state of its machine and records it in its history', async () => {
      const { body: b } = await call('POST', '/api/books', book());
      const created = await call('POST', '/api/loans', { book: b.id, borrower: USER, due: '2030-01-31' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ state: 'out', book: b.id, borrower: USER, due: '2030-01-31' });
      const history = await call('GET', `/api/loans/${created.body.id}/history`);
      expect(history.status).toBe(200);
      expect(history.body).toEqual({
        items: [
          {
            at: created.body.created_at,
            by: me,
            action: 'create',
            transition: null,
            from: null,
            to: 'out',
            changes: { book: b.id, borrower: USER, due: '2030-01-31' },
            before: {},
          },
        ],
      });
    });

    it('updates some fields, bumps the ETag and records only what changed', async () => {
      const { body: created } = await call('POST', '/api/books', book({ copies: 2 }));
      const url = `/api/books/${created.id}`;
      const updated = await call('PATCH', url, { copies: 4, title: 'Dune' });
      expect(updated.status).toBe(200);
      expect(updated.headers.etag).toBe('"2"');
      expect(updated.body).toMatchObject({ id: created.id, copies: 4, title: 'Dune', created_at: created.created_at });
      expect(updated.body.updated_at).not.toBe(created.created_at);
      expect((await call('GET', url)).body).toEqual(updated.body);

      // Nothing to change: nothing written, the version stays.
      const same = await call('PATCH', url, { copies: 4 });
      expect(same.status).toBe(200);
      expect(same.headers.etag).toBe('"2"');
      expect(same.body).toEqual(updated.body);

      // An optional field may be cleared with null.
      expect((await call('PATCH', url, { format: 'paperback' })).body.format).toBe('paperback');
      const cleared = await call('PATCH', url, { format: null });
      expect(cleared.body.format).toBeNull();
      expect(cleared.headers.etag).toBe('"4"');

      const history = (await call('GET', `${url}/history`)).body.items as Json[];
      expect(history.map((h) => [h.action, h.changes, h.before])).toEqual([
        ['create', { title: 'Dune', isbn: created.isbn, format: null, note: null, acquired: null, copies: 2 }, {}],
        ['update', { copies: 4 }, { copies: 2 }],
        ['update', { format: 'paperback' }, { format: null }],
        ['update', { format: null }, { format: 'paperback' }],
      ]);
    });

    it('keeps a history that replays to the record as it is, and to what a delete removed', async () => {
      const { body: b } = await call('POST', '/api/books', book());
      const { body: loan } = await call('POST', '/api/loans', { book: b.id, borrower: USER, due: '2030-01-31' });
      const url = `/api/loans/${loan.id}`;
      await call('PATCH', url, { due: '2030-02-28' });
      expect((await call('POST', `${url}/return`)).status).toBe(200);
      await call('PATCH', url, { due: '2030-04-30' });
      const current = (await call('GET', url)).body;
      const items = (await call('GET', `${url}/history`)).body.items as HistoryEntry[];
      expect(items.map((i) => i.action)).toEqual(['create', 'update', 'transition', 'update']);
      expect(items.every((i) => i.by === me)).toBe(true);
      const replayed = replayHistory(items);
      for (const [field, value] of Object.entries(replayed)) expect(current[field], field).toEqual(value);
      expect(Object.keys(replayed).sort()).toEqual(['book', 'borrower', 'created_by', 'due', 'state'].sort());

      const { body: gone } = await call('POST', '/api/books', book({ note: 'to be deleted' }));
      const removed = await call('DELETE', `/api/books/${gone.id}`);
      expect(removed.status).toBe(204);
      const trail = (await call('GET', `/api/books/${gone.id}/history`)).body.items as HistoryEntry[];
      expect(trail.map((i) => i.action)).toEqual(['create', 'delete']);
      expect(replayHistory(trail)).toMatchObject({ title: gone.title, isbn: gone.isbn, note: 'to be deleted' });
    });

    it('deletes a record: 204, then NOT_FOUND, with its history kept', async () => {
      const { body: created } = await call('POST', '/api/books', book());
      const url = `/api/books/${created.id}`;
      const deleted = await call('DELETE', url);
      expect(deleted.status).toBe(204);
      expect((await call('GET', url)).body).toMatchObject({
        code: 'NOT_FOUND',
        status: 404,
        detail: `No Book with id ${created.id} was found.`,
      });
      expect((await call('DELETE', url)).status).toBe(404);
      expect((await call('PATCH', url, { copies: 2 })).status).toBe(404);
      const history = (await call('GET', `${url}/history`)).body.items as Json[];
      expect(history.map((h) => h.action)).toEqual(['create', 'delete']);
    });

    it('answers NOT_FOUND naming the entity and id on get, update, delete and history', async () => {
      for (const id of [MISSING, 'not-an-id', '1', "1'OR'1'='1"]) {
        const encoded = encodeURIComponent(id);
        for (const [method, url] of [
          ['GET', `/api/books/${encoded}`],
          ['PATCH', `/api/books/${encoded}`],
          ['DELETE', `/api/books/${encoded}`],
          ['GET', `/api/books/${encoded}/history`],
          ['GET', `/api/loans/${encoded}`],
        ] as const) {
          const answer = await call(method, url, method === 'PATCH' ? { copies: 1 } : undefined);
          expect(answer.status, `${method} ${url}`).toBe(404);
          const entity = url.startsWith('/api/loans') ? 'Loan' : 'Book';
          expect(answer.body).toMatchObject({ code: 'NOT_FOUND', detail: `No ${entity} with id ${id} was found.` });
        }
      }
    });

    it('answers VALIDATION_FAILED with the catalogue code and message of each field', async () => {
      const bad = async (body: Json) => {
        const answer = await call('POST', '/api/books', body);
        return { codes: fieldCodes(answer), errors: answer.body.errors as Json[] };
      };
      const missing = await bad({ isbn: isbn() });
      expect(missing.codes).toEqual(['title REQUIRED']);
      expect(missing.errors[0]?.message).toBe('title is required.');
      expect((await bad(book({ title: null }))).codes).toEqual(['title REQUIRED']);
      expect((await bad(book({ copies: '3' }))).errors).toEqual([
        expect.objectContaining({ field: 'copies', code: 'INVALID_TYPE', message: 'copies must be a whole number.' }),
      ]);
      expect((await bad(book({ copies: 1.5 }))).codes).toEqual(['copies INVALID_TYPE']);
      expect((await bad(book({ acquired: 'yesterday' }))).codes).toEqual(['acquired INVALID_TYPE']);
      // A required text that is empty is missing, whatever its length rule says.
      expect((await bad(book({ title: '' }))).errors).toEqual([
        expect.objectContaining({ field: 'title', code: 'REQUIRED', message: 'title is required.' }),
      ]);
      expect((await bad(book({ title: 'x'.repeat(201) }))).errors).toEqual([
        expect.objectContaining({
          field: 'title',
          code: 'TOO_LONG',
          message: 'title must be at most 200 characters long.',
        }),
      ]);
      for (const copies of [51, -1]) {
        expect((await bad(book({ copies }))).errors).toEqual([
          expect.objectContaining({
            field: 'copies',
            code: 'OUT_OF_RANGE',
            message: 'copies must be between 0 and 50.',
          }),
        ]);
      }
      expect((await bad(book({ isbn: '12345' }))).errors).toEqual([
        expect.objectContaining({
          field: 'isbn',
          code: 'PATTERN_MISMATCH',
          message: 'isbn is not in the expected format.',
        }),
      ]);
      expect((await bad(book({ format: 'scroll' }))).errors).toEqual([
        expect.objectContaining({
          field: 'format',
          code: 'INVALID_CHOICE',
          message: 'format must be one of hardcover, paperback.',
        }),
      ]);
      // Several at once, one error per field.
      expect((await bad({ title: '', isbn: 'x', copies: 99 })).codes).toEqual([
        'title REQUIRED',
        'isbn PATTERN_MISMATCH',
        'copies OUT_OF_RANGE',
      ]);

      const loan = await call('POST', '/api/loans', { book: 'not-an-id', borrower: USER, due: '31/01/2030' });
      expect(loan.body.errors).toEqual([
        expect.objectContaining({ field: 'book', code: 'INVALID_TYPE', message: 'book must be the id of a Book.' }),
        expect.objectContaining({ field: 'due', code: 'INVALID_TYPE', message: 'due must be a date (YYYY-MM-DD).' }),
      ]);
      // Updates are checked the same way, and a required field cannot be cleared.
      const { body: created } = await call('POST', '/api/books', book());
      expect(fieldCodes(await call('PATCH', `/api/books/${created.id}`, { title: null, copies: 51 }))).toEqual([
        'title REQUIRED',
        'copies OUT_OF_RANGE',
      ]);
    });

    it('refuses system fields in a payload with READ_ONLY_FIELD and stores none of them', async () => {
      const forged = {
        id: MISSING,
        created_at: '2000-01-01T00:00:00.000Z',
        updated_at: '2000-01-01T00:00:00.000Z',
        created_by: USER,
        state: 'returned',
      };
      expect(fieldCodes(await call('POST', '/api/books', book({ id: MISSING, created_by: USER })))).toEqual([
        'id READ_ONLY_FIELD',
        'created_by READ_ONLY_FIELD',
      ]);
      const { body: b } = await call('POST', '/api/books', book());
      const loanBody = { book: b.id, borrower: USER, due: '2030-01-31' };
      const answer = await call('POST', '/api/loans', { ...loanBody, ...forged });
      expect(answer.body.errors).toEqual(
        Object.keys(forged).map((field) => ({
          field,
          code: 'READ_ONLY_FIELD',
          message: `${field} cannot be set directly.`,
        })),
      );
      const { body: loan } = await call('POST', '/api/loans', loanBody);
      expect(fieldCodes(await call('PATCH', `/api/loans/${loan.id}`, { state: 'returned' }))).toEqual([
        'state READ_ONLY_FIELD',
      ]);
      expect((await call('GET', `/api/loans/${loan.id}`)).body.state).toBe('out');
      const list = await call('GET', `/api/loans?filter[book]=${b.id}`);
      expect((list.body.items as Json[]).map((l) => l.id)).toEqual([loan.id]);
    });

    it('answers INVALID_PAYLOAD for a body that is not an object or names a field the entity lacks', async () => {
      for (const body of ['[]', '"Dune"', '42', 'null']) {
        const answer = await call('POST', '/api/books', body);
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({
          code: 'INVALID_PAYLOAD',
          detail: 'The request is not valid: the body must be a JSON object.',
        });
      }
      const unknown = await call('POST', '/api/books', book({ titel: 'Dune' }));
      expect(unknown.body).toMatchObject({
        code: 'INVALID_PAYLOAD',
        detail: 'The request is not valid: the body has "titel" that Book does not have.',
      });
      const noBody = await server.app.inject({ method: 'POST', url: '/api/books', headers: { authorization } });
      expect(noBody.statusCode).toBe(400);
    });

    it('answers NOT_UNIQUE naming the field, on create and on update', async () => {
      const first = await call('POST', '/api/books', book());
      const again = await call('POST', '/api/books', book({ isbn: first.body.isbn }));
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({
        code: 'NOT_UNIQUE',
        detail: 'Another Book already has this isbn.',
        errors: [
          expect.objectContaining({
            field: 'isbn',
            code: 'NOT_UNIQUE',
            message: 'Another Book already has this isbn.',
          }),
        ],
      });
      const other = await call('POST', '/api/books', book());
      const clash = await call('PATCH', `/api/books/${other.body.id}`, { isbn: first.body.isbn });
      expect(clash.status).toBe(409);
      expect(clash.body.code).toBe('NOT_UNIQUE');
      expect((await call('GET', `/api/books/${other.body.id}`)).body.isbn).toBe(other.body.isbn);
    });

    it('answers UNKNOWN_REFERENCE for a loan of a book that does not exist, on create and on update', async () => {
      const answer = await call('POST', '/api/loans', { book: MISSING, borrower: USER, due: '2030-01-31' });
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({
        code: 'UNKNOWN_REFERENCE',
        detail: 'book refers to a record that does not exist.',
        errors: [{ field: 'book', code: 'UNKNOWN_REFERENCE' }],
      });
      const { body: b } = await call('POST', '/api/books', book());
      const { body: loan } = await call('POST', '/api/loans', { book: b.id, borrower: USER, due: '2030-01-31' });
      const moved = await call('PATCH', `/api/loans/${loan.id}`, { book: MISSING });
      expect(moved.body.code).toBe('UNKNOWN_REFERENCE');
      expect((await call('GET', `/api/loans/${loan.id}`)).body.book).toBe(b.id);
    });

    it('answers CONFLICT for a stale If-Match and writes nothing', async () => {
      const { body: created } = await call('POST', '/api/books', book());
      const url = `/api/books/${created.id}`;
      const first = await call('PATCH', url, { copies: 2 }, { 'if-match': '"1"' });
      expect(first.status).toBe(200);
      expect(first.headers.etag).toBe('"2"');

      const stale = await call('PATCH', url, { copies: 3 }, { 'if-match': '"1"' });
      expect(stale.status).toBe(409);
      expect(stale.body).toMatchObject({
        code: 'CONFLICT',
        detail: 'This Book was changed by someone else. Reload it and try again.',
      });
      for (const header of ['garbage', '"two"', '']) {
        expect((await call('PATCH', url, { copies: 3 }, { 'if-match': header })).status).toBe(409);
      }
      expect((await call('DELETE', url, undefined, { 'if-match': '"1"' })).status).toBe(409);
      const after = await call('GET', url);
      expect(after.body.copies).toBe(2);
      expect(after.headers.etag).toBe('"2"');
      expect(((await call('GET', `${url}/history`)).body.items as Json[]).length).toBe(2);

      // Any current version, a list holding it, a weakened tag, or no If-Match at all are accepted.
      expect((await call('PATCH', url, { copies: 3 }, { 'if-match': '*' })).headers.etag).toBe('"3"');
      expect((await call('PATCH', url, { copies: 4 }, { 'if-match': '"1", "3"' })).headers.etag).toBe('"4"');
      expect((await call('PATCH', url, { copies: 5 }, { 'if-match': 'W/"4"' })).headers.etag).toBe('"5"');
      expect((await call('PATCH', url, { copies: 6 })).headers.etag).toBe('"6"');
      expect((await call('DELETE', url, undefined, { 'if-match': '"6"' })).status).toBe(204);
    });

    it('refuses to delete a book a loan refers to, saying why, and deletes it once no loan does', async () => {
      const { body: b } = await call('POST', '/api/books', book());
      const { body: loan } = await call('POST', '/api/loans', { book: b.id, borrower: USER, due: '2030-01-31' });
      const refused = await call('DELETE', `/api/books/${b.id}`);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({
        code: 'CONFLICT',
        detail: 'This Book cannot be deleted while a Loan refers to it (Loan.book). Delete or change that Loan first.',
      });
      expect((await call('GET', `/api/books/${b.id}`)).status).toBe(200);
      // Nobody may delete a loan here (point 6): move it to another book instead.
      const { body: other } = await call('POST', '/api/books', book());
      expect((await call('PATCH', `/api/loans/${loan.id}`, { book: other.id })).status).toBe(200);
      expect((await call('DELETE', `/api/books/${b.id}`)).status).toBe(204);
    });

    it('serves the same calls over real HTTP', async () => {
      const url = await server.listen({ port: 0, host: '127.0.0.1' });
      const json = { 'content-type': 'application/json', authorization };
      const signed = { headers: { authorization } };
      const created = await fetch(`${url}/api/books`, { method: 'POST', headers: json, body: JSON.stringify(book()) });
      expect(created.status).toBe(201);
      const location = `${url}${created.headers.get('location')}`;
      const got = await fetch(location, signed);
      expect(got.headers.get('etag')).toBe('"1"');
      const patched = await fetch(location, {
        method: 'PATCH',
        headers: { ...json, 'if-match': '"1"' },
        body: JSON.stringify({ note: 'signed' }),
      });
      expect(((await patched.json()) as Json).note).toBe('signed');
      const listed = (await (await fetch(`${url}/api/books?q=signed`, signed)).json()) as Json;
      expect((listed.items as Json[]).map((b) => b.note)).toEqual(['signed']);
      expect((await fetch(location, { method: 'DELETE', ...signed })).status).toBe(204);
      expect((await fetch(location, signed)).status).toBe(404);
    });
  });

  describe('lists', () => {
    let server: NinepointServer;
    let call: Awaited<ReturnType<typeof start>>['call'];
    let remove: () => Promise<void>;
    let books: Json[];

    beforeAll(async () => {
      const started = await start(db);
      server = started.server;
      call = started.call;
      remove = started.temp.remove;
      books = [];
      const titles = ['delta', 'alpha', 'charlie', 'bravo', 'echo'];
      for (let n = 0; n < 57; n++) {
        const created = await call(
          'POST',
          '/api/books',
          book({
            title: `${titles[n % titles.length]} ${String(n % 7)}`,
            copies: n % 4,
            ...(n % 3 === 0 ? {} : { note: `note ${n % 5}` }),
            ...(n % 2 === 0 ? { format: 'paperback' } : {}),
          }),
        );
        expect(created.status).toBe(201);
        books.push(created.body);
      }
    });
    afterAll(async () => {
      await server.close();
      await remove();
    });

    /** Every page of a list, following `next`. */
    async function pages(query: string, limit: number): Promise<Json[][]> {
      const all: Json[][] = [];
      let cursor: string | null = null;
      do {
        const url: string = `/api/books?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const answer = await call('GET', url);
        expect(answer.status, url).toBe(200);
        expect(answer.body.total).toBeUndefined();
        const items = answer.body.items as Json[];
        all.push(items);
        cursor = answer.body.next as string | null;
        if (cursor) expect(items.length).toBe(limit);
        expect(all.length).toBeLessThan(100);
      } while (cursor);
      return all;
    }

    /** SQLite's order: NULLs first ascending and last descending, then `id` in the same direction. */
    function sorted(field: string, descending: boolean): string[] {
      const rank = (v: unknown) => (v === null ? 0 : 1);
      return [...books]
        .sort((a, b) => {
          const x = a[field] as string | number | null;
          const y = b[field] as string | number | null;
          let order = rank(x) - rank(y);
          if (order === 0 && x !== null && y !== null) order = x < y ? -1 : x > y ? 1 : 0;
          if (order === 0) order = String(a.id) < String(b.id) ? -1 : 1;
          return descending ? -order : order;
        })
        .map((b) => String(b.id));
    }

    it('pages through every record once, oldest first, with no duplicates or gaps', async () => {
      const all = await pages('', 10);
      expect(all.map((p) => p.length)).toEqual([10, 10, 10, 10, 10, 7]);
      const ids = all.flat().map((b) => b.id);
      expect(new Set(ids).size).toBe(57);
      expect(ids).toEqual(sorted('created_at', false));
      expect(ids).toEqual(books.map((b) => b.id));
    });

    it('sorts by any field both ways, NULLs included, with the same cursor walk', async () => {
      for (const field of ['created_at', 'title', 'copies', 'note', 'format', 'id', 'isbn']) {
        for (const descending of [false, true]) {
          const ids = (await pages(`sort=${descending ? '-' : ''}${field}`, 7)).flat().map((b) => b.id);
          expect(ids, `sort ${descending ? '-' : ''}${field}`).toEqual(sorted(field, descending));
        }
      }
    });

    it('uses PAGE_SIZE by default and at most MAX_PAGE_SIZE', async () => {
      const { settings } = server.compiled;
      const first = await call('GET', '/api/books');
      expect((first.body.items as Json[]).length).toBe(Math.min(57, settings.PAGE_SIZE));
      const max = await call('GET', `/api/books?limit=${settings.MAX_PAGE_SIZE}`);
      expect(max.status).toBe(200);
      const over = await call('GET', `/api/books?limit=${settings.MAX_PAGE_SIZE + 1}`);
      expect(over.body).toMatchObject({
        code: 'INVALID_PAYLOAD',
        detail: `The request is not valid: limit must be a whole number from 1 to ${settings.MAX_PAGE_SIZE}.`,
      });
    });

    it('filters by field with typed values, and pages through what matches', async () => {
      const expectIds = async (query: string, keep: (b: Json) => boolean) => {
        const ids = (await pages(query, 4)).flat().map((b) => b.id);
        expect(ids, query).toEqual(books.filter(keep).map((b) => b.id));
      };
      await expectIds('filter[copies]=3', (b) => b.copies === 3);
      await expectIds('filter[format]=paperback', (b) => b.format === 'paperback');
      await expectIds('filter[title]=alpha%201', (b) => b.title === 'alpha 1');
      await expectIds('filter[copies]=0&filter[format]=paperback', (b) => b.copies === 0 && b.format === 'paperback');
      await expectIds(`filter[isbn]=${books[5]?.isbn}`, (b) => b.id === books[5]?.id);
    });

    it('counts the matching records only when asked', async () => {
      const counted = await call('GET', '/api/books?count=true&filter[copies]=1&limit=2');
      expect(counted.body.total).toBe(books.filter((b) => b.copies === 1).length);
      expect((counted.body.items as Json[]).length).toBe(2);
      expect((await call('GET', '/api/books?count=false')).body.total).toBeUndefined();
      expect((await call('GET', '/api/books?count=true&q=zzz')).body).toEqual({ items: [], next: null, total: 0 });
    });

    it('searches text fields with q, case-insensitively, taking % and _ literally', async () => {
      const made: Json[] = [];
      for (const title of ['100% cotton', '1000 cotton', 'snake_case', 'snakeXcase', 'back\\slash']) {
        made.push((await call('POST', '/api/books', book({ title }))).body);
      }
      const search = async (q: string) =>
        ((await call('GET', `/api/books?q=${encodeURIComponent(q)}&limit=200`)).body.items as Json[]).map(
          (b) => b.title,
        );
      expect(await search('%')).toEqual(['100% cotton']);
      expect(await search('0%')).toEqual(['100% cotton']);
      expect(await search('_')).toEqual(['snake_case']);
      expect(await search('e_c')).toEqual(['snake_case']);
      expect(await search('\\')).toEqual(['back\\slash']);
      expect(await search('COTTON')).toEqual(['100% cotton', '1000 cotton']);
      // q reads every text field: notes too.
      expect((await search('note 4')).length).toBe(books.filter((b) => b.note === 'note 4').length);
      for (const b of made) expect((await call('DELETE', `/api/books/${b.id}`)).status).toBe(204);
    });

    it('accepts every query parameter and value the OpenAPI document lists', async () => {
      const { openapi } = server.compiled;
      const example: Record<string, string> = {
        integer: '1',
        number: '1.5',
        boolean: 'true',
        date: '2030-01-31',
        'date-time': '2025-01-01T00:00:00Z',
        uuid: MISSING,
        string: 'x',
      };
      for (const path of ['/api/books', '/api/loans']) {
        const parameters = openapi.paths[path]?.get?.parameters ?? [];
        // The or-groups (a deepObject, `or[n][field][op]`) take the filters `filter[…]` takes:
        // each filter is also asked as a group of its own.
        const groups = parameters.find((p) => p.name === 'or');
        expect(groups).toMatchObject({ style: 'deepObject', schema: { type: 'object', default: {} } });
        for (const parameter of parameters) {
          // A cursor is only ever one a page gave: walked in the tests above.
          if (parameter.name === 'cursor' || parameter === groups) continue;
          // A choice's filter repeats: each of its values is one.
          const schema = parameter.schema.items ?? parameter.schema;
          const values = schema.enum ? schema.enum.map(String) : [example[String(schema.format ?? schema.type)] ?? 'x'];
          const names = [parameter.name];
          if (parameter.name.startsWith('filter[')) names.push(`or[1]${parameter.name.slice('filter'.length)}`);
          for (const name of names) {
            for (const value of values) {
              const url = `${path}?${new URLSearchParams({ [name]: value })}`;
              expect((await call('GET', url)).status, url).toBe(200);
            }
          }
        }
      }
    });

    it('answers INVALID_PAYLOAD for a bad sort, filter, cursor or parameter', async () => {
      const first = await call('GET', '/api/books?limit=5');
      const cursor = String(first.body.next);
      const forged = Buffer.from(JSON.stringify(['created_at', 1, "x' OR 1=1 --"])).toString('base64url');
      const cases: [string, string][] = [
        ['sort=nope', 'sort names "nope", which is not a field to sort by'],
        ['sort=-nope', 'sort names "nope", which is not a field to sort by'],
        ['sort=_version', 'sort names "_version", which is not a field to sort by'],
        ['sort=title;DROP TABLE books', 'sort must name a field'],
        ['sort=', 'sort must name a field'],
        ['filter[x y]=1', 'a filter names no field to filter by'],
        ['a%20b=1', 'the query has a parameter there is not'],
        ['sort=title&sort=isbn', 'give sort once'],
        ['filter[nope]=1', 'filter[nope] names no field to filter by'],
        ['filter[created_at]=1', 'filter[created_at] names no field to filter by'],
        ['filter[copies]=many', 'filter[copies] must be a whole number'],
        ['filter[copies]=1.5', 'filter[copies] must be a whole number'],
        ['filter[format]=scroll', 'filter[format] must be one of hardcover, paperback'],
        ['filter[acquired]=tuesday', 'filter[acquired] must be a date and time with a time zone (ISO 8601)'],
        ['limit=0', 'limit must be a whole number from 1 to 200'],
        ['limit=ten', 'limit must be a whole number from 1 to 200'],
        ['count=yes', 'count must be true or false'],
        ['page=2', 'there is no query parameter "page"'],
        ['cursor=not-a-cursor', 'cursor is not one this list gave, or was made for another sort'],
        [`cursor=${cursor}&sort=title`, 'cursor is not one this list gave, or was made for another sort'],
        [`cursor=${forged}`, 'cursor is not one this list gave, or was made for another sort'],
        [`cursor=${cursor.slice(0, -3)}`, 'cursor is not one this list gave, or was made for another sort'],
      ];
      for (const [query, detail] of cases) {
        const answer = await call('GET', `/api/books?${query.replaceAll(' ', '%20').replaceAll(';', '%3B')}`);
        expect(answer.status, query).toBe(400);
        expect(answer.body, query).toMatchObject({
          code: 'INVALID_PAYLOAD',
          detail: `The request is not valid: ${detail}.`,
        });
      }
      // The loans have no text field to search.
      const loans = await call('GET', '/api/loans?q=x');
      expect(loans.body.detail).toBe('The request is not valid: q searches text fields, and there are none here.');
    });
  });

  describe('defaults', () => {
    it('fill in today, now, literals and me, the signed-in user', async () => {
      const source = insertRowBefore(
        SPEC,
        ['due', 'date'],
        '| opened | date | default today |\n| stamped | datetime | default now |\n| rush | boolean | default false |\n| clerk | User | default me |',
      );
      const { server, call, temp, user } = await start(db, source);
      try {
        const { body: b } = await call('POST', '/api/books', book());
        const created = await call('POST', '/api/loans', { book: b.id, borrower: USER, due: '2030-01-31' });
        expect(created.status).toBe(201);
        expect(created.body).toMatchObject({
          opened: String(created.body.created_at).slice(0, 10),
          stamped: created.body.created_at,
          rush: false,
          clerk: user.id,
        });
        // Booleans go in and come out as booleans, and can be filtered on.
        const rushed = await call('POST', '/api/loans', { book: b.id, borrower: USER, due: '2030-01-31', rush: true });
        expect(rushed.body.rush).toBe(true);
        const found = await call('GET', '/api/loans?filter[rush]=true');
        expect((found.body.items as Json[]).map((l) => l.id)).toEqual([rushed.body.id]);
      } finally {
        await server.close();
        await temp.remove();
      }

      const required = insertRowBefore(SPEC, ['due', 'date'], '| clerk | User | required, default me |');
      const strict = await start(db, required);
      try {
        const { body: b } = await strict.call('POST', '/api/books', book());
        const answer = await strict.call('POST', '/api/loans', { book: b.id, borrower: USER, due: '2030-01-31' });
        expect(answer.body.clerk).toBe(strict.user.id);
        const cleared = await strict.call('PATCH', `/api/loans/${answer.body.id}`, { clerk: null });
        expect(fieldCodes(cleared)).toEqual(['clerk REQUIRED']);
      } finally {
        await strict.server.close();
        await strict.temp.remove();
      }
    });
  });

  describe('calls declared in point 7', () => {
    const withCalls = (rows: string) =>
      replaceOnce(
        SPEC,
        /## 7\. The calls it makes\n[\s\S]*?(?=\n## 8\.)/,
        () => `## 7. The calls it makes\n\n| method | path | payload | does |\n|---|---|---|---|\n${rows}\n`,
      );

    it('replace every field of a PUT payload, leaving out none', async () => {
      const { server, call, temp } = await start(
        db,
        withCalls(
          [
            '| POST | /api/books | Book | create Book |',
            '| GET | /api/books/:book | | get Book |',
            '| PUT | /api/books/:book | Book | update Book |',
          ].join('\n'),
        ),
      );
      try {
        const created = await call('POST', '/api/books', book({ note: 'first', copies: 4, format: 'hardcover' }));
        expect(created.headers.location).toBe(`/api/books/${created.body.id}`);
        const url = String(created.headers.location);
        const replaced = await call('PUT', url, { title: 'Dune Messiah', isbn: created.body.isbn });
        expect(replaced.status).toBe(200);
        // Left out of the replacement: back to the default, or null.
        expect(replaced.body).toMatchObject({ title: 'Dune Messiah', note: null, format: null, copies: 1 });
        expect(fieldCodes(await call('PUT', url, { copies: 2 }))).toEqual(['title REQUIRED', 'isbn REQUIRED']);
        expect((await call('GET', url)).body).toEqual(replaced.body);
        // Not declared: not served.
        expect((await call('GET', '/api/books')).body.code).toBe('UNKNOWN_CALL');
        expect((await call('DELETE', url)).body.code).toBe('UNKNOWN_CALL');
      } finally {
        await server.close();
        await temp.remove();
      }
    });

    it('refuse a field the payload does not list with READ_ONLY_FIELD', async () => {
      const { server, call, temp } = await start(
        db,
        withCalls(
          [
            '| POST | /api/books | Book (title, isbn) | create Book |',
            '| PATCH | /api/books/:id | Book (copies) | update Book |',
            '| GET | /api/books/:id/history | | history Book |',
          ].join('\n'),
        ),
      );
      try {
        const created = await call('POST', '/api/books', book());
        expect(created.status).toBe(201);
        // No get call: Location still names the record's path.
        expect(created.headers.location).toBe(`/api/books/${created.body.id}`);
        expect(fieldCodes(await call('POST', '/api/books', book({ copies: 3 })))).toEqual(['copies READ_ONLY_FIELD']);
        const url = `/api/books/${created.body.id}`;
        expect(fieldCodes(await call('PATCH', url, { title: 'Other' }))).toEqual(['title READ_ONLY_FIELD']);
        expect((await call('PATCH', url, { copies: 9 })).body.copies).toBe(9);
        expect(((await call('GET', `${url}/history`)).body.items as Json[]).length).toBe(2);
      } finally {
        await server.close();
        await temp.remove();
      }
    });
  });
});
