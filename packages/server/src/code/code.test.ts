import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, TEST_DATABASES, type TestDatabase } from '../../test/databases.ts';
import { modelOf, tempDir } from '../../test/helpers.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

// SQLite here: the modules call the app's own API, which is the same on both databases; the
// scheduled module's one-runner guarantee on PostgreSQL is the last suite's.
const EXAMPLES = new URL('../../../../examples/', import.meta.url);
const QUOTES = readFileSync(new URL('quotes.md', EXAMPLES), 'utf8');
/** Sunday 1 March 2026, 12:00 in Berlin: the Monday repricing first falls due the next morning. */
const START = Date.parse('2026-03-01T11:00:00Z');

describe('examples/quotes.md: the TypeScript beside the spec, through HTTP', () => {
  const { dbPath, remove } = tempDir();
  let server: NinepointServer;
  let at = START;
  let sales: string;
  let floor: string;
  const call = callAs(() => server);

  beforeAll(async () => {
    server = await createServer({
      model: modelOf(QUOTES),
      dbPath,
      logger: process.env.CODE_TEST_LOG ? undefined : false,
      now: () => at,
      codeFolder: fileURLToPath(EXAMPLES),
    });
    await server.app.ready();
    sales = (await userWithToken(server, ['sales'])).authorization;
    floor = (await userWithToken(server, ['floor'])).authorization;
  });

  afterAll(async () => {
    await server?.close();
    remove();
  });

  const quote = async (quantity: number, product = 'bench') => {
    const created = await call(sales, 'POST', '/api/quotes', { customer: 'Mill Café', product, quantity });
    expect(created.status).toBe(201);
    return created.body as { id: string; total: number | null };
  };

  it('prices a quote with the custom call: the tariff, the volume discount and the discount asked', async () => {
    const { id } = await quote(12);
    const priced = await call(sales, 'POST', `/api/quotes/${id}/price`, { discount: 10 });
    expect(priced.status).toBe(200);
    // 12 benches at 240 €, 5 % off for volume, then 10 % asked: 2462.40 €.
    expect(priced.body).toMatchObject({ id, quantity: 12, discount: 10, total: 2462.4, state: 'draft' });
    const stored = await call(sales, 'GET', `/api/quotes/${id}`);
    expect(stored.body.total).toBe(2462.4);
    // Priced through the spec's own update: the history says who.
    const history = await call(sales, 'GET', `/api/quotes/${id}/history`);
    const entries = history.body.items as { action: string; changes: Record<string, unknown> }[];
    expect(entries.at(-1)).toMatchObject({ action: 'update', changes: { total: 2462.4, discount: 10 } });
  });

  it("refuses from the module with the spec's catalogue error, and with the API's refusals", async () => {
    const { id } = await quote(3);
    const refused = await call(sales, 'POST', `/api/quotes/${id}/price`, { discount: 8 });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      code: 'DISCOUNT_TOO_HIGH',
      detail: 'Under 10 pieces, a discount is at most 5 per cent.',
    });
    // The floor may read quotes but not update them: the module's update is refused as theirs.
    const forbidden = await call(floor, 'POST', `/api/quotes/${id}/price`, {});
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('FORBIDDEN');
    expect((await call(sales, 'GET', `/api/quotes/${id}`)).body.total).toBeNull();
    const missing = await call(sales, 'POST', '/api/quotes/0190a0a0-0000-7000-8000-000000000000/price', {});
    expect(missing.status).toBe(404);
    const wrong = await call(sales, 'POST', `/api/quotes/${id}/price`, { total: 1 });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('INVALID_PAYLOAD');
  });

  it('documents the custom call in the OpenAPI document with the payload and answer the spec declares', async () => {
    const doc = (await call(sales, 'GET', '/api/openapi.json')).body as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    const price = doc.paths['/api/quotes/{id}/price']?.post as {
      operationId: string;
      requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
      responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
    };
    expect(price.operationId).toBe('priceQuote');
    expect(Object.keys(price.requestBody.content['application/json']?.schema.properties ?? {})).toEqual(['discount']);
    expect(price.responses['200']?.content?.['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/Quote',
    });
    expect(Object.keys(price.responses)).toEqual(expect.arrayContaining(['404', '409', '422', '500']));
  });

  it('refuses a create before it is written when the before hook says so: nothing is stored', async () => {
    const before = (await call(sales, 'GET', '/api/quotes')).body.items as unknown[];
    const refused = await call(sales, 'POST', '/api/quotes', { customer: 'Big Hotel', product: 'bench', quantity: 41 });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: 'OUT_OF_STOCK',
      detail: 'The workshop cannot build that many this month.',
    });
    expect(refused.headers['x-request-id']).toBe(refused.body.requestId);
    expect((await call(sales, 'GET', '/api/quotes')).body.items).toHaveLength(before.length);
    // The floor may not create quotes: point 6 answers them, never the stock hook.
    const floors = await call(floor, 'POST', '/api/quotes', { customer: 'Big Hotel', product: 'bench', quantity: 41 });
    expect(floors.body.code).toBe('FORBIDDEN');
    expect(
      (await call(sales, 'POST', '/api/quotes', { customer: 'Big Hotel', product: 'stool', quantity: 41 })).status,
    ).toBe(201);
  });

  it('makes the order of an accepted quote after the accept has committed, as the system', async () => {
    const { id } = await quote(2, 'shelf');
    await call(sales, 'POST', `/api/quotes/${id}/price`, {});
    expect((await call(sales, 'POST', `/api/quotes/${id}/send`)).status).toBe(200);
    expect((await call(sales, 'POST', `/api/quotes/${id}/accept`)).status).toBe(200);
    await server.code?.idle();
    const orders = (await call(floor, 'GET', `/api/orders?filter[quote]=${id}`)).body.items as Record<
      string,
      unknown
    >[];
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ quote: id, total: 240, created_by: 'system' });
  });

  it('prices the drafts again when the Monday job falls due, once', async () => {
    const { id } = await quote(20, 'stool');
    expect((await call(sales, 'GET', `/api/quotes/${id}`)).body.total).toBeNull();
    await server.timers.round();
    expect((await call(sales, 'GET', `/api/quotes/${id}`)).body.total).toBeNull();
    // Monday 2 March, 06:00 in Berlin is 05:00 UTC.
    at = Date.parse('2026-03-02T05:00:30Z');
    const round = await server.timers.round();
    expect(round.jobs).toBe(1);
    const repriced = await call(sales, 'GET', `/api/quotes/${id}`);
    // 20 stools at 65 €, 5 % off for volume.
    expect(repriced.body).toMatchObject({ total: 1235, priced_at: '2026-03-02T05:00:00.000Z' });
    expect((await server.timers.round()).jobs).toBe(0);
  });
});

