import type { Model } from '@ninepoint/spec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { insertRowBefore, LENDING_DESK_DERIVED, modelOf, replaceOnce } from '../../test/helpers.ts';
import { knownUser, userWithToken } from '../../test/users.ts';
import { createServer } from '../app/server.ts';
import { MigrationRefusedError } from '../compile/migration-report.ts';
import { compileSqlSchema } from '../compile/sql-schema.ts';
import { openStore } from './open-store.ts';

// The must-show cases of migrations, through the API a user has, on every database under test.

const BASE = modelOf(LENDING_DESK_DERIVED);
const WITH_NOTE = modelOf(insertRowBefore(LENDING_DESK_DERIVED, ['copies', 'integer'], '| note | long text | |'));
const WITH_AUTHOR = modelOf(
  replaceOnce(
    replaceOnce(
      LENDING_DESK_DERIVED,
      /^### Loan$/m,
      (loan) => `### Author\n\n| field | type | rules |\n| --- | --- | --- |\n| name | text | required |\n\n${loan}`,
    ),
    /^\| role .*\n\|[-| ]+\|\n\| staff .*\n/m,
    (rows) =>
      rows
        .split('\n')
        .map((line, i) => (line ? `${line} ${['Author |', '--- |', 'create, read |'][i]}` : line))
        .join('\n'),
  ),
);
const WITHOUT_ISBN = modelOf(replaceOnce(LENDING_DESK_DERIVED, /^\|\s*isbn\s*\|.*\n/m, () => ''));
const TITLE_AS_INTEGER = modelOf(
  replaceOnce(LENDING_DESK_DERIVED, /^\|\s*title\s*\|.*$/m, () => '| title | integer | |'),
);

interface Book {
  id: string;
  title: string;
  isbn?: string | null;
  copies: number;
  note?: string | null;
}

