// The HTTP API benchmark: autocannon on loopback against the generated API (createServer on
// api-bench.spec.md) and a hand-written Fastify + better-sqlite3 server doing the same work
// (api-baseline.ts), in the same run, on the same database file. Each server runs in its own
// process pinned to CPU 0; this process, which seeds the data and generates the load, pins itself
// to CPU 1 (when `taskset` exists and there are two CPUs).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createServer, encodeCursor, SqliteStore } from '@ninepoint/server';
import { checkSpec, type Model } from '@ninepoint/spec';
import autocannon from 'autocannon';

export type ServerKind = 'generated' | 'baseline' | 'bare';
export type Operation = 'get' | 'list' | 'list-deep' | 'create';

export interface ApiBenchOptions {
  /** Measured seconds of one run of one server on one call. */
  seconds: number;
  /** Unmeasured seconds each server gets on each call first. */
  warmupSeconds: number;
  /**
   * Runs per server and call, the order alternating (A B, B A, …) so drift hits both alike. A
   * server's figures are the medians of its runs; the ratio is the median of the rounds' ratios.
   */
  rounds: number;
  connections: number;
  /** The table the servers are compared on. */
  rows: number;
  /** Table sizes of the list-latency series. */
  seriesRows: number[];
  /** Pin the servers to CPU 0 and this process to CPU 1 (when possible). */
  pin: boolean;
  /** Also measure a bare node:http server: the most the load generator can measure here. */
  ceiling: boolean;
  /** Where the database files go (default: a new folder under the OS temp dir, removed after). */
  dir?: string;
  /** When set, the servers run with `--cpu-prof` and write their profiles here. */
  cpuProfDir?: string;
  /** Only these calls (default: all four; the series runs the list calls among them). */
  operations?: Operation[];
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
}

export const DEFAULT_API_OPTIONS: ApiBenchOptions = {
  seconds: 2,
  warmupSeconds: 2,
  rounds: 4,
  connections: 100,
  rows: 100_000,
  seriesRows: [1_000, 100_000, 1_000_000],
  pin: true,
  ceiling: true,
};

/**
 * The options, with `BENCH_SECONDS`, `BENCH_WARMUP_SECONDS`, `BENCH_ROUNDS`, `BENCH_CONNECTIONS`,
 * `BENCH_ROWS`, `BENCH_SERIES_ROWS` and `BENCH_OPERATIONS` (comma-separated) and `BENCH_CPU_PROF`
 * (a folder) read from the environment.
 */
