// The API benchmark, proven to work: both servers answer the same calls the same way, and the
// harness runs every case (one short round on a small table) and reports it.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  benchApi,
  customerId,
  formatApiReport,
  orderBody,
  orderId,
  type RunningServer,
  type SeededDatabase,
  seedDatabase,
  startServer,
  verdictOf,
} from './api-bench.ts';

const ROWS = 300;

describe('the API benchmark', () => {
  let dir: string;
  let seeded: SeededDatabase;
  let generated: RunningServer;
  let baseline: RunningServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(os.tmpdir(), 'ninepoint-api-bench-test-'));
    seeded = await seedDatabase(join(dir, 'orders.db'), ROWS);
    [generated, baseline] = await Promise.all([
      startServer('generated', seeded.path, { pin: false }),
      startServer('baseline', seeded.path, { pin: false }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([generated?.stop(), baseline?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (server: RunningServer, path: string, init: RequestInit = {}, token = seeded.token) => {
    const response = await fetch(`${server.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
    });
    const text = await response.text();
    return { status: response.status, etag: response.headers.get('etag'), body: text ? JSON.parse(text) : null };
  };
  const both = async (path: string, init?: RequestInit, token?: string) =>
    Promise.all([call(generated, path, init, token), call(baseline, path, init, token)]);

  it('gets, lists and pages the same records with the same ETag and cursors', async () => {
    const [g, b] = await both(`/api/orders/${orderId(7)}`);
    expect(g.status).toBe(200);
    expect(b).toEqual(g);
    expect(g.etag).toBe('"1"');
    expect(Object.keys(g.body)).toEqual([
      'id',
      'created_at',
      'updated_at',
      'created_by',
      'customer',
      'number',
      'item',
      'quantity',
      'unit_price',
      'ordered_on',
      'ship_by',
      'express',
      'note',
    ]);

    const [firstG, firstB] = await both('/api/orders');
    expect(firstG.body.items).toHaveLength(50);
    expect(firstB).toEqual(firstG);
    const [nextG, nextB] = await both(`/api/orders?cursor=${firstG.body.next}`);
    expect(nextG.body.items[0].id).toBe(orderId(51));
    expect(nextB).toEqual(nextG);
    const [middleG, middleB] = await both(`/api/orders?cursor=${seeded.middleCursor}`);
    expect(middleG.body.items[0].id).toBe(orderId(ROWS / 2 + 1));
    expect(middleB).toEqual(middleG);
  });

  it('creates the same record with its history row, and refuses the same bodies', async () => {
    const shipBy = new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10);
    const [g, b] = await Promise.all([
      call(generated, '/api/orders', { method: 'POST', body: JSON.stringify(orderBody(900_001, shipBy)) }),
      call(baseline, '/api/orders', { method: 'POST', body: JSON.stringify(orderBody(901_001, shipBy)) }),
    ]);
    expect([g.status, b.status]).toEqual([201, 201]);
    expect([g.etag, b.etag]).toEqual(['"1"', '"1"']);
    // Apart from what differs by design (ids, times, the fields made from the order's number).
    const comparable = (record: Record<string, unknown>) => {
      const { id, created_at, updated_at, number, item, note, ...rest } = record;
      return rest;
    };
    expect(Object.keys(b.body)).toEqual(Object.keys(g.body));
    expect(comparable(b.body)).toEqual(comparable(g.body));
    expect(g.body.created_by).toEqual(expect.any(String));
    expect(b.body.created_by).toBe(g.body.created_by);
    // Each reads the other's record: same table, same shape, history written alongside.
    const [crossG, crossB] = await both(`/api/orders/${b.body.id}`);
    expect(crossG.body).toEqual(b.body);
    expect(crossB.body).toEqual(b.body);
    const history = await call(generated, `/api/orders/${b.body.id}/history`);
    expect(history.body.items).toMatchObject([{ action: 'create', by: g.body.created_by }]);

    const valid = orderBody(900_003, shipBy);
    const refused: Record<string, unknown>[] = [
      { ...valid, unit_price: 1.234 },
      { ...valid, number: 'ORD-12' },
      { ...valid, quantity: 0 },
      { ...valid, surprise: true },
      { ...valid, ship_by: '2001-01-01' },
      { ...valid, customer: customerId(999_999) },
      (({ item, ...rest }) => rest)(valid),
    ];
    for (const body of refused) {
      const [rg, rb] = await both('/api/orders', { method: 'POST', body: JSON.stringify(body) });
      expect({ body, status: rb.status }).toEqual({ body, status: rg.status });
      expect(rg.status).toBeGreaterThanOrEqual(400);
    }
    const [unknownG, unknownB] = await both(`/api/orders/${orderId(ROWS + 1000)}`);
    expect([unknownG.status, unknownB.status]).toEqual([404, 404]);
    const [anonG, anonB] = await both('/api/orders', {}, 'npt_not-a-token');
    expect([anonG.status, anonB.status]).toEqual([401, 401]);
  });

  it('runs every case and reports the table', async () => {
    const report = await benchApi({
      seconds: 1,
      warmupSeconds: 0,
      rounds: 1,
      connections: 10,
      rows: ROWS,
      seriesRows: [ROWS],
      pin: false,
      ceiling: false,
      log: () => {},
    });
    expect(report.operations.map((o) => o.operation)).toEqual(['get', 'list', 'list-deep', 'create']);
    for (const o of report.operations) {
      expect(o.generated.rps).toBeGreaterThan(0);
      expect(o.baseline.rps).toBeGreaterThan(0);
      expect(o.ratio).toBeGreaterThan(0);
    }
    expect(report.series).toHaveLength(2);
    const markdown = formatApiReport(report, 'npm test');
    expect(markdown).toContain('| `POST /api/orders` (insert + history row) | 300 |');
    expect(markdown).toMatch(/Target: generated ≥ 0\.7× the hand-written throughput on each call — (met|NOT met)/);
    expect(verdictOf(report).listGrowth).toBeNull();
  });
});
