import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

const PRICES = `# Specification: Prices

## 1. What the product does and for whom

Keeps prices and rates, to the cent and to the basis point.

## 3. Entities and their fields

### Item

| field | type       | rules    |
| ----- | ---------- | -------- |
| name  | text       | required |
| price | decimal(2) |          |
| rate  | decimal(4) |          |
| ratio | decimal    |          |
`;

type Json = Record<string, unknown>;

/**
 * `decimal(N)` values are decimals as people write them: more than N places are refused (0.1 +
 * 0.2 sent as 0.30000000000000004 too), and what is accepted comes back exactly as sent, on both
 * databases (SQLite keeps the double read from JSON; PostgreSQL's NUMERIC the same number's text).
 */
// On PostgreSQL too: each database keeps and sums decimals its own way (REAL in SQLite, numeric in PostgreSQL).
describe.each(TEST_DATABASES)('decimal fields on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let authorization: string;

  const call = async (method: string, url: string, body?: unknown) => {
    const response = await server.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    return { status: response.statusCode, body: (response.body === '' ? {} : response.json()) as Json };
  };

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(PRICES), ...fresh.options, logger: false });
    ({ authorization } = await userWithToken(server));
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('gives back every accepted value exactly as it was sent, in the record and its history', async () => {
    const sent = [
      ['0.1', '0.2'],
      ['0.3', '0.0001'],
      ['1.10', '1.1'],
      ['4999.99', '0.3333'],
      ['-0.01', '-12.5'],
      ['12345678901.23', '99999999999.9999'],
      ['9999999999999.99', '0'],
    ];
    for (const [price, rate] of sent) {
      const created = await call('POST', '/api/items', `{"name":"x","price":${price},"rate":${rate}}`);
      expect(created.status, `${price} ${rate}`).toBe(201);
      const read = await call('GET', `/api/items/${created.body.id}`);
      // The number's shortest text is what was sent (less trailing zeros): nothing was rounded.
      expect(String(read.body.price)).toBe(String(Number(price)));
      expect(String(read.body.rate)).toBe(String(Number(rate)));
      const history = await call('GET', `/api/items/${created.body.id}/history`);
      expect((history.body.items as { changes: Json }[])[0]?.changes).toMatchObject({
        price: read.body.price,
        rate: read.body.rate,
      });
    }
  });

  it('refuses more decimal places than declared, 0.1 + 0.2 included, with the field and the type in words', async () => {
    for (const [body, field] of [
      ['{"name":"x","price":0.30000000000000004}', 'price'],
      ['{"name":"x","price":1.005}', 'price'],
      ['{"name":"x","price":1e-7}', 'price'],
      ['{"name":"x","rate":0.00001}', 'rate'],
    ] as const) {
      const answer = await call('POST', '/api/items', body);
      expect(answer.status, body).toBe(422);
      expect(answer.body.code).toBe('VALIDATION_FAILED');
      const places = field === 'price' ? 2 : 4;
      expect(answer.body.errors, body).toEqual([
        expect.objectContaining({
          field,
          code: 'INVALID_TYPE',
          message: `${field} must be a number with at most ${places} decimal places.`,
        }),
      ]);
    }
  });

  it('refuses an update with too many places and keeps the stored value', async () => {
    const created = await call('POST', '/api/items', { name: 'x', price: 0.1 });
    const url = `/api/items/${created.body.id}`;
    const refused = await call('PATCH', url, '{"price":0.30000000000000004}');
    expect(refused.status).toBe(422);
    expect((await call('GET', url)).body.price).toBe(0.1);
    expect((await call('PATCH', url, '{"price":0.3}')).body.price).toBe(0.3);
  });

  it('refuses a value too large to be read as sent, as out of range', async () => {
    const answer = await call('POST', '/api/items', '{"name":"x","price":90071992547409.91}');
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toEqual([
      expect.objectContaining({
        field: 'price',
        code: 'OUT_OF_RANGE',
        message: 'price must be between -9999999999999.99 and 9999999999999.99.',
      }),
    ]);
  });

  it('leaves a decimal without a scale a plain number', async () => {
    const created = await call('POST', '/api/items', { name: 'x', ratio: 0.1 + 0.2 });
    expect(created.status).toBe(201);
    expect(created.body.ratio).toBe(0.1 + 0.2);
  });
});
