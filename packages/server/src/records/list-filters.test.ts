import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { insertRowBefore, LENDING_DESK_DERIVED, modelOf, replaceOnce } from '../../test/helpers.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

/**
 * The filters a list takes beyond equality: `[contains]` on text, `[from]` and `[to]` on numbers,
 * decimals, dates and date-times (both ends included), and several values of a choice or state.
 */
const SPEC = insertRowBefore(
  LENDING_DESK_DERIVED,
  ['copies', 'integer'],
  [
    '| format   | choice of hardcover, paperback, audio | |',
    '| price    | decimal(2)                            | |',
    '| acquired | datetime                              | |',
    '| bought   | date                                  | |',
  ].join('\n'),
);

type Json = Record<string, unknown>;

// On PostgreSQL too: filters and search become SQL conditions, which each database reads its own way (collation, LIKE, nulls).
describe.each(TEST_DATABASES)('list filters on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let staff: string;
  const call = callAs(() => server);
  const books: Json[] = [];
  let n = 0;

  /** The titles a list answers, in its order, every page followed. */
  const titles = async (query: string): Promise<string[]> => {
    const out: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `/api/books?${query}&sort=title&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const answer = await call(staff, 'GET', url);
      expect(answer.status, `${url} ${JSON.stringify(answer.body)}`).toBe(200);
      out.push(...(answer.body.items as Json[]).map((b) => String(b.title)));
      cursor = answer.body.next as string | null;
    } while (cursor);
    return out;
  };
  const refused = async (query: string) => {
    const answer = await call(staff, 'GET', `/api/books?${query}`);
    expect(answer.status, query).toBe(400);
    return String(answer.body.detail);
  };

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(SPEC), ...fresh.options, logger: false });
    staff = (await userWithToken(server, ['staff'])).authorization;
    const add = async (title: string, extra: Json) => {
      const made = await call(staff, 'POST', '/api/books', {
        title,
        isbn: `978${String(++n).padStart(10, '0')}`,
        ...extra,
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      books.push(made.body);
    };
    await add('Dune', {
      copies: 1,
      format: 'paperback',
      price: 9.99,
      acquired: '2025-01-10T09:00:00Z',
      bought: '2025-01-10',
    });
    await add('Dune Messiah', {
      copies: 3,
      format: 'hardcover',
      price: 25.5,
      acquired: '2025-02-01T00:00:00Z',
      bought: '2025-02-01',
    });
    await add('Children of DUNE', {
      copies: 5,
      format: 'audio',
      price: 12.0,
      acquired: '2025-03-15T18:30:00Z',
      bought: '2025-03-15',
    });
    await add('100% cotton', { copies: 0, price: 3.0 });
    await add('1000 cotton', { copies: 2, format: 'paperback' });
    await add('snake_case', { copies: 4, format: 'hardcover', bought: '2024-12-31' });
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('finds text that contains some text, whatever the case of its letters', async () => {
    expect(await titles('filter[title][contains]=dune')).toEqual(['Children of DUNE', 'Dune', 'Dune Messiah']);
    expect(await titles('filter[title][contains]=MESS')).toEqual(['Dune Messiah']);
    // An empty text is no condition at all.
    expect((await titles('filter[title][contains]=')).length).toBe(books.length);
  });

  it('matches % and _ in a contains filter as themselves, not as wildcards', async () => {
    expect(await titles('filter[title][contains]=%25')).toEqual(['100% cotton']);
    expect(await titles('filter[title][contains]=0%25%20')).toEqual(['100% cotton']);
    expect(await titles('filter[title][contains]=_')).toEqual(['snake_case']);
    expect(await titles('filter[title][contains]=e_c')).toEqual(['snake_case']);
    expect(await titles("filter[title][contains]=x'%20OR%201%3D1%20--")).toEqual([]);
  });

  it('filters whole numbers by a range, both ends included, or from one end only', async () => {
    expect(await titles('filter[copies][from]=2&filter[copies][to]=4')).toEqual([
      '1000 cotton',
      'Dune Messiah',
      'snake_case',
    ]);
    expect(await titles('filter[copies][from]=4')).toEqual(['Children of DUNE', 'snake_case']);
    expect(await titles('filter[copies][to]=0')).toEqual(['100% cotton']);
    expect(await titles('filter[copies][from]=4&filter[copies][to]=2')).toEqual([]);
  });

  it('filters decimals by a range, comparing them as numbers', async () => {
    // As text, "9.99" would come after "25.50".
    expect(await titles('filter[price][from]=9.99&filter[price][to]=12')).toEqual(['Children of DUNE', 'Dune']);
    expect(await titles('filter[price][from]=10')).toEqual(['Children of DUNE', 'Dune Messiah']);
    expect(await titles('filter[price][to]=3')).toEqual(['100% cotton']);
  });

  it('filters dates and date-times by a range, in any time zone the client writes', async () => {
    expect(await titles('filter[bought][from]=2025-01-10&filter[bought][to]=2025-02-01')).toEqual([
      'Dune',
      'Dune Messiah',
    ]);
    expect(await titles('filter[bought][to]=2024-12-31')).toEqual(['snake_case']);
    // 2025-02-01T01:00+01:00 is midnight UTC: Dune Messiah's moment, included.
    expect(await titles('filter[acquired][from]=2025-02-01T01:00:00%2B01:00')).toEqual([
      'Children of DUNE',
      'Dune Messiah',
    ]);
    expect(await titles('filter[acquired][to]=2025-02-01T00:00:00Z')).toEqual(['Dune', 'Dune Messiah']);
  });

  it('takes several values of a choice as any of them, with other filters', async () => {
    expect(await titles('filter[format]=audio&filter[format]=hardcover')).toEqual([
      'Children of DUNE',
      'Dune Messiah',
      'snake_case',
    ]);
    expect(await titles('filter[format]=audio&filter[format]=hardcover&filter[title][contains]=dune')).toEqual([
      'Children of DUNE',
      'Dune Messiah',
    ]);
    const counted = await call(staff, 'GET', '/api/books?filter[format]=paperback&filter[format]=audio&count=true');
    expect(counted.body.total).toBe(3);
  });

  it('takes several states of a record at once', async () => {
    const member = await userWithToken(server, ['member']);
    const loan = async () => {
      const made = await call(staff, 'POST', '/api/loans', {
        book: books[0]?.id,
        borrower: member.user.id,
        due: '2999-01-01',
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      return String(made.body.id);
    };
    const [a, b] = [await loan(), await loan()];
    expect((await call(staff, 'POST', `/api/loans/${b}/return`)).status).toBe(200);
    const ids = async (query: string) =>
      ((await call(staff, 'GET', `/api/loans?${query}`)).body.items as Json[]).map((l) => l.id).sort();
    expect(await ids('filter[state]=out&filter[state]=returned')).toEqual([a, b].sort());
    expect(await ids('filter[state]=returned&filter[state]=overdue')).toEqual([b]);
    expect(await ids('filter[state]=out')).toEqual([a]);
  });

  it('filters by what a field is not, keeping the records with no value', async () => {
    // "100% cotton" has no format: it is not paperback either.
    expect(await titles('filter[format][not]=paperback')).toEqual([
      '100% cotton',
      'Children of DUNE',
      'Dune Messiah',
      'snake_case',
    ]);
    expect(await titles('filter[format][not]=paperback&filter[format][not]=hardcover')).toEqual([
      '100% cotton',
      'Children of DUNE',
    ]);
    expect(await titles('filter[copies][not]=0&filter[copies][to]=2')).toEqual(['1000 cotton', 'Dune']);
  });

  it('filters by whether a field is empty', async () => {
    expect(await titles('filter[format][empty]=true')).toEqual(['100% cotton']);
    expect(await titles('filter[price][empty]=true')).toEqual(['1000 cotton', 'snake_case']);
    expect((await titles('filter[bought][empty]=false')).length).toBe(4);
  });

  it('filters before and after a value, leaving the value itself out', async () => {
    expect(await titles('filter[bought][before]=2025-02-01')).toEqual(['Dune', 'snake_case']);
    expect(await titles('filter[bought][after]=2025-01-10&filter[bought][before]=2025-03-15')).toEqual([
      'Dune Messiah',
    ]);
    expect(await titles('filter[price][after]=12')).toEqual(['Dune Messiah']);
  });

  it('keeps records matching any filter of an or-group, and every group and filter besides', async () => {
    expect(await titles('or[1][format]=audio&or[1][copies][to]=0')).toEqual(['100% cotton', 'Children of DUNE']);
    expect(await titles('or[1][format]=audio&or[1][title][contains]=cotton&filter[copies][from]=1')).toEqual([
      '1000 cotton',
      'Children of DUNE',
    ]);
    // Two groups: (hardcover or no price) and (title has "dune" or bought in 2024).
    expect(
      await titles(
        'or[1][format]=hardcover&or[1][price][empty]=true&or[2][title][contains]=dune&or[2][bought][before]=2025-01-01',
      ),
    ).toEqual(['Dune Messiah', 'snake_case']);
    const counted = await call(staff, 'GET', '/api/books?or[1][format]=audio&or[1][format][empty]=true&count=true');
    expect(counted.body.total).toBe(2);
  });

  it('refuses an or-group or operator it cannot read, naming the parameter', async () => {
    expect(await refused('or[x][format]=audio')).toContain('or[n][field]');
    expect(await refused('or[1][nope]=1')).toContain('names no field to filter by');
    expect(await refused('or[1][copies][contains]=1')).toContain('or[1][copies][contains] is for text fields only');
    expect(await refused('filter[format][empty]=maybe')).toContain('filter[format][empty] must be true or false');
    expect(await refused('filter[title][not]=a&filter[title][not]=b')).toContain('give filter[title][not] once');
    expect(await refused('filter[title][before]=a')).toContain('is for numbers, dates and date-times only');
    const many = Array.from({ length: 11 }, (_, i) => `or[${i}][copies]=${i}`).join('&');
    expect(await refused(many)).toContain('at most 10 or-groups');
  });

  it('refuses a filter that does not fit its field, naming the parameter', async () => {
    expect(await refused('filter[copies][contains]=1')).toContain('filter[copies][contains] is for text fields only');
    expect(await refused('filter[title][from]=a')).toContain(
      'filter[title][from] is for numbers, dates and date-times only',
    );
    expect(await refused('filter[format][from]=audio')).toContain('is for numbers, dates and date-times only');
    expect(await refused('filter[copies][from]=many')).toContain('filter[copies][from] must be a whole number');
    expect(await refused('filter[price][to]=1e3')).toContain('filter[price][to] must be a number');
    expect(await refused('filter[bought][from]=2025-02-30')).toContain('filter[bought][from] must be a date');
    expect(await refused('filter[copies]=1&filter[copies]=2')).toContain('give filter[copies] once');
    expect(await refused('filter[copies][from]=1&filter[copies][from]=2')).toContain('give filter[copies][from] once');
    expect(await refused('filter[format]=audio&filter[format]=scroll')).toContain('filter[format] must be one of');
    expect(await refused('filter[title][between]=a')).toContain('[between] is not a filter');
    expect(await refused('filter[nope][contains]=a')).toContain('filter[nope] names no field to filter by');
  });
});

describe.each(TEST_DATABASES)('list filters on hidden fields, on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  const call = callAs(() => server);

  beforeAll(async () => {
    fresh = await db.fresh();
    // Members read books without their price: filtering by it would tell it.
    const spec = replaceOnce(
      insertRowBefore(LENDING_DESK_DERIVED, ['copies', 'integer'], '| price | decimal(2) | |\n| note | text | |'),
      /^\| member \| read +\|/m,
      (match) => match.replace('read', 'read (title, isbn, copies)'),
    );
    server = await createServer({ model: modelOf(spec), ...fresh.options, logger: false });
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('refuses a range or contains filter on a field the caller may not see, as on a field there is not', async () => {
    const member = (await userWithToken(server, ['member'])).authorization;
    const unknown = await call(member, 'GET', '/api/books?filter[nothing][from]=1');
    expect(unknown.status).toBe(400);
    for (const [query, name] of [
      ['filter[price][from]=1', 'price'],
      ['filter[price][to]=1', 'price'],
      ['filter[note][contains]=a', 'note'],
    ] as const) {
      const answer = await call(member, 'GET', `/api/books?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.detail, query).toBe(String(unknown.body.detail).replace('nothing', name));
    }
    const staff = (await userWithToken(server, ['staff'])).authorization;
    expect((await call(staff, 'GET', '/api/books?filter[price][from]=1&filter[note][contains]=a')).status).toBe(200);
  });
});