// On PostgreSQL too: migrations are each database's own DDL.
describe.each(TEST_DATABASES)('migrations on $name', (database) => {
  let fresh: FreshDatabase;
  beforeEach(async () => {
    fresh = await database.fresh();
  });
  afterEach(async () => {
    await fresh.remove();
  });

  /** Starts the app of `model` on the test database, runs `use`, and stops it. */
  async function withApp<T>(
    model: Model,
    use: (
      request: (
        method: 'GET' | 'POST' | 'PATCH',
        url: string,
        body?: object,
      ) => Promise<{ status: number; body: unknown }>,
    ) => Promise<T>,
    allowDestructive = false,
  ): Promise<T> {
    const server = await createServer({ model, ...fresh.options, logger: false, allowDestructive });
    try {
      const { authorization } = await userWithToken(server);
      return await use(async (method, url, body) => {
        const response = await server.app.inject({
          method,
          url,
          headers: { authorization },
          ...(body ? { payload: body } : {}),
        });
        return { status: response.statusCode, body: response.json() as unknown };
      });
    } finally {
      await server.close();
    }
  }

  async function books(model: Model, allowDestructive = false): Promise<Book[]> {
    return withApp(
      model,
      async (request) => {
        const list = await request('GET', '/api/books?sort=title');
        expect(list.status).toBe(200);
        return (list.body as { items: Book[] }).items;
      },
      allowDestructive,
    );
  }

  /** The base app with two books. */
  async function seed(): Promise<Book[]> {
    return withApp(BASE, async (request) => {
      for (const [title, isbn] of [
        ['Dune', '9780441013593'],
        ['Emma', '9780141439587'],
      ]) {
        const created = await request('POST', '/api/books', { title, isbn, copies: 2 });
        expect(created.status).toBe(201);
      }
      return (await request('GET', '/api/books?sort=title')).body as { items: Book[] };
    }).then((page) => page.items);
  }

  async function refusal(model: Model, allowDestructive = false): Promise<MigrationRefusedError> {
    const error = await createServer({ model, ...fresh.options, logger: false, allowDestructive }).then(
      async (server) => {
        await server.close();
        return null;
      },
      (e: unknown) => e,
    );
    if (!(error instanceof MigrationRefusedError)) throw new Error(`Expected a refusal, got ${String(error)}`);
    return error;
  }

  it('adds a field: every record is kept, old ones read it as empty, new ones store it', async () => {
    const stored = await seed();
    await withApp(WITH_NOTE, async (request) => {
      const list = (await request('GET', '/api/books?sort=title')).body as { items: Book[] };
      expect(list.items.map((b) => [b.id, b.title, b.isbn, b.copies, b.note])).toEqual(
        stored.map((b) => [b.id, b.title, b.isbn, b.copies, null]),
      );
      const created = await request('POST', '/api/books', { title: 'Ulysses', isbn: '9780199535675', note: 'signed' });
      expect(created.status).toBe(201);
      expect((created.body as Book).note).toBe('signed');
    });
  });

  it('adds an entity: it is served beside the records already stored', async () => {
    const stored = await seed();
    await withApp(WITH_AUTHOR, async (request) => {
      const created = await request('POST', '/api/authors', { name: 'Frank Herbert' });
      expect(created.status).toBe(201);
      expect(((await request('GET', '/api/authors')).body as { items: unknown[] }).items).toHaveLength(1);
      expect(((await request('GET', '/api/books?sort=title')).body as { items: Book[] }).items).toEqual(stored);
    });
  });

  it('refuses to remove a field holding values; with the flag the records stay readable and the values come back with the field', async () => {
    const stored = await seed();
    const refused = await refusal(WITHOUT_ISBN);
    expect(refused.blocking.map((s) => [s.kind, s.column, s.rows])).toEqual([['keep-column', 'isbn', 2]]);
    expect(refused.message).toContain('Field Book.isbn was removed; 2 rows hold a value in books.isbn.');
    // Refused means untouched: the old spec is still served as it was.
    expect(await books(BASE)).toEqual(stored);

    const without = await books(WITHOUT_ISBN, true);
    expect(without).toEqual(stored.map(({ isbn: _isbn, ...rest }) => rest));
    // A removed required field no longer blocks new records.
    await withApp(WITHOUT_ISBN, async (request) => {
      expect((await request('POST', '/api/books', { title: 'Ulysses' })).status).toBe(201);
    });
    // The kept column kept every value: back in the spec, they are served again.
    const back = await books(BASE, true);
    expect(back.filter((b) => b.title !== 'Ulysses')).toEqual(stored);
    expect(back.find((b) => b.title === 'Ulysses')?.isbn).toBeNull();
  });

  it('refuses a type change even with the flag, and nothing is lost', async () => {
    const stored = await seed();
    for (const allowDestructive of [false, true]) {
      const refused = await refusal(TITLE_AS_INTEGER, allowDestructive);
      expect(refused.blocking.map((s) => [s.kind, s.safety, s.rows])).toEqual([['change-type', 'refused', 2]]);
    }
    expect(await books(BASE)).toEqual(stored);
  });

  it('refuses a new limit per several fields and month that stored loans already break; with the flag it holds for new ones', async () => {
    const borrower = '0190f3c4-7a2b-7c3d-8e4f-00000000b0b0';
    const lend = (request: Parameters<Parameters<typeof withApp>[1]>[0], book: string, due: string) =>
      request('POST', '/api/loans', { book, borrower, due });
    const [book] = await seed();
    const bookId = String(book?.id);
    const server = await createServer({ model: BASE, ...fresh.options, logger: false });
    await knownUser(server, borrower);
    await server.close();
    await withApp(BASE, async (request) => {
      expect((await lend(request, bookId, '2030-05-10')).status).toBe(201);
      expect((await lend(request, bookId, '2030-05-31')).status).toBe(201);
      expect((await lend(request, bookId, '2030-06-01')).status).toBe(201);
    });
    const limited = modelOf(
      insertRowBefore(
        LENDING_DESK_DERIVED,
        ['loan limit'],
        '| a copy a month | Loan | at most 1 Loan per borrower and book per month of due | LOAN_LIMIT |',
      ),
    );
    const refused = await refusal(limited);
    expect(refused.blocking.map((s) => [s.kind, s.safety, s.rows])).toEqual([['check-rule', 'needs-flag', 2]]);
    expect(refused.message).toContain(
      'Rule "a copy a month" (new) on Loan: at most 1 Loan per borrower and book per month of due, but 1 group with the same borrower, book and month of due already exceeds it (2 rows).',
    );
    await withApp(
      limited,
      async (request) => {
        expect((await lend(request, bookId, '2030-05-20')).status).toBe(409);
        expect((await lend(request, bookId, '2030-06-20')).status).toBe(409);
        expect((await lend(request, bookId, '2030-07-01')).status).toBe(201);
      },
      true,
    );
  });

  it('plans without changing anything', async () => {
    const stored = await seed();
    const store = await openStore(fresh.options);
    try {
      const planned = await store.applySchema(compileSqlSchema(WITHOUT_ISBN), WITHOUT_ISBN, { dryRun: true });
      expect(planned.applied).toBe(false);
      expect(planned.plan.steps.map((s) => s.kind)).toEqual(['keep-column', 'drop-index']);
    } finally {
      await store.close();
    }
    expect(await books(BASE)).toEqual(stored);
  });
});
