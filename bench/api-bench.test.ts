// The API benchmark, proven to work: on each database both servers answer the same calls the same
// way, and the harness runs every case (one short round on a small table, json-server alongside
// on SQLite) and reports it. PostgreSQL is skipped with a printed reason when it does not answer,
// except with CI=true (packages/server/test/databases.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL } from '../packages/server/test/databases.ts';
import {
  type ApiBenchOptions,
  type ApiBenchReport,
  type BenchServers,
  benchApi,
  customerId,
  type Database,
  DEFAULT_API_OPTIONS,
  formatApiReport,
  orderBody,
  orderId,
  type RunningServer,
  verdictOf,
} from './api-bench.ts';

const ROWS = 300;
const DATABASES: Database[] = POSTGRES_AVAILABLE || process.env.CI === 'true' ? ['sqlite', 'postgres'] : ['sqlite'];

describe.each(DATABASES)('the API benchmark on %s', (database) => {
  /**
   * One run of the harness per database: the comparisons below run on its own servers while it
   * waits (`serversUp`), before it loads them; the last test lets it go on and checks its report.
   */
  const options: ApiBenchOptions = {
    ...DEFAULT_API_OPTIONS,
    // A fixed count of calls rather than a time: every case runs and reports, and none is left
    // without an answer on a busy machine; how fast each is belongs to `npm run bench`.
    calls: 40,
    warmupSeconds: 0,
    rounds: 1,
    connections: 10,
    rows: ROWS,
    seriesRows: [ROWS],
    pin: false,
    ceiling: false,
    databases: [database],
    postgresUrl: TEST_POSTGRES_URL,
    jsonServer: database === 'sqlite',
    startupRuns: 0,
    log: () => {},
  };
  let up: BenchServers | undefined;
  let run: Promise<ApiBenchReport> | undefined;
  /** Lets the harness go on from `serversUp` to its load runs. */
  let goOn: () => void = () => {};
  const servers = () => {
    if (!up?.floor || !up.visitor || !up.session) throw new Error('the servers did not start');
    return { ...up, floor: up.floor, visitor: up.visitor, session: up.session };
  };

  // Seeding and starting the servers took past 60 s beside the server files under load 27, and one
  // server's start alone past 60 s on the slow day (2026-11-28).
  beforeAll(async () => {
    const held = new Promise<void>((resolve) => {
      goOn = resolve;
    });
    const started = new Promise<BenchServers>((resolve, reject) => {
      run = benchApi({
        ...options,
        serversUp: async (servers) => {
          resolve(servers);
          await held;
        },
      });
      run.then(() => reject(new Error('the harness ended without starting its servers')), reject);
    });
    up = await started;
  }, 600_000);

  afterAll(async () => {
    goOn();
    await run?.catch(() => {});
  }, 600_000);

  /** A call with the benchmark user's token, another token, or (null) no credential at all. */
  const call = async (
    server: RunningServer,
    path: string,
    init: RequestInit = {},
    token: string | null = servers().seeded.token,
  ) => {
    const response = await fetch(`${server.url}${path}`, {
      ...init,
      headers: {
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        'content-type': 'application/json',
        ...init.headers,
      },
    });
    const text = await response.text();
    return { status: response.status, etag: response.headers.get('etag'), body: text ? JSON.parse(text) : null };
  };
  const both = async (path: string, init?: RequestInit, token?: string) =>
    Promise.all([call(servers().generated, path, init, token), call(servers().baseline, path, init, token)]);

  /** The reads every server answers alike: a get, the first page, a page from the middle. */
  const READS = () => [
    `/api/orders/${orderId(7)}`,
    '/api/orders',
    `/api/orders?cursor=${servers().seeded.middleCursor}`,
  ];

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
    const [middleG, middleB] = await both(`/api/orders?cursor=${servers().seeded.middleCursor}`);
    expect(middleG.body.items[0].id).toBe(orderId(ROWS / 2 + 1));
    expect(middleB).toEqual(middleG);
  });

  it('has the floor (no token, no rate limit) answer the same reads as the generated server', async () => {
    const { floor: least } = servers();
    for (const path of READS()) {
      const [g] = await both(path);
      expect(await call(least, path)).toEqual(g);
      // Without a token too: the floor asks for none.
      expect(await call(least, path, {}, null)).toEqual(g);
    }
  });

  it('has the visitor server answer the reads with no credential as the floor does, and refuse a create with 401', async () => {
    const { visitor, floor: least } = servers();
    for (const path of READS()) {
      const [g] = await both(path);
      expect(g.status).toBe(200);
      expect(await call(visitor, path, {}, null)).toEqual(g);
      expect(await call(least, path, {}, null)).toEqual(g);
    }
    // The same call refused by the spec as it is: point 6 not shown lets visitors do nothing.
    expect((await call(servers().generated, `/api/orders/${orderId(7)}`, {}, null)).status).toBe(401);
    const shipBy = new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10);
    const create = await call(
      visitor,
      '/api/orders',
      { method: 'POST', body: JSON.stringify(orderBody(902_001, shipBy)) },
      null,
    );
    expect(create.status).toBe(401);
    expect(create.body.code).toBe('NOT_SIGNED_IN');
  });

  it('has the session server answer the reads to the signed-in cookie as the generated server does to the token', async () => {
    const { session } = servers();
    expect(session.cookie).toMatch(/^np_session=nps_/);
    for (const path of READS()) {
      const [g] = await both(path);
      const signedIn = await call(session, path, { headers: { cookie: session.cookie } }, null);
      expect(signedIn.status).toBe(200);
      expect(signedIn).toEqual(g);
    }
    // Without the cookie the same server answers a visitor: not signed in.
    expect((await call(session, `/api/orders/${orderId(7)}`, {}, null)).status).toBe(401);
  });

  it('creates the same record with its history row, and refuses the same bodies', async () => {
    const shipBy = new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10);
    const { generated, baseline } = servers();
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

  it(`runs every case and reports the table${database === 'sqlite' ? ', json-server alongside' : ''}`, async () => {
    goOn();
    const report = await (run as Promise<ApiBenchReport>);
    expect(report.operations.map((o) => o.operation)).toEqual(['get', 'list', 'list-deep', 'create']);
    for (const o of report.operations) {
      expect(o.database).toBe(database);
      expect(o.generated.rps).toBeGreaterThan(0);
      expect(o.baseline.rps).toBeGreaterThan(0);
      expect(o.ratio).toBeGreaterThan(0);
      // The default configuration, request logs on: one line per answer. Every run sends a fixed
      // count of calls, each answered before the run ends, so none is left unanswered.
      expect(o.served).not.toBeNull();
      expect(o.served?.measurement.requests).toBeGreaterThan(0);
      if (o.served) {
        const { requests } = o.served.measurement;
        expect(o.served.linesPerRequest).toBeGreaterThanOrEqual(0.95);
        const lines = Math.round(o.served.linesPerRequest * requests);
        expect(lines).toBeLessThanOrEqual(Math.max(2 * requests - 1, requests + 10));
      }
    }
    expect(report.series).toHaveLength(2);
    const markdown = formatApiReport(report, 'npm test');
    const label = database === 'sqlite' ? 'SQLite' : 'PostgreSQL';
    expect(markdown).toContain(`| ${label} | \`POST /api/orders\` (insert + history row) | 300 |`);
    expect(markdown).toMatch(
      new RegExp(`Target on ${label}: generated ≥ 0\\.7× the hand-written throughput on each call — (met|NOT met)`),
    );
    expect(markdown).toContain('| database | call | served req/s |');
    expect(markdown).toContain('| database | call | floor req/s | floor CPU µs/req |');
    // Like the served server's: present on every call (a half-second run may get no answer on a loaded machine).
    for (const o of report.operations) expect(o.floor).not.toBeNull();
    // The visitor and the session on the reads of issue 31 only, against the floor of the same rounds.
    const callers = report.operations.map((o) => [o.operation, o.visitor !== null, o.session !== null]);
    expect(callers).toEqual([
      ['get', true, true],
      ['list', true, true],
      ['list-deep', false, false],
      ['create', false, false],
    ]);
    for (const o of report.operations.filter((o) => o.visitor !== null)) {
      for (const caller of [o.visitor, o.session]) {
        expect(caller?.measurement.requests).toBeGreaterThan(0);
        expect(caller?.ratio).toBeGreaterThan(0);
      }
    }
    expect(markdown).toContain(
      '| visitor req/s | visitor CPU µs/req | visitor ÷ floor CPU | visitor ÷ floor req/s | session req/s |',
    );
    for (const who of ['A visitor', 'A session']) {
      const target = new RegExp(
        `${who}'s call on SQLite against the floor: CPU ≤ 1\\.25× and throughput ≥ 0\\.8× on get and list — (met|NOT met)`,
      );
      if (database === 'sqlite') expect(markdown).toMatch(target);
      else expect(markdown).not.toMatch(target);
    }
    const durable = report.operations.filter((o) => o.durable !== null).map((o) => o.operation);
    expect(durable).toEqual(database === 'sqlite' ? ['create'] : []);
    if (database === 'sqlite')
      expect(markdown).toMatch(/with `--sqlite-synchronous full` .* the default `synchronous=NORMAL`/);
    expect(markdown).toMatch(
      new RegExp(
        `Request logs on ${label}: the default \`serve\` within 10% of logging off on each call — (met|NOT met)`,
      ),
    );
    expect(verdictOf(report).listGrowth).toEqual([]);
    if (database === 'sqlite') {
      expect(report.peers.map((p) => [p.operation, p.rows])).toEqual([
        ['get', ROWS],
        ['list', ROWS],
        ['list-deep', ROWS],
        ['create', ROWS],
      ]);
      for (const p of report.peers) expect(p.jsonServer.rps).toBeGreaterThan(0);
      expect(markdown).toContain('json-server 0.17.4');
      expect(report.memory.map((m) => m.server)).toEqual(['generated', 'baseline', 'json-server', 'json-server']);
    } else {
      expect(report.peers).toEqual([]);
      expect(report.postgres).toMatch(/^PostgreSQL \d+/);
    }
    // Five servers start and take turns on four calls (json-server too, on SQLite): on a shared,
    // loaded machine that is more than the project's three minutes for one test.
  }, 600_000);
});