export function apiOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): ApiBenchOptions {
  const number = (name: string, fallback: number): number => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    const value = Number(text);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not "${text}".`);
    return value;
  };
  const series = env.BENCH_SERIES_ROWS;
  return {
    ...DEFAULT_API_OPTIONS,
    seconds: number('BENCH_SECONDS', DEFAULT_API_OPTIONS.seconds),
    warmupSeconds: number('BENCH_WARMUP_SECONDS', DEFAULT_API_OPTIONS.warmupSeconds),
    rounds: Math.round(number('BENCH_ROUNDS', DEFAULT_API_OPTIONS.rounds)),
    connections: Math.round(number('BENCH_CONNECTIONS', DEFAULT_API_OPTIONS.connections)),
    rows: Math.round(number('BENCH_ROWS', DEFAULT_API_OPTIONS.rows)),
    seriesRows: series ? series.split(',').map((s) => rowsOf(s)) : DEFAULT_API_OPTIONS.seriesRows,
    ...(env.BENCH_CPU_PROF ? { cpuProfDir: env.BENCH_CPU_PROF } : {}),
    ...(env.BENCH_OPERATIONS ? { operations: operationsOf(env.BENCH_OPERATIONS) } : {}),
  };
}

const OPERATIONS: readonly Operation[] = ['get', 'list', 'list-deep', 'create'];

/** A table size as written in BENCH_SERIES_ROWS: `1000000` or `1_000_000`. */
function rowsOf(text: string): number {
  const rows = Number(text.trim().replaceAll('_', ''));
  if (!Number.isSafeInteger(rows) || rows < 1) throw new Error(`BENCH_SERIES_ROWS: "${text}" is not a number of rows.`);
  return rows;
}

function operationsOf(text: string): Operation[] {
  const named = text.split(',').map((s) => s.trim());
  const unknown = named.filter((n) => !(OPERATIONS as readonly string[]).includes(n));
  if (unknown.length > 0)
    throw new Error(`BENCH_OPERATIONS names ${unknown.join(', ')}; the calls are ${OPERATIONS.join(', ')}.`);
  return named as Operation[];
}

/** The environment variables that changed the options, for the command line that reproduces a run. */
export function benchEnvOf(env: NodeJS.ProcessEnv = process.env): string {
  const names = [
    'BENCH_SECONDS',
    'BENCH_WARMUP_SECONDS',
    'BENCH_ROUNDS',
    'BENCH_CONNECTIONS',
    'BENCH_ROWS',
    'BENCH_SERIES_ROWS',
    'BENCH_OPERATIONS',
  ];
  return names
    .filter((n) => env[n])
    .map((n) => `${n}=${env[n]} `)
    .join('');
}

export interface Measurement {
  /** Responses per second. */
  rps: number;
  /** Latency percentiles, in ms. */
  p50: number;
  p99: number;
  requests: number;
  /**
   * CPU time (user + system) the server process spent per response, in µs; null where `/proc`
   * is missing. Steadier than req/s on a shared machine: other tenants slow the server down but
   * hardly change what one request costs it.
   */
  cpuUs: number | null;
}

export interface OperationResult {
  operation: Operation;
  rows: number;
  generated: Measurement;
  baseline: Measurement;
  /** generated ÷ hand-written throughput. */
  ratio: number;
  /** hand-written ÷ generated CPU time per request (the same sense: below 1, the generated costs more). */
  cpuRatio: number | null;
}

export interface ApiBenchReport {
  options: ApiBenchOptions;
  startedAt: Date;
  machine: string;
  pinned: boolean;
  /** The bare node:http server under the get pattern: what the load generator can drive. */
  ceiling: Measurement | null;
  /** Every call at `options.rows`. */
  operations: OperationResult[];
  /** The list calls at every size of the series. */
  series: OperationResult[];
  /** Seconds to seed each table size. */
  seedSeconds: Map<number, number>;
}

/** What a generated server must reach, as a share of the hand-written one's throughput. */
export const TARGET_RATIO = 0.7;
/** Below this share `npm run bench` fails: a regression. */
export const GUARD_RATIO = 0.5;
/** The deepest list latency may be this many times the shallowest and still count as flat. */
export const FLAT_LATENCY_FACTOR = 1.5;

export const OPERATION_LABELS: Record<Operation, string> = {
  get: '`GET /api/orders/:id` (a random one)',
  list: '`GET /api/orders` (first page of 50)',
  'list-deep': '`GET /api/orders?cursor=…` (page of 50 from the middle)',
  create: '`POST /api/orders` (insert + history row)',
};

const SPEC_PATH = new URL('./api-bench.spec.md', import.meta.url);
const SERVER_SCRIPT = new URL('./api-server.ts', import.meta.url).pathname;
/** Seeded timestamps start here (2025-01-01T00:00:00Z), one second apart. */
const SEED_EPOCH = 1_735_689_600;
const CUSTOMERS = 1_000;

/** The checked model of the benchmark's spec. */
export function benchModel(): Model {
  const { model, ok, diagnostics } = checkSpec(readFileSync(SPEC_PATH, 'utf8'));
  if (!ok) throw new Error(`bench/api-bench.spec.md has errors: ${diagnostics[0]?.message}`);
  return model;
}

export const orderId = (i: number): string => `01900000-0000-7000-8000-${i.toString(16).padStart(12, '0')}`;
export const customerId = (i: number): string => `00000000-0000-7000-8000-${i.toString(16).padStart(12, '0')}`;

export interface SeededDatabase {
  path: string;
  orders: number;
  /** The list cursor positioned at the middle row, in the generated API's format. */
  middleCursor: string;
  /** An API token of the benchmark's user: every request carries it. */
  token: string;
}

/**
 * Lays out the database with the generated server itself (`createServer` migrates it and makes
 * its user tables), adds a user with an API token, then fills the tables with SQL in one
 * transaction: 1,000 customers and `orders` orders, one second apart, each referring to a customer.
 */
export async function seedDatabase(path: string, orders: number): Promise<SeededDatabase> {
  const server = await createServer({ model: benchModel(), dbPath: path, logger: false });
  try {
    const { store } = server;
    if (!(store instanceof SqliteStore)) throw new Error('the API benchmark runs on SQLite');
    const { db } = store;
    const user = await server.auth.addUser({
      id: randomUUID(),
      email: 'bench@example.com',
      name: 'Benchmark',
      roles: [],
      // Never signs in with a password: the token is all it uses.
      passwordHash: 'none',
      createdAt: new Date().toISOString(),
    });
    if (!user) throw new Error(`${path} has a benchmark user already: seed a new file`);
    // The format `ninepoint` gives tokens (`npt_` + 256 random bits); the database keeps its SHA-256.
    const token = `npt_${randomBytes(32).toString('base64url')}`;
    await server.auth.createToken({
      id: randomUUID(),
      userId: user.id,
      name: 'api benchmark',
      hash: createHash('sha256').update(token).digest('hex'),
      now: Date.now(),
    });
    // Seeding only: a crash leaves a file the benchmark throws away anyway.
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -262144');
    const seq = 'WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)';
    const at = `strftime('%Y-%m-%dT%H:%M:%fZ', ${SEED_EPOCH} + i, 'unixepoch')`;
    db.transaction(() => {
      db.prepare(
        `${seq} INSERT INTO "customers" ("id", "created_at", "updated_at", "created_by", "_version", "name", "email")
         SELECT printf('00000000-0000-7000-8000-%012x', i), ${at}, ${at}, NULL, 1, 'Customer ' || i, 'buyer' || i || '@example.com' FROM seq`,
      ).run(CUSTOMERS);
      db.prepare(
        `${seq}, o(i, at) AS (SELECT i, ${at} FROM seq)
         INSERT INTO "orders" ("id", "created_at", "updated_at", "created_by", "_version", "customer", "number", "item",
           "quantity", "unit_price", "ordered_on", "ship_by", "express", "note")
         SELECT printf('01900000-0000-7000-8000-%012x', i), at, at, NULL, 1,
           printf('00000000-0000-7000-8000-%012x', (i * 7919) % ${CUSTOMERS} + 1), printf('ORD-%08d', i),
           'Widget model ' || (i % 997) || ', boxed', 1 + i % 50, ((i * 37) % 99999 + 1) / 100.0,
           substr(at, 1, 10), date(at, '+7 days'), i % 5 = 0,
           CASE WHEN i % 3 = 0 THEN 'Leave at the loading bay.' END
         FROM o`,
      ).run(orders);
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
    const middle = Math.max(1, Math.ceil(orders / 2));
    const row = db
      .prepare<[string], { created_at: string; id: string }>('SELECT "created_at", "id" FROM "orders" WHERE "id" = ?')
      .get(orderId(middle));
    if (!row) throw new Error(`seeding ${orders} orders left no order ${middle}`);
    return { path, orders, middleCursor: encodeCursor('created_at', { value: row.created_at, id: row.id }), token };
  } finally {
    await server.close();
  }
}

export interface RunningServer {
  kind: ServerKind;
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Whether the servers and the load generator can each have a CPU of their own. */
export function canPin(): boolean {
  return os.cpus().length >= 2 && spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;
}

/** Starts one server (api-server.ts) in its own process, optionally pinned to CPU 0. */
export async function startServer(
  kind: ServerKind,
  dbPath: string,
  options: { pin: boolean; cpuProfDir?: string; profileName?: string },
): Promise<RunningServer> {
  const node = [
    ...(options.cpuProfDir
      ? [
          '--cpu-prof',
          `--cpu-prof-dir=${options.cpuProfDir}`,
          `--cpu-prof-name=${options.profileName ?? kind}.cpuprofile`,
        ]
      : []),
    SERVER_SCRIPT,
    kind,
    dbPath,
  ];
  const child: ChildProcess = options.pin
    ? spawn('taskset', ['-c', '0', process.execPath, ...node], { stdio: ['pipe', 'pipe', 'inherit'] })
    : spawn(process.execPath, node, { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const first = new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    void exited.then((code) => reject(new Error(`the ${kind} server exited (${code}) before it listened`)));
    setTimeout(() => reject(new Error(`the ${kind} server did not start within 60 s`)), 60_000).unref();
  });
  let started: { url: string; pid: number };
  try {
    started = JSON.parse(await first) as { url: string; pid: number };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    kind,
    url: started.url,
    pid: started.pid,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
      lines.close();
    },
  };
}

let created = 0;

/** The request autocannon sends for one call, with a fresh id or body each time where it matters. */
export function requestFor(operation: Operation, seeded: SeededDatabase): autocannon.Request {
  const headers = { authorization: `Bearer ${seeded.token}` };
  switch (operation) {
    case 'get':
      return {
        method: 'GET',
        path: `/api/orders/${orderId(1)}`,
        headers,
        setupRequest: (request) => {
          request.path = `/api/orders/${orderId(1 + Math.floor(Math.random() * seeded.orders))}`;
          return request;
        },
      };
    case 'list':
      return { method: 'GET', path: '/api/orders', headers };
    case 'list-deep':
      return { method: 'GET', path: `/api/orders?cursor=${seeded.middleCursor}`, headers };
    case 'create': {
      // Two weeks ahead: later than `ordered_on` (today) whenever the run ends.
      const shipBy = new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10);
      return {
        method: 'POST',
        path: '/api/orders',
        headers: { ...headers, 'content-type': 'application/json' },
        setupRequest: (request) => {
          request.body = JSON.stringify(orderBody(++created, shipBy));
          return request;
        },
      };
    }
  }
}

/** A valid create body; `n` makes its order number unique (seeded numbers have 8 digits, these 10). */
export function orderBody(n: number, shipBy: string): Record<string, unknown> {
  return {
    customer: customerId(1 + (n % CUSTOMERS)),
    number: `ORD-${1_000_000_000 + n}`,
    item: `Widget model ${n % 997}, boxed`,
    quantity: 1 + (n % 50),
    unit_price: 19.99,
    ship_by: shipBy,
    express: n % 5 === 0,
    note: n % 3 === 0 ? 'Leave at the loading bay.' : null,
  };
}

/** The CPU time a process has used, in µs (Linux `/proc`); null elsewhere. */
export function cpuTimeUs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name (in parentheses, which may hold spaces): utime is the 14th field, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1_000_000) / CLOCK_TICKS : null;
  } catch {
    return null;
  }
}

/** Linux's USER_HZ: `/proc` counts CPU time in these. */
const CLOCK_TICKS = 100;

/** One autocannon run; any answer but 2xx, error or timeout fails it (the figures would mean nothing). */
export async function load(
  server: Pick<RunningServer, 'url' | 'pid'>,
  request: autocannon.Request,
  seconds: number,
  connections: number,
): Promise<Measurement> {
  const { url } = server;
  const cpuBefore = cpuTimeUs(server.pid);
  const result = await autocannon({ url, connections, duration: seconds, requests: [request] });
  const cpuAfter = cpuTimeUs(server.pid);
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) {
    const codes = Object.entries(result.statusCodeStats ?? {})
      .map(([code, { count }]) => `${count} × ${code}`)
      .join(', ');
    throw new Error(
      `${request.method} ${url}${request.path}: ${result.non2xx} non-2xx answers (${codes}), ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  const requests = result.requests.total;
  const cpuUs = cpuBefore !== null && cpuAfter !== null && requests > 0 ? (cpuAfter - cpuBefore) / requests : null;
  return { rps: requests / result.duration, p50: result.latency.p50, p99: result.latency.p99, requests, cpuUs };
}

