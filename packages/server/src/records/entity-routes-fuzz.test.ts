import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASES } from '../../test/databases.ts';
import { insertRowBefore, LENDING_DESK_DERIVED, modelOf } from '../../test/helpers.ts';
import { knownUser, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import { createAjv } from '../compile/ajv.ts';
import type { Route } from '../compile/route-table.ts';

/** Book grown by optional fields of more types; calls as fast as a fuzzer makes them. */
const SPEC = insertRowBefore(
  insertRowBefore(
    LENDING_DESK_DERIVED,
    ['copies', 'integer'],
    '| format | choice of hardcover, paperback | |\n| note | text | |\n| acquired | datetime | |',
  ),
  ['MAX_LOANS'],
  '| RATE_LIMIT_PER_MINUTE | 1000000 | the fuzzer calls fast |',
);
const USER = '0190f3c4-7a2b-7c3d-8e4f-000000000001';
/** 300 calls under `npm test`, 1500 under `npm run test:reliability` (RELIABILITY=full: e2e/reliability/scale.ts). */
const RUNS = process.env.RELIABILITY === 'full' ? 1500 : 300;

// On PostgreSQL too: fuzzed values reach each database's own types and limits.
describe.each(TEST_DATABASES)('on $name', (db) => {
  describe('every entity call, fuzzed', () => {
    let server: NinepointServer;
    let remove: () => Promise<void>;
    let authorization = '';
    const ids: string[] = [];
    const cursors: string[] = [];

    beforeAll(async () => {
      const temp = await db.fresh();
      remove = temp.remove;
      server = await createServer({ model: modelOf(SPEC), ...temp.options, logger: false });
      ({ authorization } = await userWithToken(server));
      await knownUser(server, USER, ['member']);
      const post = async (url: string, body: object) => {
        const response = await server.app.inject({ method: 'POST', url, payload: body, headers: { authorization } });
        expect(response.statusCode).toBe(201);
        return (response.json() as { id: string }).id;
      };
      for (let n = 0; n < 4; n++) {
        const book = await post('/api/books', {
          title: `Book ${n}`,
          isbn: `978000000000${n}`,
          note: n % 2 ? null : '50%',
        });
        ids.push(book, await post('/api/loans', { book, borrower: USER, due: '2030-01-31' }));
      }
      for (const query of ['limit=1', 'limit=1&sort=-title', 'limit=1&sort=note']) {
        const page = (
          await server.app.inject({ method: 'GET', url: `/api/books?${query}`, headers: { authorization } })
        ).json() as {
          next: string;
        };
        cursors.push(page.next);
      }
    });
    afterAll(async () => {
      await server.close();
      await remove();
    });

    it('never answers 5xx, and answers only documented statuses, codes and shapes', async () => {
      const { routeTable, openapi } = server.compiled;
      // Transition calls are documented but not served until the next slice.
      const routes = routeTable.routes.filter((r) => r.action.kind !== 'transition');
      const ajv = createAjv();
      const checks = new Map(
        routes.map((route) => {
          const operation = openapi.paths[route.openapiPath]?.[route.method.toLowerCase()];
          return [
            route,
            {
              statuses: Object.keys(operation?.responses ?? {}),
              validate: route.success.schema ? ajv.compile(route.success.schema) : null,
            },
          ] as const;
        }),
      );

      const printable = fc.string({ unit: 'grapheme-ascii', maxLength: 12 });
      const anyText = fc.oneof(printable, fc.string({ unit: 'binary', maxLength: 12 }));
      const id = fc.oneof(
        { arbitrary: fc.constantFrom(...ids), weight: 4 },
        fc.uuid(),
        fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 24 }),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 6 }),
      );
      const queryKey = fc.oneof(
        fc.constantFrom(
          'limit',
          'cursor',
          'sort',
          'q',
          'count',
          'filter[title]',
          'filter[copies]',
          'filter[format]',
          'filter[acquired]',
          'filter[book]',
          'filter[due]',
          'filter[state]',
          'filter[nope]',
          'filter[',
          'filter[]',
        ),
        printable,
      );
      const queryValue = fc.oneof(
        anyText,
        fc.constantFrom(
          ...cursors,
          '-title',
          'note',
          '-copies',
          'state',
          '_version',
          '0',
          '1',
          '-1',
          '200',
          '201',
          '1e3',
          'true',
          'false',
          '%',
          '_',
          '\\',
          "' OR 1=1 --",
          '2025-01-01T00:00:00Z',
          '2030-01-31',
          'out',
        ),
        fc.integer().map(String),
        fc.constantFrom(...ids),
      );
      const fieldName = fc.oneof(
        {
          weight: 4,
          arbitrary: fc.constantFrom(
            'title',
            'isbn',
            'copies',
            'format',
            'note',
            'acquired',
            'book',
            'borrower',
            'due',
            'id',
            'state',
            'created_by',
            'created_at',
            '_version',
          ),
        },
        printable,
      );
      const fieldValue = fc.oneof(
        fc.jsonValue({ maxDepth: 2 }),
        anyText,
        fc.integer({ min: -5, max: 60 }),
        fc.double(),
        fc.constantFrom(
          ...ids,
          USER,
          '9780441013593',
          'paperback',
          '2030-01-31',
          '2030-02-30',
          '2025-01-01T10:00:00+02:00',
          '2016-12-31T23:59:60Z',
          null,
        ),
      );
      const bookIds = ids.filter((_, n) => n % 2 === 0);
      const validBook = fc.record(
        {
          title: fc.string({ minLength: 1, maxLength: 20 }),
          isbn: fc.stringMatching(/^97[89][0-9]{10}$/),
          copies: fc.integer({ min: 0, max: 50 }),
          format: fc.constantFrom('hardcover', 'paperback', null),
          note: fc.option(anyText, { nil: null }),
          acquired: fc.constantFrom('2025-01-01T10:00:00+02:00', '2025-06-30T23:59:59.999Z', null),
        },
        { requiredKeys: ['title', 'isbn'] },
      );
      const validLoan = fc.record({
        book: fc.oneof(fc.constantFrom(...bookIds), fc.uuid()),
        borrower: fc.oneof(fc.constant(USER), fc.uuid()),
        due: fc.constantFrom('2030-01-31', '2024-02-29'),
      });
      /** A body for an entity: mostly valid, often with one field changed to anything, sometimes anything at all. */
      const bodyFor = (entity: string) =>
        fc.oneof(
          {
            weight: 6,
            arbitrary: fc
              .tuple(
                entity === 'Book' ? validBook : validLoan,
                fc.option(fc.tuple(fieldName, fieldValue), { nil: undefined }),
              )
              .map(([valid, change]) => JSON.stringify(change ? { ...valid, [change[0]]: change[1] } : valid)),
          },
          fc.dictionary(fieldName, fieldValue, { maxKeys: 6 }).map((b) => JSON.stringify(b)),
          fc.jsonValue({ maxDepth: 2 }).map((b) => JSON.stringify(b)),
          printable,
        );
      const ifMatch = fc.option(fc.oneof(fc.constantFrom('"1"', '"2"', '*', 'W/"1"'), printable), {
        nil: undefined,
        freq: 2,
      });

      await fc.assert(
        fc.asyncProperty(
          fc
            .constantFrom(...routes)
            .chain((route) =>
              fc.tuple(
                fc.constant(route),
                id,
                fc.array(fc.tuple(queryKey, queryValue), { maxLength: 4 }),
                fc.option(bodyFor(route.action.entity), { nil: undefined, freq: 5 }),
                ifMatch,
              ),
            ),
          async ([route, recordId, query, payload, match]: [
            Route,
            string,
            [string, string][],
            string | undefined,
            string | undefined,
          ]) => {
            const param = route.params[0];
            const path = param ? route.path.replace(`:${param}`, encodeURIComponent(recordId)) : route.path;
            const search = new URLSearchParams(query).toString();
            const url = search ? `${path}?${search}` : path;
            const withBody = payload !== undefined && route.method !== 'GET';
            const response = await server.app.inject({
              method: route.method,
              url,
              headers: {
                authorization,
                ...(withBody ? { 'content-type': 'application/json' } : {}),
                ...(match !== undefined ? { 'if-match': match } : {}),
              },
              ...(withBody ? { payload } : {}),
            });
            const where = `${route.method} ${url} ${withBody ? payload : ''} → ${response.statusCode} ${response.body}`;
            const check = checks.get(route);
            expect(response.statusCode, where).toBeLessThan(500);
            expect(check?.statuses, where).toContain(String(response.statusCode));
            if (response.statusCode >= 400) {
              expect(response.headers['content-type'], where).toBe('application/problem+json; charset=utf-8');
              const problem = response.json() as { code: string; status: number; detail: string };
              expect(problem.status, where).toBe(response.statusCode);
              expect(route.errors, where).toContain(problem.code);
              expect(problem.detail, where).not.toMatch(/SQLITE|SELECT|constraint|at .*\.ts/i);
            } else if (check?.validate) {
              const valid = check.validate(response.json());
              expect(valid, `${where} ${JSON.stringify(check.validate.errors)}`).toBe(true);
            } else {
              expect(response.body, where).toBe('');
            }
          },
        ),
        { numRuns: RUNS },
      );

      // Still whole afterwards: every list answers.
      for (const path of ['/api/books', '/api/loans']) {
        expect((await server.app.inject({ method: 'GET', url: path, headers: { authorization } })).statusCode).toBe(
          200,
        );
      }
    });
  });
});