// The scheduled module on PostgreSQL: the job's due time is taken under the scheduler's lock, so
// two servers on one database run the module once between them.
describe.runIf(POSTGRES_AVAILABLE)(
  "examples/quotes.md's Monday job with two servers on one PostgreSQL database",
  () => {
    it('runs the TypeScript job once between them, and the drafts are priced again', async () => {
      const postgres = TEST_DATABASES.find((d) => d.name === 'postgres') as TestDatabase;
      const fresh = await postgres.fresh();
      let at = START;
      const open = async () => {
        const server = await createServer({
          model: modelOf(QUOTES),
          ...fresh.options,
          logger: false,
          now: () => at,
          codeFolder: fileURLToPath(EXAMPLES),
        });
        await server.app.ready();
        await server.timers.idle();
        return server;
      };
      const one = await open();
      const two = await open();
      try {
        const sales = (await userWithToken(one, ['sales'])).authorization;
        const call = callAs(() => one);
        const created = await call(sales, 'POST', '/api/quotes', {
          customer: 'Mill Café',
          product: 'stool',
          quantity: 20,
        });
        expect(created.status).toBe(201);
        at = Date.parse('2026-03-02T05:00:30Z');
        const reports = await Promise.all([1, 2, 3].flatMap(() => [one.timers.round(), two.timers.round()]));
        expect(reports.reduce((sum, r) => sum + r.jobs, 0)).toBe(1);
        const repriced = await callAs(() => two)(sales, 'GET', `/api/quotes/${created.body.id}`);
        expect(repriced.body).toMatchObject({ total: 1235, priced_at: '2026-03-02T05:00:00.000Z' });
        const history = await call(sales, 'GET', `/api/quotes/${created.body.id}/history`);
        const updates = (history.body.items as { action: string; by: string }[]).filter((e) => e.action === 'update');
        expect(updates).toEqual([expect.objectContaining({ by: 'system' })]);
      } finally {
        await one.close();
        await two.close();
        await fresh.remove();
      }
    });
  },
);