/** The median: on a noisy machine one disturbed run does not move it. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[Math.floor(middle)] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Runs of the same call on one server, merged: the median of each figure. */
function merge(runs: Measurement[]): Measurement {
  const cpu = runs.map((r) => r.cpuUs);
  return {
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    requests: runs.reduce((n, r) => n + r.requests, 0),
    cpuUs: cpu.every((c) => c !== null) ? median(cpu) : null,
  };
}

function pinSelf(): void {
  spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)], { stdio: 'ignore' });
}

/** Runs the whole benchmark. */
export async function benchApi(options: ApiBenchOptions = DEFAULT_API_OPTIONS): Promise<ApiBenchReport> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const pinned = options.pin && canPin();
  if (pinned) pinSelf();
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(os.tmpdir(), 'ninepoint-api-bench-'));
  mkdirSync(dir, { recursive: true });
  if (options.cpuProfDir) mkdirSync(options.cpuProfDir, { recursive: true });
  const report: ApiBenchReport = {
    options,
    startedAt: new Date(),
    machine: machineNote(),
    pinned,
    ceiling: null,
    operations: [],
    series: [],
    seedSeconds: new Map(),
  };
  const serverOptions = (kind: ServerKind, rows: number) => ({
    pin: pinned,
    ...(options.cpuProfDir ? { cpuProfDir: options.cpuProfDir, profileName: `${kind}-${rows}` } : {}),
  });
  const sizes = [...new Set([...options.seriesRows, options.rows])].sort((a, b) => a - b);
  try {
    for (const rows of sizes) {
      const path = join(dir, `orders-${rows}.db`);
      log(`seeding ${rows.toLocaleString('en')} orders…`);
      const started = performance.now();
      const seeded = await seedDatabase(path, rows);
      report.seedSeconds.set(rows, (performance.now() - started) / 1000);

      if (options.ceiling && report.ceiling === null) {
        const bare = await startServer('bare', path, { pin: pinned });
        try {
          const request = requestFor('get', seeded);
          if (options.warmupSeconds > 0) await load(bare, request, options.warmupSeconds, options.connections);
          const runs: Measurement[] = [];
          for (let round = 0; round < options.rounds; round++) {
            runs.push(await load(bare, request, options.seconds, options.connections));
          }
          report.ceiling = merge(runs);
          log(`load generator ceiling (bare node:http): ${Math.round(report.ceiling.rps)} req/s`);
        } finally {
          await bare.stop();
        }
      }

      const generated = await startServer('generated', path, serverOptions('generated', rows));
      const baseline = await startServer('baseline', path, serverOptions('baseline', rows));
      try {
        const main = rows === options.rows;
        const wanted = options.operations ?? OPERATIONS;
        const operations = wanted.filter((o) => main || o === 'list' || o === 'list-deep');
        const served = { generated: 0, baseline: 0 };
        for (const operation of operations) {
          const request = requestFor(operation, seeded);
          if (options.warmupSeconds > 0) {
            for (const server of [generated, baseline]) {
              const warm = await load(server, request, options.warmupSeconds, options.connections);
              served[server === generated ? 'generated' : 'baseline'] += warm.requests;
            }
          }
          const runs = { generated: [] as Measurement[], baseline: [] as Measurement[] };
          for (let round = 0; round < options.rounds; round++) {
            const order = round % 2 === 0 ? [generated, baseline] : [baseline, generated];
            for (const server of order) {
              const measured = await load(server, request, options.seconds, options.connections);
              (server === generated ? runs.generated : runs.baseline).push(measured);
              served[server === generated ? 'generated' : 'baseline'] += measured.requests;
            }
          }
          const g = merge(runs.generated);
          const b = merge(runs.baseline);
          // Each round's two runs are back to back: their ratio is the least disturbed by drift.
          const ratio = median(runs.generated.map((m, i) => m.rps / (runs.baseline[i]?.rps ?? Number.NaN)));
          const cpuRatio = g.cpuUs !== null && b.cpuUs !== null ? b.cpuUs / g.cpuUs : null;
          const result: OperationResult = { operation, rows, generated: g, baseline: b, ratio, cpuRatio };
          log(
            `${rows.toLocaleString('en')} rows, ${operation}: generated ${Math.round(g.rps)} req/s, hand-written ${Math.round(b.rps)} req/s (${result.ratio.toFixed(2)}×; CPU per request ${g.cpuUs?.toFixed(0)} vs ${b.cpuUs?.toFixed(0)} µs)`,
          );
          if (main) report.operations.push(result);
          if ((operation === 'list' || operation === 'list-deep') && options.seriesRows.includes(rows)) {
            report.series.push(result);
          }
        }
        if (options.cpuProfDir) {
          for (const kind of ['generated', 'baseline'] as const) {
            const profile = join(options.cpuProfDir, `${kind}-${rows}.cpuprofile`);
            log(`${profile}: ${served[kind]} answers (node bench/cpu-profile.ts ${profile} ${served[kind]})`);
          }
        }
      } finally {
        await generated.stop();
        await baseline.stop();
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
      }
    }
  } finally {
    if (ownDir) rmSync(dir, { recursive: true, force: true });
  }
  return report;
}

function machineNote(): string {
  const cpus = os.cpus();
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  return `Node ${process.version}, ${cpus.length} × ${cpus[0]?.model.trim() ?? 'CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GB, load average ${load} at start`;
}

export interface ApiVerdict {
  /** Calls below TARGET_RATIO. */
  belowTarget: OperationResult[];
  /** Calls below GUARD_RATIO: the benchmark fails. */
  regressions: OperationResult[];
  /** Generated p50 at the largest series size ÷ at the smallest, per list call; null without a series. */
  listGrowth: { list: number; 'list-deep': number } | null;
  listFlat: boolean | null;
}

export function verdictOf(report: ApiBenchReport): ApiVerdict {
  const belowTarget = report.operations.filter((o) => o.ratio < TARGET_RATIO);
  const regressions = report.operations.filter((o) => o.ratio < GUARD_RATIO);
  const growth = (operation: Operation): number | null => {
    const points = report.series.filter((s) => s.operation === operation).sort((a, b) => a.rows - b.rows);
    const first = points[0];
    const last = points.at(-1);
    return first && last && points.length > 1 ? last.generated.p50 / first.generated.p50 : null;
  };
  const list = growth('list');
  const deep = growth('list-deep');
  const listGrowth = list !== null && deep !== null ? { list, 'list-deep': deep } : null;
  const listFlat = listGrowth
    ? listGrowth.list <= FLAT_LATENCY_FACTOR && listGrowth['list-deep'] <= FLAT_LATENCY_FACTOR
    : null;
  return { belowTarget, regressions, listGrowth, listFlat };
}

const int = (n: number) => Math.round(n).toLocaleString('en');
const cpu = (m: Measurement) => (m.cpuUs === null ? '–' : Math.round(m.cpuUs).toLocaleString('en'));
const ms = (n: number) => n.toFixed(n < 10 ? 1 : 0);

/** The results as Markdown: the comparison table, the list-latency series and the verdict. */
export function formatApiReport(report: ApiBenchReport, command: string): string {
  const { options } = report;
  const verdict = verdictOf(report);
  const out: string[] = [];
  out.push(
    `${report.startedAt.toISOString().slice(0, 10)} · ${report.machine}. ` +
      `${report.pinned ? 'Each server pinned to CPU 0, autocannon on CPU 1' : 'Not pinned (no taskset or one CPU)'}; ` +
      `\`-c ${options.connections}\`, ${options.rounds} runs of ${options.seconds} s per server and call after ${options.warmupSeconds} s of warm-up, ` +
      'the two servers taking turns; medians of the runs, the ratio the median of the rounds’ ratios. Command: `' +
      command +
      '`.',
    '',
  );
  out.push(
    '| call | rows | generated req/s | p50 ms | p99 ms | CPU µs/req | hand-written req/s | p50 ms | p99 ms | CPU µs/req | generated ÷ hand-written req/s | same, by CPU per request |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const o of report.operations) {
    const g = o.generated;
    const b = o.baseline;
    out.push(
      `| ${OPERATION_LABELS[o.operation]} | ${int(o.rows)} | ${int(g.rps)} | ${ms(g.p50)} | ${ms(g.p99)} | ${cpu(g)} | ${int(b.rps)} | ${ms(b.p50)} | ${ms(b.p99)} | ${cpu(b)} | **${o.ratio.toFixed(2)}×** | ${o.cpuRatio === null ? '–' : `${o.cpuRatio.toFixed(2)}×`} |`,
    );
  }
  out.push('');
  if (report.ceiling) {
    const fastest = Math.max(...report.operations.map((o) => Math.max(o.generated.rps, o.baseline.rps)));
    const limited = fastest > 0.7 * report.ceiling.rps;
    out.push(
      `Load generator ceiling: a bare \`node:http\` server answering a small JSON to the same get requests reaches ${int(report.ceiling.rps)} req/s (p50 ${ms(report.ceiling.p50)} ms)` +
        (limited
          ? ' — close to the fastest server above, so autocannon may be what limits it: compare the CPU columns.'
          : ', well above every server here: the figures are the servers’ own.'),
      '',
    );
  }
  if (report.series.length > 0) {
    out.push(
      'List latency by table size (the same two list calls):',
      '',
      '| rows | first page: generated req/s | p50 ms | p99 ms | hand-written req/s | middle page: generated req/s | p50 ms | p99 ms | hand-written req/s | seeded in |',
      '|---|---|---|---|---|---|---|---|---|---|',
    );
    const sizes = [...new Set(report.series.map((s) => s.rows))].sort((a, b) => a - b);
    for (const rows of sizes) {
      const first = report.series.find((s) => s.rows === rows && s.operation === 'list');
      const deep = report.series.find((s) => s.rows === rows && s.operation === 'list-deep');
      if (!first || !deep) continue;
      const seeded = report.seedSeconds.get(rows);
      out.push(
        `| ${int(rows)} | ${int(first.generated.rps)} | ${ms(first.generated.p50)} | ${ms(first.generated.p99)} | ${int(first.baseline.rps)} | ${int(deep.generated.rps)} | ${ms(deep.generated.p50)} | ${ms(deep.generated.p99)} | ${int(deep.baseline.rps)} | ${seeded === undefined ? '' : `${seeded.toFixed(1)} s`} |`,
      );
    }
    out.push('');
  }
  const ratios = report.operations.map((o) => `${o.operation} ${o.ratio.toFixed(2)}×`).join(', ');
  out.push(
    `Target: generated ≥ ${TARGET_RATIO}× the hand-written throughput on each call — ${verdict.belowTarget.length === 0 ? 'met' : `NOT met (${verdict.belowTarget.map((o) => o.operation).join(', ')})`} (${ratios}).`,
  );
  if (verdict.listGrowth) {
    const sizes = report.series.map((s) => s.rows);
    const range = `${int(Math.min(...sizes))} to ${int(Math.max(...sizes))} rows`;
    out.push(
      `List latency from ${range}: generated p50 ×${verdict.listGrowth.list.toFixed(2)} (first page), ×${verdict.listGrowth['list-deep'].toFixed(2)} (middle page) — ${verdict.listFlat ? 'flat' : 'NOT flat'} (limit ${FLAT_LATENCY_FACTOR}×).`,
    );
  }
  if (verdict.regressions.length > 0) {
    out.push(
      `REGRESSION: below ${GUARD_RATIO}× on ${verdict.regressions.map((o) => o.operation).join(', ')}; \`npm run bench\` fails.`,
    );
  }
  return out.join('\n');
}

const BEGIN = '<!-- api-bench:begin (written by `npm run bench -- api`) -->';
const END = '<!-- api-bench:end -->';

/** Replaces the generated part of the HTTP API section of docs/benchmarks.md (adding the section when missing). */
export function writeApiDocs(markdown: string, path = new URL('../docs/benchmarks.md', import.meta.url)): void {
  const doc = readFileSync(path, 'utf8');
  const block = `${BEGIN}\n\n${markdown}\n\n${END}`;
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  const next =
    begin >= 0 && end > begin
      ? `${doc.slice(0, begin)}${block}${doc.slice(end + END.length)}`
      : `${doc.trimEnd()}\n\n## HTTP API\n\n${block}\n`;
  writeFileSync(path, next);
}
