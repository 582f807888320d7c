// The HTTP API benchmark: autocannon on loopback against the generated API (createServer on
// api-bench.spec.md) and a hand-written Fastify server doing the same work, in the same run, on the
// same database: better-sqlite3 on a SQLite file (api-baseline.ts), node-postgres on a PostgreSQL
// schema (api-baseline-pg.ts). On SQLite json-server (json-server.ts) serves the same orders too,
// as the npm peer. Then the start-up time of `ninepoint serve` (startup.ts). Each server runs in its
// own process pinned to CPU 0; this process, which seeds the data and generates the load, pins
// itself to CPU 1 (when `taskset` exists and there are two CPUs). PostgreSQL's own processes are
// not ours to pin: they run on either CPU.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { addUser, createServer, encodeCursor, type NinepointServer, SqliteStore } from '@ninepoint/server';
import { checkSpec, type Model } from '@ninepoint/spec';
import autocannon from 'autocannon';
import pg from 'pg';
import { NODE_FLAGS } from '../scripts/node-flags.mjs';
import { spawnNode } from './child.ts';
import { onInterrupt } from './cleanup.ts';
import { JSON_SERVER_VERSION, jsonServerRequest, startJsonServer, writeJsonServerDb } from './json-server.ts';
import { createSchema, postgresUnavailable, postgresUrlOf } from './postgres.ts';
import { benchStartup, type StartupResult } from './startup.ts';

export type ServerKind = 'generated' | 'served' | 'durable' | 'baseline' | 'floor' | 'visitor' | 'session' | 'bare';
export type Operation = 'get' | 'list' | 'list-deep' | 'create';
export type Database = 'sqlite' | 'postgres';
export const DATABASES: readonly Database[] = ['sqlite', 'postgres'];

export interface ApiBenchOptions {
  /** Measured seconds of one run of one server on one call. */
  seconds: number;
  /**
   * A run sends this many calls, however long they take, instead of running for `seconds`: the
   * test's smoke (bench/api-bench.test.ts), which proves that every case runs and is reported and
   * leaves the timing to `npm run bench`. Never set by `npm run bench`.
   */
  calls?: number;
  /** Unmeasured seconds each server gets on each call first. */
  warmupSeconds: number;
  /**
   * Runs per server and call, the order alternating (A B, B A, …; A B C, C B A, … with json-server)
   * so drift hits all alike. A server's figures are the medians of its runs; a ratio is the median
   * of the rounds' ratios.
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
  /** The databases to compare on, in this order (PostgreSQL is skipped when it does not answer). */
  databases: Database[];
  /** The PostgreSQL server; each table size gets a schema of its own there, dropped after. */
  postgresUrl: string;
  /** Fail when PostgreSQL does not answer instead of skipping it (CI=true). */
  requirePostgres: boolean;
  /** Also measure json-server on the same orders (next to SQLite's main table size, not for the series). */
  jsonServer: boolean;
  /**
   * Also measure the generated server as `ninepoint serve` runs it, request logs on (one JSON line
   * per request to a file), at the main table size: the default configuration.
   */
  served: boolean;
  /**
   * Also measure create on SQLite with `synchronous=FULL` (every commit synced to disk before it
   * is answered) next to the default `NORMAL`, at the main table size.
   */
  durable: boolean;
  /**
   * Also measure the floor (issue 31): the hand-written server without token and rate limit, the
   * least the same reads and writes cost, at the main table size.
   */
  floor: boolean;
  /**
   * Also measure a visitor's reads (get, first page) against the floor, in its rounds (issue 31):
   * the default configuration (request logs on, as `served`) on the spec with point 6 letting
   * `anyone` read (visitor-spec.ts), called with no credential at all. Only with `floor`.
   */
  visitor: boolean;
  /**
   * Also measure the same reads signed in by a session cookie against the floor, in its rounds:
   * the default configuration on the spec as it is, a process of its own, the cookie from a real
   * sign-in (`POST /api/auth/sign-in`) with the benchmark user's password. Only with `floor`.
   */
  session: boolean;
  /**
   * json-server's table for the reads, and for create (at most `rows`). Each of its calls costs
   * time in proportion to what it holds, a create most (it serialises and rewrites its whole
   * database): on `rows` orders a call at `-c connections` would wait longer than a run lasts.
   * How long one call takes on `rows` orders is measured apart (`PeerProbe`).
   */
  jsonServerRows: number;
  jsonServerCreateRows: number;
  /** Starts of `ninepoint serve` timed per database and state (0: none). */
  startupRuns: number;
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
  /**
   * Called once the main table size's servers are up on each database, before any load; the run
   * waits for it. The test (bench/api-bench.test.ts) checks there that the servers answer the same
   * calls the same way, on the servers the run then measures (a set of its own cost a seeding and
   * three server starts per database). Never set by `npm run bench`.
   */
  serversUp?: (servers: BenchServers) => Promise<void>;
}

/** What `ApiBenchOptions.serversUp` is given: the main size's servers and their table. */
export interface BenchServers {
  seeded: SeededDatabase;
  generated: RunningServer;
  baseline: RunningServer;
  /** Present with `floor` on. */
  floor: RunningServer | undefined;
  /** Present with `floor` and `visitor` on: answers `anyone` the reads. */
  visitor: RunningServer | undefined;
  /** Present with `floor` and `session` on, with the `Cookie` header of the benchmark user's session. */
  session: SessionServer | undefined;
}

/** The `session` server and the session its calls carry. */
export interface SessionServer extends RunningServer {
  /** `np_session=…` (`__Host-np_session=…` over https), as the sign-in set it. */
  cookie: string;
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
  databases: [...DATABASES],
  postgresUrl: postgresUrlOf(),
  requirePostgres: process.env.CI === 'true',
  jsonServer: true,
  served: true,
  durable: true,
  floor: true,
  visitor: true,
  session: true,
  jsonServerRows: 10_000,
  jsonServerCreateRows: 1_000,
  startupRuns: 5,
};

/**
 * The options, with `BENCH_SECONDS`, `BENCH_WARMUP_SECONDS`, `BENCH_ROUNDS`, `BENCH_CONNECTIONS`,
 * `BENCH_ROWS`, `BENCH_SERIES_ROWS` and `BENCH_OPERATIONS` (comma-separated), `BENCH_DATABASES`
 * (`sqlite,postgres`), `BENCH_DATABASE_URL` (else `TEST_DATABASE_URL`), `BENCH_JSON_SERVER`,
 * `BENCH_SERVED`, `BENCH_DURABLE`, `BENCH_FLOOR`, `BENCH_VISITOR` and `BENCH_SESSION` (each `0`:
 * without it), `BENCH_JSON_SERVER_ROWS`, `BENCH_JSON_SERVER_CREATE_ROWS`, `BENCH_STARTUP_RUNS` (`0`:
 * no start-up timing) and
 * `BENCH_CPU_PROF` (a folder) read from the environment.
 */
export function apiOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): ApiBenchOptions {
  const number = (name: string, fallback: number, zero = false): number => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0 || (value === 0 && !zero)) {
      throw new Error(`${name} must be a ${zero ? 'non-negative' : 'positive'} number, not "${text}".`);
    }
    return value;
  };
  const series = env.BENCH_SERIES_ROWS;
  return {
    ...DEFAULT_API_OPTIONS,
    seconds: number('BENCH_SECONDS', DEFAULT_API_OPTIONS.seconds),
    warmupSeconds: number('BENCH_WARMUP_SECONDS', DEFAULT_API_OPTIONS.warmupSeconds, true),
    rounds: Math.round(number('BENCH_ROUNDS', DEFAULT_API_OPTIONS.rounds)),
    connections: Math.round(number('BENCH_CONNECTIONS', DEFAULT_API_OPTIONS.connections)),
    rows: Math.round(number('BENCH_ROWS', DEFAULT_API_OPTIONS.rows)),
    seriesRows: series ? series.split(',').map((s) => rowsOf(s)) : DEFAULT_API_OPTIONS.seriesRows,
    databases: env.BENCH_DATABASES ? databasesOf(env.BENCH_DATABASES) : DEFAULT_API_OPTIONS.databases,
    postgresUrl: postgresUrlOf(env),
    requirePostgres: env.CI === 'true',
    jsonServer: env.BENCH_JSON_SERVER !== '0',
    served: env.BENCH_SERVED !== '0',
    durable: env.BENCH_DURABLE !== '0',
    floor: env.BENCH_FLOOR !== '0',
    visitor: env.BENCH_VISITOR !== '0',
    session: env.BENCH_SESSION !== '0',
    jsonServerRows: Math.round(number('BENCH_JSON_SERVER_ROWS', DEFAULT_API_OPTIONS.jsonServerRows)),
    jsonServerCreateRows: Math.round(number('BENCH_JSON_SERVER_CREATE_ROWS', DEFAULT_API_OPTIONS.jsonServerCreateRows)),
    startupRuns: Math.round(number('BENCH_STARTUP_RUNS', DEFAULT_API_OPTIONS.startupRuns, true)),
    ...(env.BENCH_CPU_PROF ? { cpuProfDir: env.BENCH_CPU_PROF } : {}),
    ...(env.BENCH_OPERATIONS ? { operations: operationsOf(env.BENCH_OPERATIONS) } : {}),
  };
}

function databasesOf(text: string): Database[] {
  const named = text.split(',').map((s) => s.trim());
  const unknown = named.filter((n) => !(DATABASES as readonly string[]).includes(n));
  if (unknown.length > 0 || named.length === 0)
    throw new Error(`BENCH_DATABASES names ${unknown.join(', ')}; the databases are ${DATABASES.join(', ')}.`);
  return [...new Set(named)] as Database[];
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
    'BENCH_DATABASES',
    'BENCH_JSON_SERVER',
    'BENCH_SERVED',
    'BENCH_DURABLE',
    'BENCH_FLOOR',
    'BENCH_VISITOR',
    'BENCH_SESSION',
    'BENCH_JSON_SERVER_ROWS',
    'BENCH_JSON_SERVER_CREATE_ROWS',
    'BENCH_STARTUP_RUNS',
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
  /** The most resident memory the server process held during the run, in KB (`/proc`; null elsewhere). */
  peakRssKb: number | null;
}

export interface OperationResult {
  database: Database;
  operation: Operation;
  rows: number;
  generated: Measurement;
  baseline: Measurement;
  /** generated ÷ hand-written throughput. */
  ratio: number;
  /** The default configuration (request logs on, as `ninepoint serve` runs); null when not measured. */
  served: ServedResult | null;
  /** Create on SQLite at `synchronous=FULL`; null for the other calls and when not measured. */
  durable: DurableResult | null;
  /** The floor (hand-written, no token, no logging); null when not measured. */
  floor: FloorResult | null;
  /** A visitor's call (no credential) on the default configuration; null when not measured (create, list-deep). */
  visitor: CallerResult | null;
  /** The same signed in by a session cookie; null when not measured (create, list-deep). */
  session: CallerResult | null;
  /** hand-written ÷ generated CPU time per request, the median of the rounds' ratios (the same sense: below 1, the generated costs more). */
  cpuRatio: number | null;
}

/** The generated server with `ninepoint serve`'s request logging, in the same rounds as the other two. */
export interface ServedResult {
  measurement: Measurement;
  /** served ÷ hand-written throughput, the median of the rounds' ratios. */
  ratio: number;
  /** served ÷ generated (logging off) throughput, the median of the rounds' ratios: what logging costs. */
  loggingRatio: number;
  /** generated (logging off) ÷ served CPU time per answer, the median of the rounds' ratios. */
  cpuLoggingRatio: number | null;
  /** Lines its log file gained during the call's runs ÷ the answers it gave: one line per request. */
  linesPerRequest: number;
}

/** The hand-written server without token or logging, in the same rounds: the floor of a call's cost. */
export interface FloorResult {
  measurement: Measurement;
  /** served (else generated) ÷ floor throughput, the median of the rounds' ratios. */
  ratio: number;
  /** served (else generated) ÷ floor CPU time per answer, the median of the rounds' ratios: how many times the floor's cost a call takes. */
  cpuRatio: number | null;
  /** generated (logging off) ÷ floor, both ways. */
  generatedRatio: number;
  generatedCpuRatio: number | null;
}

/**
 * The default configuration (request logs on) called as a visitor or with a session cookie, in the
 * floor's rounds: the calls for which issue 31 makes the floor the measure.
 */
export interface CallerResult {
  measurement: Measurement;
  /** ÷ floor throughput, the median of the rounds' ratios. */
  ratio: number;
  /** ÷ floor CPU time per answer, the median of the rounds' ratios. */
  cpuRatio: number | null;
}

/** The generated server's create with `--sqlite-synchronous full`, in the same rounds (logging off, like `generated`). */
export interface DurableResult {
  measurement: Measurement;
  /** FULL ÷ NORMAL (the generated server) throughput, the median of the rounds' ratios. */
  ratio: number;
}

/** json-server on one call, in the same rounds as the generated server (on SQLite, when it is measured). */
export interface PeerResult {
  /** The database of the generated server it took turns with. */
  database: Database;
  operation: Operation;
  /** json-server's table. */
  rows: number;
  /** The generated server's table. */
  generatedRows: number;
  jsonServer: Measurement;
  generated: Measurement;
  /** generated ÷ json-server throughput, the median of the rounds' ratios. */
  ratio: number;
}

/**
 * json-server holding the main table, one call at a time (median of 5 each): what its calls cost
 * there, and why its runs use smaller tables.
 */
export interface PeerProbe {
  rows: number;
  fileMb: number;
  getMs: number;
  listMs: number;
  createMs: number;
  idleKb: number | null;
}

/** One server's resident memory at the main table size. */
export interface MemoryResult {
  /** null for json-server, which keeps its records in its own memory. */
  database: Database | null;
  server: 'generated' | 'baseline' | 'json-server';
  /** json-server runs twice: on the main table for the reads, on a smaller one for create. */
  use?: 'read' | 'create';
  rows: number;
  /** Before its first request, after start-up (and, for json-server, loading db.json). */
  idleKb: number | null;
  /** The most sampled (every 100 ms) during its load runs, warm-ups included. */
  peakKb: number | null;
}

export interface ApiBenchReport {
  options: ApiBenchOptions;
  startedAt: Date;
  /** Wall-clock seconds the whole benchmark took. */
  seconds: number;
  machine: string;
  pinned: boolean;
  /** The bare node:http server under the get pattern: what the load generator can drive. */
  ceiling: Measurement | null;
  /** Every call at `options.rows`, on each database. */
  operations: OperationResult[];
  /** The list calls at every size of the series, on each database. */
  series: OperationResult[];
  /** Seconds to seed each table size, by `seedKey(database, rows)`. */
  seedSeconds: Map<string, number>;
  /** json-server next to the generated server. */
  peers: PeerResult[];
  /** json-server on the main table, one call at a time; null when not measured. */
  peerProbe: PeerProbe | null;
  memory: MemoryResult[];
  startup: StartupResult[];
  /** The PostgreSQL server and the settings that decide its figures; null when not measured. */
  postgres: string | null;
  /** What was left out and why (PostgreSQL not answering). */
  skipped: string[];
}

export const seedKey = (database: Database, rows: number): string => `${database} ${rows}`;

/** What a generated server must reach, as a share of the hand-written one's throughput. */
export const TARGET_RATIO = 0.7;
/** Request logs on (the default `serve`) may cost this share of the throughput with them off, at most. */
export const LOGGING_COST = 0.1;
/** Create at `synchronous=FULL` should keep this share of NORMAL's throughput (issue 19): SQLite's group commit is for that. */
export const DURABLE_TARGET = 0.8;
/** What the default `serve` must reach against the hand-written server, per call (issue 19). */
export const SERVED_TARGETS: Partial<Record<Operation, number>> = { get: 0.8, list: 0.85, create: 0.85 };
/**
 * What a visitor's or a session's read must reach against the floor on SQLite (issue 31): CPU per
 * answer at most `cpu` times the floor's, throughput at least `throughput` times.
 */
export const CALLER_TARGETS = { cpu: 1.25, throughput: 0.8 } as const;
/** The calls a visitor and a session are measured on: the reads of issue 31's table (not create). */
export const CALLER_OPERATIONS: readonly Operation[] = ['get', 'list'];
/** Below this share `npm run bench` fails: a regression. */
export const GUARD_RATIO = 0.5;
/** The deepest list latency may be this many times the shallowest and still count as flat. */
export const FLAT_LATENCY_FACTOR = 1.5;

export const DATABASE_LABELS: Record<Database, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

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
  database: Database;
  /** The SQLite file, or the PostgreSQL URL (its schema in `search_path`). */
  location: string;
  orders: number;
  /** The list cursor positioned at the middle row, in the generated API's format. */
  middleCursor: string;
  /** An API token of the benchmark's user: every request carries it, but the visitor's and the session's. */
  token: string;
  /** The benchmark user's password (made at seeding): the session's sign-in uses it. */
  password: string;
  /** Deletes the database (the file, or the schema). */
  remove(): Promise<void>;
}

/** The benchmark user's email. */
export const BENCH_EMAIL = 'bench@example.com';

/**
 * Adds the benchmark's user as `ninepoint users add` does, with a new random password (the
 * session's sign-in), and an API token (the format `ninepoint` gives tokens); answers both.
 */
async function addBenchUser(server: NinepointServer, where: string): Promise<{ token: string; password: string }> {
  const password = randomBytes(18).toString('base64url');
  const user = await addUser(server.auth, { email: BENCH_EMAIL, name: 'Benchmark', roles: [], password }, []).catch(
    (error: unknown) => {
      throw new Error(`${where}: ${(error as Error).message} Seed a new database.`);
    },
  );
  // `npt_` + 256 random bits; the database keeps its SHA-256.
  const token = `npt_${randomBytes(32).toString('base64url')}`;
  await server.auth.tokens.create({
    id: randomUUID(),
    userId: user.id,
    name: 'api benchmark',
    hash: createHash('sha256').update(token).digest('hex'),
    now: Date.now(),
  });
  return { token, password };
}

/**
 * Lays out the database with the generated server itself (`createServer` migrates it and makes
 * its user tables), adds a user with an API token, then fills the tables with SQL in one
 * transaction: 1,000 customers and `orders` orders, one second apart, each referring to a customer.
 */
export async function seedDatabase(path: string, orders: number): Promise<SeededDatabase> {
  const remove = async () => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  };
  const server = await createServer({ model: benchModel(), dbPath: path, logger: false });
  try {
    const { store } = server;
    if (!(store instanceof SqliteStore)) throw new Error(`${path} did not open as SQLite`);
    const { db } = store;
    const { token, password } = await addBenchUser(server, path);
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
    const middleCursor = encodeCursor('created_at', { value: row.created_at, id: row.id });
    return { database: 'sqlite', location: path, orders, middleCursor, token, password, remove };
  } catch (error) {
    await server.close();
    await remove();
    throw error;
  } finally {
    await server.close();
  }
}

/**
 * The same on PostgreSQL, in a new schema of the server at `url` (dropped by `remove`, or when the
 * seeding fails): the rows SQLite's seed makes, generated by the server (`generate_series`), with
 * the orders' secondary indexes built after the rows rather than row by row, which takes a million
 * orders from about 24 to about 9 seconds here. Then VACUUM ANALYZE, so the plans and the pages
 * the calls read are those of a table in use.
 */
export async function seedPostgres(url: string, orders: number): Promise<SeededDatabase> {
  const schema = await createSchema(url);
  try {
    const server = await createServer({ model: benchModel(), databaseUrl: schema.url, logger: false });
    let token: string;
    let password: string;
    try {
      ({ token, password } = await addBenchUser(server, schema.name));
    } finally {
      await server.close();
    }
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    try {
      // Seeding only: a crash loses a schema the benchmark drops anyway.
      await client.query('SET synchronous_commit = off');
      const superuser = await client.query<{ rolsuper: boolean }>(
        'SELECT "rolsuper" FROM pg_roles WHERE "rolname" = current_user',
      );
      await client.query('BEGIN');
      // The rows refer to customers that exist by construction: skip the foreign key's check per
      // row (only a superuser may).
      if (superuser.rows[0]?.rolsuper === true) await client.query('SET LOCAL session_replication_role = replica');
      await client.query(`SET LOCAL maintenance_work_mem = '256MB'`);
      const indexes = await client.query<{ name: string; definition: string }>(
        `SELECT i.indexrelid::regclass::text AS "name", pg_get_indexdef(i.indexrelid) AS "definition"
         FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
         WHERE n.nspname = current_schema() AND t.relname = 'orders'
           AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
      );
      for (const index of indexes.rows) await client.query(`DROP INDEX ${index.name}`);
      const at = `to_timestamp(${SEED_EPOCH} + i)`;
      const hex = (value: string) => `lpad(to_hex(${value}), 12, '0')`;
      await client.query(
        `INSERT INTO "customers" ("id", "created_at", "updated_at", "created_by", "_version", "name", "email")
         SELECT '00000000-0000-7000-8000-' || ${hex('i')}, ${at}, ${at}, NULL, 1, 'Customer ' || i, 'buyer' || i || '@example.com'
         FROM generate_series(1::bigint, $1::bigint) i`,
        [CUSTOMERS],
      );
      await client.query(
        `INSERT INTO "orders" ("id", "created_at", "updated_at", "created_by", "_version", "customer", "number", "item",
           "quantity", "unit_price", "ordered_on", "ship_by", "express", "note")
         SELECT '01900000-0000-7000-8000-' || ${hex('i')}, at, at, NULL, 1,
           '00000000-0000-7000-8000-' || ${hex(`(i * 7919) % ${CUSTOMERS} + 1`)}, 'ORD-' || lpad(i::text, 8, '0'),
           'Widget model ' || (i % 997) || ', boxed', 1 + i % 50, round(((i * 37) % 99999 + 1) / 100.0, 2),
           (at AT TIME ZONE 'UTC')::date, (at AT TIME ZONE 'UTC')::date + 7, i % 5 = 0,
           CASE WHEN i % 3 = 0 THEN 'Leave at the loading bay.' END
         FROM (SELECT i, ${at} AS at FROM generate_series(1::bigint, $1::bigint) i) s`,
        [orders],
      );
      for (const index of indexes.rows) await client.query(index.definition);
      await client.query('COMMIT');
      await client.query('VACUUM (ANALYZE) "customers", "orders"');
      const middle = Math.max(1, Math.ceil(orders / 2));
      const { rows } = await client.query<{ created_at: Date; id: string }>(
        'SELECT "created_at", "id" FROM "orders" WHERE "id" = $1',
        [orderId(middle)],
      );
      const row = rows[0];
      if (!row) throw new Error(`seeding ${orders} orders left no order ${middle}`);
      const middleCursor = encodeCursor('created_at', { value: row.created_at.toISOString(), id: row.id });
      return { database: 'postgres', location: schema.url, orders, middleCursor, token, password, remove: schema.drop };
    } finally {
      await client.end();
    }
  } catch (error) {
    await schema.drop();
    throw error;
  }
}

/** A server process under load: where it listens and what its memory did. */
export interface LoadedServer {
  url: string;
  pid: number;
  /** Resident memory before its first request, in KB; set by the first `load`. */
  idleRssKb?: number | null;
  /** The most resident memory any `load` sampled, in KB. */
  peakRssKb?: number | null;
}

export interface RunningServer extends LoadedServer {
  kind: ServerKind;
  stop(): Promise<void>;
}

/** Whether the servers and the load generator can each have a CPU of their own. */
export function canPin(): boolean {
  return os.cpus().length >= 2 && spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;
}

/** The kinds that run as `ninepoint serve` does, request logs on: each needs a `logFile`. */
const LOGGED_KINDS: readonly ServerKind[] = ['served', 'visitor', 'session'];

/**
 * Starts one server (api-server.ts) on a SQLite file or a PostgreSQL URL in its own process,
 * optionally pinned to CPU 0. A `served`, `visitor` or `session` server's stdout, its request log,
 * goes to `logFile` (appended), as a service manager or container runtime would keep it; those
 * three get Node's flags as Ninepoint's launchers give them (`NODE_FLAGS`: `npm start`, the Docker
 * image), the hand-written servers Node's defaults.
 */
export async function startServer(
  kind: ServerKind,
  database: string,
  options: {
    pin: boolean;
    cpuProfDir?: string;
    profileName?: string;
    logFile?: string;
    /** Node's flags for the server; default: `NODE_FLAGS` for the three served kinds, none for the others. */
    nodeFlags?: readonly string[];
  },
): Promise<RunningServer> {
  if (LOGGED_KINDS.includes(kind) && options.logFile === undefined) throw new Error(`a ${kind} server needs a logFile`);
  const node = [
    ...(options.nodeFlags ?? (LOGGED_KINDS.includes(kind) ? NODE_FLAGS : [])),
    ...(options.cpuProfDir
      ? [
          '--cpu-prof',
          `--cpu-prof-dir=${options.cpuProfDir}`,
          `--cpu-prof-name=${options.profileName ?? kind}.cpuprofile`,
        ]
      : []),
    SERVER_SCRIPT,
    kind,
    database,
  ];
  const log = options.logFile === undefined ? null : openSync(options.logFile, 'a');
  // The server also stops when this process goes away (its stdin ends).
  const { child, exited, stop } = spawnNode(node, {
    pin: options.pin,
    graceMs: 30_000,
    stdio: log === null ? ['pipe', 'pipe', 'inherit'] : ['pipe', log, 'inherit', 'pipe'],
  });
  if (log !== null) closeSync(log);
  const announced = log === null ? child.stdout : child.stdio[3];
  const lines = createInterface({ input: announced as NodeJS.ReadableStream });
  const first = new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    void exited.then((code) => reject(new Error(`the ${kind} server exited (${code}) before it listened`)));
    setTimeout(() => reject(new Error(`the ${kind} server did not start within 180 s`)), 180_000).unref();
  });
  let started: { url: string; pid: number };
  try {
    started = JSON.parse(await first) as { url: string; pid: number };
  } catch (error) {
    child.kill('SIGKILL');
    await stop();
    throw error;
  }
  return {
    kind,
    url: started.url,
    pid: started.pid,
    async stop() {
      await stop();
      lines.close();
    },
  };
}

let created = 0;

/**
 * Who makes a call: a program with the benchmark user's API token (`Authorization: Bearer`), the
 * user signed in by a session (`Cookie`), or a visitor with no credential (null).
 */
export type Credential = { token: string } | { cookie: string } | null;

/**
 * The request autocannon sends for one call, with a fresh id or body each time where it matters;
 * made with the benchmark user's token unless `credential` says otherwise.
 */
export function requestFor(
  operation: Operation,
  seeded: SeededDatabase,
  credential: Credential = { token: seeded.token },
): autocannon.Request {
  const headers: Record<string, string> =
    credential === null
      ? {}
      : 'token' in credential
        ? { authorization: `Bearer ${credential.token}` }
        : { cookie: credential.cookie };
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

/**
 * Signs the benchmark user in at `url` as the web app does (`POST /api/auth/sign-in`, email and
 * password) and answers the `Cookie` header of the session it set: `np_session=…`, or
 * `__Host-np_session=…` where the server is reached over https.
 */
export async function signIn(url: string, seeded: SeededDatabase): Promise<string> {
  const response = await fetch(`${url}/api/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: BENCH_EMAIL, password: seeded.password }),
  });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`signing in at ${url} answered ${response.status}: ${body}`);
  const cookie = response.headers
    .getSetCookie()
    .map((header) => header.split(';')[0] ?? '')
    .find((pair) => /^(__Host-)?np_session=./.test(pair));
  if (cookie === undefined) throw new Error(`signing in at ${url} set no session cookie`);
  return cookie;
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

/** A process's resident memory (`VmRSS`) in KB (Linux `/proc`); null elsewhere or once it is gone. */
export function rssKb(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

const RSS_SAMPLE_MS = 100;

/**
 * One autocannon run; any answer but 2xx, error or timeout fails it (the figures would mean
 * nothing). The server's RSS is sampled throughout: its peak goes into the measurement and the
 * server's `peakRssKb`, and the first run records its idle RSS.
 */
export async function load(
  server: LoadedServer,
  request: autocannon.Request,
  seconds: number,
  connections: number,
  calls?: number,
): Promise<Measurement> {
  const { url } = server;
  if (server.idleRssKb === undefined) server.idleRssKb = rssKb(server.pid);
  let peakRssKb: number | null = null;
  const sample = () => {
    const kb = rssKb(server.pid);
    if (kb !== null && (peakRssKb === null || kb > peakRssKb)) peakRssKb = kb;
  };
  const sampler = setInterval(sample, RSS_SAMPLE_MS);
  const cpuBefore = cpuTimeUs(server.pid);
  let result: autocannon.Result;
  try {
    result = await autocannon({
      url,
      connections,
      ...(calls === undefined ? { duration: seconds } : { amount: calls }),
      requests: [request],
    });
  } finally {
    clearInterval(sampler);
  }
  sample();
  if (peakRssKb !== null && (server.peakRssKb == null || peakRssKb > server.peakRssKb)) server.peakRssKb = peakRssKb;
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
  return {
    rps: requests / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests,
    cpuUs,
    peakRssKb,
  };
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

/**
 * Runs of the same call on one server, merged: the median of each figure, the peak of the memory.
 * A run without answers (the server starved of CPU by other tenants for the whole run) has no
 * latency or CPU per answer: it counts for throughput only.
 */
function merge(runs: Measurement[]): Measurement {
  const answered = runs.filter((r) => r.requests > 0);
  const cpu = answered.map((r) => r.cpuUs);
  const rss = runs.map((r) => r.peakRssKb).filter((kb) => kb !== null);
  return {
    rps: median(runs.map((r) => r.rps)),
    p50: median(answered.map((r) => r.p50)),
    p99: median(answered.map((r) => r.p99)),
    requests: runs.reduce((n, r) => n + r.requests, 0),
    cpuUs: cpu.length > 0 && cpu.every((c) => c !== null) ? median(cpu) : null,
    peakRssKb: rss.length > 0 ? Math.max(...rss) : null,
  };
}

/** The floor against the default configuration (served, else generated) and against logging off. */
function floorResult(floor: Measurement[], served: Measurement[], generated: Measurement[]): FloorResult {
  const s = callerResult(served, floor);
  const g = callerResult(generated, floor);
  return {
    measurement: merge(floor),
    ratio: s.ratio,
    cpuRatio: s.cpuRatio,
    generatedRatio: g.ratio,
    generatedCpuRatio: g.cpuRatio,
  };
}

/** A caller's runs against the floor's runs of the same rounds. */
function callerResult(runs: Measurement[], floor: Measurement[]): CallerResult {
  return { measurement: merge(runs), ratio: roundRatio(runs, floor), cpuRatio: roundCpuRatio(runs, floor) };
}

/**
 * The median of the rounds' ratios of a's CPU time per answer to b's. Paired by round, as
 * throughput is: on a shared machine the cost of the same work drifts by half or more between
 * minutes, and a round's runs are seconds apart; the ratio of the medians mixes those minutes.
 */
function roundCpuRatio(a: readonly Measurement[], b: readonly Measurement[]): number | null {
  const ratios: number[] = [];
  for (const [i, m] of a.entries()) {
    const other = b[i];
    // A round where either server answered nothing says nothing about their ratio (its cpuUs is null too).
    if (other === undefined || m.requests === 0 || other.requests === 0) continue;
    // Answers but no CPU figure: no `/proc` on this machine.
    if (m.cpuUs === null || other.cpuUs === null) return null;
    if (m.cpuUs > 0 && other.cpuUs > 0) ratios.push(m.cpuUs / other.cpuUs);
  }
  return ratios.length > 0 ? median(ratios) : null;
}

/** The median of the rounds' ratios of a's throughput to b's (each round's two runs were back to back). */
function roundRatio(a: readonly Measurement[], b: readonly Measurement[]): number {
  // A round where either server answered nothing says nothing about their ratio.
  return median(a.map((m, i) => m.rps / (b[i]?.rps ?? Number.NaN)).filter((r) => Number.isFinite(r) && r > 0));
}

function pinSelf(): void {
  spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)], { stdio: 'ignore' });
}

/** A server taking part in a call's rounds, with the request it gets and its runs. */
interface Participant {
  name: 'generated' | 'served' | 'durable' | 'baseline' | 'floor' | 'visitor' | 'session' | 'json-server';
  server: LoadedServer;
  request: autocannon.Request;
  runs: Measurement[];
  /** Answers of its warm-up run. */
  warm?: number;
}

/** Runs the whole benchmark. */
export async function benchApi(options: ApiBenchOptions = DEFAULT_API_OPTIONS): Promise<ApiBenchReport> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const began = performance.now();
  const pinned = options.pin && canPin();
  if (pinned) pinSelf();
  const report: ApiBenchReport = {
    options,
    startedAt: new Date(),
    seconds: 0,
    machine: machineNote(),
    pinned,
    ceiling: null,
    operations: [],
    series: [],
    seedSeconds: new Map(),
    peers: [],
    peerProbe: null,
    memory: [],
    startup: [],
    postgres: null,
    skipped: [],
  };
  const databases = [...options.databases];
  if (databases.includes('postgres')) {
    const unavailable = await postgresUnavailable(options.postgresUrl);
    if (unavailable !== null) {
      const reason = `PostgreSQL at ${redact(options.postgresUrl)} does not answer (${unavailable})`;
      if (options.requirePostgres)
        throw new Error(`${reason}; CI=true requires it. Start it, or set BENCH_DATABASE_URL.`);
      log(`Skipping PostgreSQL: ${reason}.`);
      report.skipped.push(`${reason}.`);
      databases.splice(databases.indexOf('postgres'), 1);
    } else {
      report.postgres = await postgresNote(options.postgresUrl);
    }
  }
  // Made after the check above, which may throw: nothing to clean up before this.
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(os.tmpdir(), 'ninepoint-api-bench-'));
  mkdirSync(dir, { recursive: true });
  const forgetDir = ownDir ? onInterrupt(() => rmSync(dir, { recursive: true, force: true })) : () => {};
  if (options.cpuProfDir) mkdirSync(options.cpuProfDir, { recursive: true });
  const sizes = [...new Set([...options.seriesRows, options.rows])].sort((a, b) => a - b);
  const wanted = options.operations ?? OPERATIONS;
  try {
    for (const database of databases) {
      for (const rows of sizes) {
        const main = rows === options.rows;
        log(`${DATABASE_LABELS[database]}: seeding ${rows.toLocaleString('en')} orders…`);
        const started = performance.now();
        const seeded =
          database === 'sqlite'
            ? await seedDatabase(join(dir, `orders-${rows}.db`), rows)
            : await seedPostgres(options.postgresUrl, rows);
        report.seedSeconds.set(seedKey(database, rows), (performance.now() - started) / 1000);
        try {
          // json-server has no database of its own: it runs once, next to SQLite (or the other).
          const peer = options.jsonServer && (database === 'sqlite' || !databases.includes('sqlite'));
          await benchSize(seeded, main, peer);
        } finally {
          await seeded.remove();
        }
      }
    }
    if (options.startupRuns > 0) {
      report.startup = await benchStartup({
        databases,
        runs: options.startupRuns,
        dir,
        postgresUrl: options.postgresUrl,
        pin: pinned,
        log,
      });
    }
  } finally {
    if (ownDir) rmSync(dir, { recursive: true, force: true });
    forgetDir();
  }
  report.seconds = (performance.now() - began) / 1000;
  return report;

  /** Every wanted call (the list calls only, off the main size) on one seeded table. */
  async function benchSize(seeded: SeededDatabase, main: boolean, peer: boolean): Promise<void> {
    const { database, orders: rows } = seeded;
    if (options.ceiling && report.ceiling === null) {
      const bare = await startServer('bare', 'none', { pin: pinned });
      try {
        const request = requestFor('get', seeded);
        if (options.warmupSeconds > 0) await load(bare, request, options.warmupSeconds, options.connections);
        const runs: Measurement[] = [];
        for (let round = 0; round < options.rounds; round++) {
          runs.push(await load(bare, request, options.seconds, options.connections, options.calls));
        }
        report.ceiling = merge(runs);
        log(`load generator ceiling (bare node:http): ${Math.round(report.ceiling.rps)} req/s`);
      } finally {
        await bare.stop();
      }
    }

    const serverOptions = (kind: ServerKind) => ({
      pin: pinned,
      ...(options.cpuProfDir ? { cpuProfDir: options.cpuProfDir, profileName: `${kind}-${database}-${rows}` } : {}),
    });
    const operations = wanted.filter((o) => main || o === 'list' || o === 'list-deep');
    const withPeer = peer && main;
    if (withPeer && rows > Math.min(options.jsonServerRows, options.jsonServerCreateRows)) {
      log(`json-server: ${int(rows)} orders, one call at a time…`);
      report.peerProbe = await probeJsonServer(dir, rows, pinned);
      const probe = report.peerProbe;
      log(
        `  get ${probe.getMs.toFixed(0)} ms, first page ${probe.listMs.toFixed(0)} ms, create ${probe.createMs.toFixed(0)} ms`,
      );
    }
    const stops: (() => Promise<void>)[] = [];
    /** Starts a server alongside the others (starting takes seconds on a busy machine), to be stopped after. */
    const started = async <T extends { stop(): Promise<void> }>(start: Promise<T>): Promise<T> => {
      const server = await start;
      stops.push(() => server.stop());
      return server;
    };
    try {
      const peerNeeds: ['read' | 'create', number][] = [];
      if (withPeer) {
        if (operations.some((o) => o !== 'create')) peerNeeds.push(['read', Math.min(options.jsonServerRows, rows)]);
        if (operations.includes('create')) peerNeeds.push(['create', Math.min(options.jsonServerCreateRows, rows)]);
      }
      const peerFiles = peerNeeds.map(([use, peerRows]) => {
        const folder = join(dir, `json-server-${use}`);
        mkdirSync(folder, { recursive: true });
        log(`json-server: ${peerRows.toLocaleString('en')} orders for ${use === 'read' ? 'the reads' : 'create'}…`);
        writeJsonServerDb(join(folder, 'db.json'), peerRows, CUSTOMERS);
        return join(folder, 'db.json');
      });
      const logFile = join(dir, `served-${database}-${rows}.log`);
      const withServed = options.served && main;
      const withDurable = options.durable && main && database === 'sqlite' && operations.includes('create');
      const withFloor = options.floor && main;
      // Against the floor, in its rounds: only where the floor runs and on the reads.
      const reads = operations.some((o) => CALLER_OPERATIONS.includes(o));
      const withVisitor = withFloor && options.visitor && reads;
      const withSession = withFloor && options.session && reads;
      const callerLog = (kind: 'visitor' | 'session') => ({
        ...serverOptions(kind),
        logFile: join(dir, `${kind}-${database}-${rows}.log`),
      });
      // The generated server first, alone: it brings the database to the spec inside one write
      // transaction, which servers starting beside it on a busy pinned core waited on past their
      // busy timeout (SQLITE_BUSY). The others then find nothing to migrate and start together.
      const first = started(startServer('generated', seeded.location, serverOptions('generated')));
      await first.catch(() => {});
      const starting = [
        first,
        started(startServer('baseline', seeded.location, serverOptions('baseline'))),
        ...(withServed
          ? [started(startServer('served', seeded.location, { ...serverOptions('served'), logFile }))]
          : []),
        ...(withDurable ? [started(startServer('durable', seeded.location, serverOptions('durable')))] : []),
        ...(withFloor ? [started(startServer('floor', seeded.location, serverOptions('floor')))] : []),
        ...(withVisitor ? [started(startServer('visitor', seeded.location, callerLog('visitor')))] : []),
        ...(withSession ? [started(startServer('session', seeded.location, callerLog('session')))] : []),
        ...peerFiles.map((file) => started(startJsonServer(file, { pin: pinned }))),
      ];
      // All settled before any failure is thrown, so that every server that did start is stopped.
      await Promise.allSettled(starting);
      const [generated, baseline, ...others] = (await Promise.all(starting)) as [
        RunningServer,
        RunningServer,
        ...LoadedServer[],
      ];
      const served = withServed ? others.shift() : undefined;
      const durable = withDurable ? others.shift() : undefined;
      const floor = withFloor ? others.shift() : undefined;
      const visitor = withVisitor ? (others.shift() as RunningServer) : undefined;
      const signedIn = withSession ? (others.shift() as RunningServer) : undefined;
      // A real sign-in, on the server its calls then go to; the session lasts the whole run
      // (SESSION_IDLE_MINUTES, 60 by default, counts from its last use).
      const session: SessionServer | undefined = signedIn
        ? Object.assign(signedIn, { cookie: await signIn(signedIn.url, seeded) })
        : undefined;
      if (main && options.serversUp)
        await options.serversUp({
          seeded,
          generated,
          baseline,
          floor: floor as RunningServer | undefined,
          visitor,
          session,
        });
      const peerServers = others;
      const peers = new Map<'read' | 'create', { server: LoadedServer; rows: number }>();
      for (const [i, [use, peerRows]] of peerNeeds.entries()) {
        const server = peerServers[i];
        if (server) peers.set(use, { server, rows: peerRows });
      }
      const answered = { generated: 0, baseline: 0, served: 0, floor: 0, visitor: 0, session: 0 };
      /** Adds a run's answers to its server's count (for the profiles' per-answer figures). */
      const count = (p: Participant, requests: number) => {
        if (p.name !== 'json-server' && p.name !== 'durable') answered[p.name] += requests;
      };
      for (const operation of operations) {
        const participants: Participant[] = [
          { name: 'generated', server: generated, request: requestFor(operation, seeded), runs: [] },
          { name: 'baseline', server: baseline, request: requestFor(operation, seeded), runs: [] },
        ];
        if (served)
          participants.push({ name: 'served', server: served, request: requestFor(operation, seeded), runs: [] });
        if (floor)
          participants.push({ name: 'floor', server: floor, request: requestFor(operation, seeded), runs: [] });
        if (visitor && CALLER_OPERATIONS.includes(operation))
          participants.push({
            name: 'visitor',
            server: visitor,
            request: requestFor(operation, seeded, null),
            runs: [],
          });
        if (session && CALLER_OPERATIONS.includes(operation)) {
          const request = requestFor(operation, seeded, { cookie: session.cookie });
          participants.push({ name: 'session', server: session, request, runs: [] });
        }
        if (durable && operation === 'create') {
          participants.push({ name: 'durable', server: durable, request: requestFor(operation, seeded), runs: [] });
        }
        const linesBefore = served ? await logLines(logFile) : 0;
        const peer = peers.get(operation === 'create' ? 'create' : 'read');
        if (peer) {
          const shipBy = shipByDate();
          participants.push({
            name: 'json-server',
            server: peer.server,
            request: jsonServerRequest(operation, peer.rows, (n) => orderBody(2_000_000_000 + n, shipBy)),
            runs: [],
          });
        }
        if (options.warmupSeconds > 0) {
          for (const p of participants) {
            const warm = await load(p.server, p.request, options.warmupSeconds, options.connections);
            if (p.name === 'json-server') await settle(p.server.pid);
            p.warm = warm.requests;
            count(p, warm.requests);
          }
        }
        for (let round = 0; round < options.rounds; round++) {
          // A B C, C B A, …: each server runs as often early in a round as late.
          const order = round % 2 === 0 ? participants : [...participants].reverse();
          for (const p of order) {
            const measured = await load(p.server, p.request, options.seconds, options.connections, options.calls);
            if (p.name === 'json-server') await settle(p.server.pid);
            p.runs.push(measured);
            count(p, measured.requests);
          }
        }
        const byName = (name: Participant['name']) => participants.find((p) => p.name === name);
        const gen = byName('generated') as Participant;
        const base = byName('baseline') as Participant;
        const json = byName('json-server');
        const logged = byName('served');
        const synced = byName('durable');
        const least = byName('floor');
        const anyone = byName('visitor');
        const cookied = byName('session');
        const g = merge(gen.runs);
        const b = merge(base.runs);
        const ratio = roundRatio(gen.runs, base.runs);
        const cpuRatio = roundCpuRatio(base.runs, gen.runs);
        let servedResult: ServedResult | null = null;
        if (logged) {
          const requests = logged.runs.reduce((n, r) => n + r.requests, 0) + (logged.warm ?? 0);
          servedResult = {
            measurement: merge(logged.runs),
            ratio: roundRatio(logged.runs, base.runs),
            loggingRatio: roundRatio(logged.runs, gen.runs),
            cpuLoggingRatio: roundCpuRatio(gen.runs, logged.runs),
            linesPerRequest: requests > 0 ? ((await logLines(logFile)) - linesBefore) / requests : 0,
          };
        }
        const result: OperationResult = {
          database,
          operation,
          rows,
          generated: g,
          baseline: b,
          ratio,
          cpuRatio,
          served: servedResult,
          floor: least ? floorResult(least.runs, (logged ?? gen).runs, gen.runs) : null,
          visitor: anyone && least ? callerResult(anyone.runs, least.runs) : null,
          session: cookied && least ? callerResult(cookied.runs, least.runs) : null,
          durable: synced ? { measurement: merge(synced.runs), ratio: roundRatio(synced.runs, gen.runs) } : null,
        };
        log(
          `${DATABASE_LABELS[database]}, ${rows.toLocaleString('en')} rows, ${operation}: generated ${Math.round(g.rps)} req/s, hand-written ${Math.round(b.rps)} req/s (${result.ratio.toFixed(2)}×; CPU per request ${g.cpuUs?.toFixed(0)} vs ${b.cpuUs?.toFixed(0)} µs)`,
        );
        if (result.floor) {
          const f = result.floor;
          log(
            `  floor (hand-written, no token, no logging): ${Math.round(f.measurement.rps)} req/s, CPU per request ${f.measurement.cpuUs?.toFixed(0)} µs; ${logged ? 'served' : 'generated'} ÷ floor ${f.ratio.toFixed(2)}× req/s, ${f.cpuRatio?.toFixed(2) ?? '–'}× CPU`,
          );
        }
        for (const [caller, how] of [
          [result.visitor, 'visitor (served, no credential, `anyone` reads)'],
          [result.session, 'session (served, session cookie)'],
        ] as const) {
          if (caller === null) continue;
          const m = caller.measurement;
          log(
            `  ${how}: ${Math.round(m.rps)} req/s, CPU per request ${m.cpuUs?.toFixed(0)} µs; ÷ floor ${caller.ratio.toFixed(2)}× req/s, ${caller.cpuRatio?.toFixed(2) ?? '–'}× CPU`,
          );
        }
        if (result.durable) {
          log(
            `  synchronous=FULL: ${Math.round(result.durable.measurement.rps)} req/s (${result.durable.ratio.toFixed(2)}× NORMAL; CPU per request ${result.durable.measurement.cpuUs?.toFixed(0)} µs)`,
          );
        }
        if (servedResult) {
          const m = servedResult.measurement;
          log(
            `  served (request logs on): ${Math.round(m.rps)} req/s (${servedResult.ratio.toFixed(2)}× hand-written, ${servedResult.loggingRatio.toFixed(2)}× logging off; CPU per request ${m.cpuUs?.toFixed(0)} µs; ${servedResult.linesPerRequest.toFixed(2)} log lines per request)`,
          );
        }
        if (main) report.operations.push(result);
        if ((operation === 'list' || operation === 'list-deep') && options.seriesRows.includes(rows)) {
          report.series.push(result);
        }
        if (json && peer) {
          const j = merge(json.runs);
          const peerRatio = roundRatio(gen.runs, json.runs);
          report.peers.push({
            database,
            operation,
            rows: peer.rows,
            generatedRows: rows,
            jsonServer: j,
            generated: g,
            ratio: peerRatio,
          });
          log(
            `  json-server (${peer.rows.toLocaleString('en')} orders): ${Math.round(j.rps)} req/s (generated ÷ json-server ${peerRatio.toFixed(2)}×)`,
          );
        }
      }
      if (main) {
        for (const [name, server] of [
          ['generated', generated],
          ['baseline', baseline],
        ] as const) {
          report.memory.push({
            database,
            server: name,
            rows,
            idleKb: server.idleRssKb ?? null,
            peakKb: server.peakRssKb ?? null,
          });
        }
        for (const [use, { server, rows: peerRows }] of peers) {
          report.memory.push({
            database: null,
            server: 'json-server',
            use,
            rows: peerRows,
            idleKb: server.idleRssKb ?? null,
            peakKb: server.peakRssKb ?? null,
          });
        }
      }
      if (options.cpuProfDir) {
        for (const kind of ['generated', 'baseline', 'served', 'floor', 'visitor', 'session'] as const) {
          if (kind !== 'generated' && kind !== 'baseline' && answered[kind] === 0) continue;
          const profile = join(options.cpuProfDir, `${kind}-${database}-${rows}.cpuprofile`);
          log(`${profile}: ${answered[kind]} answers (node bench/cpu-profile.ts ${profile} ${answered[kind]})`);
        }
      }
    } finally {
      for (const stop of stops.reverse()) await stop();
    }
  }
}

/**
 * json-server on `rows` orders, one call at a time: a get, a first page and a create, 5 of each
 * (medians), after a first call of each that warms it up.
 */
async function probeJsonServer(dir: string, rows: number, pin: boolean): Promise<PeerProbe> {
  const folder = join(dir, 'json-server-probe');
  mkdirSync(folder, { recursive: true });
  const file = join(folder, 'db.json');
  writeJsonServerDb(file, rows, CUSTOMERS);
  const server = await startJsonServer(file, { pin });
  try {
    const idleKb = rssKb(server.pid);
    const time = async (path: string, init: () => RequestInit = () => ({}), status = 200): Promise<number> => {
      const times: number[] = [];
      for (let n = 0; n <= 5; n++) {
        const started = performance.now();
        const response = await fetch(`${server.url}${path}`, init());
        await response.text();
        if (response.status !== status) throw new Error(`json-server answered ${path} with ${response.status}`);
        if (n > 0) times.push(performance.now() - started);
      }
      return median(times);
    };
    const getMs = await time(`/orders/${orderId(Math.ceil(rows / 2))}`);
    const listMs = await time('/orders?_page=1&_limit=50');
    let n = 0;
    const createMs = await time(
      '/orders',
      () => ({
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(orderBody(3_000_000_000 + ++n, shipByDate())),
      }),
      201,
    );
    return { rows, fileMb: statSync(file).size / 2 ** 20, getMs, listMs, createMs, idleKb };
  } finally {
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The lines of a log file (0 when there is none yet). */
async function logLines(file: string): Promise<number> {
  // The server writes its log asynchronously: what it answered last may not be written yet, for
  // longer on a busy machine. Counted again until two counts 100 ms apart agree (2 s at most).
  let last = -1;
  for (let tries = 0; tries < 20; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const lines = await countLines(file);
    if (lines === last) return lines;
    last = lines;
  }
  return last;
}

async function countLines(file: string): Promise<number> {
  let lines = 0;
  try {
    for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return lines;
}

/**
 * Waits until a process stops using CPU (at most `limitMs`): json-server goes on answering the
 * calls under way when a run ends, which would otherwise take CPU 0 from the next server's run.
 */
async function settle(pid: number, limitMs = 20_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  let before = cpuTimeUs(pid);
  while (before !== null && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const after = cpuTimeUs(pid);
    // Less than a tick in 100 ms: idle.
    if (after === null || after - before < 10_000) return;
    before = after;
  }
}

/** Two weeks ahead: later than `ordered_on` (today) whenever the run ends. */
function shipByDate(): string {
  return new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10);
}

/** The PostgreSQL server's version and the settings its figures depend on. */
async function postgresNote(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: string; fsync: string; commit: string; buffers: string }>(
      `SELECT current_setting('server_version') AS "version", current_setting('fsync') AS "fsync",
         current_setting('synchronous_commit') AS "commit", current_setting('shared_buffers') AS "buffers"`,
    );
    const row = rows[0];
    return row
      ? `PostgreSQL ${row.version.split(' ')[0]} on the same machine (\`fsync\` ${row.fsync}, \`synchronous_commit\` ${row.commit}, \`shared_buffers\` ${row.buffers})`
      : 'PostgreSQL';
  } finally {
    await client.end();
  }
}

/** A URL without its password, for the report. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the PostgreSQL URL';
  }
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
  /**
   * Generated p50 at the largest series size ÷ at the smallest, per list call and database (those
   * with a series of two sizes or more), and whether it stays within FLAT_LATENCY_FACTOR.
   */
  listGrowth: { database: Database; list: number; 'list-deep': number; flat: boolean }[];
}

export function verdictOf(report: ApiBenchReport): ApiVerdict {
  const belowTarget = report.operations.filter((o) => o.ratio < TARGET_RATIO);
  const regressions = report.operations.filter((o) => o.ratio < GUARD_RATIO);
  const growth = (database: Database, operation: Operation): number | null => {
    const points = report.series
      .filter((s) => s.database === database && s.operation === operation)
      .sort((a, b) => a.rows - b.rows);
    const first = points[0];
    const last = points.at(-1);
    return first && last && points.length > 1 ? last.generated.p50 / first.generated.p50 : null;
  };
  const listGrowth: ApiVerdict['listGrowth'] = [];
  for (const database of DATABASES) {
    const list = growth(database, 'list');
    const deep = growth(database, 'list-deep');
    if (list === null || deep === null) continue;
    const flat = list <= FLAT_LATENCY_FACTOR && deep <= FLAT_LATENCY_FACTOR;
    listGrowth.push({ database, list, 'list-deep': deep, flat });
  }
  return { belowTarget, regressions, listGrowth };
}

const int = (n: number) => Math.round(n).toLocaleString('en');
const cpu = (m: Measurement) => (m.cpuUs === null ? '–' : Math.round(m.cpuUs).toLocaleString('en'));
const ms = (n: number) => n.toFixed(n < 10 ? 1 : 0);
const mb = (kb: number | null | undefined) => (kb == null ? '–' : (kb / 1024).toFixed(0));

/** The databases the report has figures for, in the order they ran. */
function reportDatabases(report: ApiBenchReport): Database[] {
  return DATABASES.filter(
    (d) => report.operations.some((o) => o.database === d) || report.series.some((s) => s.database === d),
  );
}

/**
 * The results as Markdown: the comparison table, json-server next to the generated server, the
 * list-latency series, start-up times, memory, and the verdict.
 */
export function formatApiReport(report: ApiBenchReport, command: string): string {
  const { options } = report;
  const verdict = verdictOf(report);
  const databases = reportDatabases(report);
  const out: string[] = [];
  const minutes = report.seconds >= 60 ? `${(report.seconds / 60).toFixed(1)} min` : `${report.seconds.toFixed(0)} s`;
  out.push(
    `${report.startedAt.toISOString().slice(0, 10)} · ${report.machine}. ` +
      `${report.pinned ? 'Each server pinned to CPU 0, autocannon on CPU 1' : 'Not pinned (no taskset or one CPU)'}; ` +
      `\`-c ${options.connections}\`, ${options.rounds} runs of ${options.calls === undefined ? `${options.seconds} s` : `${options.calls} calls`} per server and call after ${options.warmupSeconds} s of warm-up, ` +
      'the servers taking turns; medians of the runs, each ratio the median of the rounds’ ratios.' +
      (report.postgres ? ` ${report.postgres}; its processes are not pinned and share both CPUs.` : '') +
      ` The whole run took ${minutes}. Command: \`${command}\`.`,
    '',
  );
  if (report.operations.length > 0) {
    out.push(
      '| database | call | rows | generated req/s | p50 ms | p99 ms | CPU µs/req | hand-written req/s | p50 ms | p99 ms | CPU µs/req | generated ÷ hand-written req/s | same, by CPU per request |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const o of report.operations) {
      const g = o.generated;
      const b = o.baseline;
      out.push(
        `| ${DATABASE_LABELS[o.database]} | ${OPERATION_LABELS[o.operation]} | ${int(o.rows)} | ${int(g.rps)} | ${ms(g.p50)} | ${ms(g.p99)} | ${cpu(g)} | ${int(b.rps)} | ${ms(b.p50)} | ${ms(b.p99)} | ${cpu(b)} | **${o.ratio.toFixed(2)}×** | ${o.cpuRatio === null ? '–' : `${o.cpuRatio.toFixed(2)}×`} |`,
      );
    }
    out.push('');
  }
  const served = report.operations.filter((o) => o.served !== null);
  if (served.length > 0) {
    out.push(
      'The default configuration: the generated server as `ninepoint serve` runs it when its output is not a terminal, request logs on ' +
        '(one JSON line per request through pino’s asynchronous destination, into a file), taking turns with the two above:',
      '',
      '| database | call | served req/s | p50 ms | p99 ms | CPU µs/req | served ÷ hand-written req/s | served ÷ logging off req/s | CPU per request, logging off ÷ on | log lines per answer |',
      '|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const o of served) {
      const s = o.served as ServedResult;
      const m = s.measurement;
      const cpuShare = s.cpuLoggingRatio === null ? '–' : `${s.cpuLoggingRatio.toFixed(2)}×`;
      out.push(
        `| ${DATABASE_LABELS[o.database]} | ${OPERATION_LABELS[o.operation]} | ${int(m.rps)} | ${ms(m.p50)} | ${ms(m.p99)} | ${cpu(m)} | **${s.ratio.toFixed(2)}×** | **${s.loggingRatio.toFixed(2)}×** | ${cpuShare} | ${s.linesPerRequest.toFixed(2)} |`,
      );
    }
    out.push(
      '',
      'A log line per answer is a little above 1: the requests under way when a run ends are answered and logged after autocannon stops counting.',
      '',
    );
  }
  const floored = report.operations.filter((o) => o.floor !== null);
  if (floored.length > 0) {
    // The visitor's and the session's columns, when either was measured (on the reads only).
    const callers = (['visitor', 'session'] as const).filter((c) => floored.some((o) => o[c] !== null));
    out.push(
      'The floor (issue 31): the hand-written server without the token lookup and the rate limit, no logging — the same reads and writes, ' +
        'what a visitor’s or a session’s call costs at the least. Ratios of the default configuration (served, request logs on) and of logging off to it, ' +
        'from the same rounds; CPU per answer is the server process’s user + system time from `/proc` ÷ answers (the steadier figure on a shared machine)' +
        (callers.length > 0
          ? '. The visitor is the default configuration on the spec with point 6 letting `anyone` read, called with no credential; ' +
            'the session is the default configuration called with the benchmark user’s session cookie from a real sign-in (both on get and the first page only):'
          : ':'),
      '',
      `| database | call | floor req/s | floor CPU µs/req | hand-written (token) CPU µs/req | served CPU µs/req | served ÷ floor CPU | served ÷ floor req/s | logging off CPU µs/req | logging off ÷ floor CPU | logging off ÷ floor req/s |${callers.map((c) => ` ${c} req/s | ${c} CPU µs/req | ${c} ÷ floor CPU | ${c} ÷ floor req/s |`).join('')}`,
      `|---|---|---|---|---|---|---|---|---|---|---|${'---|'.repeat(4 * callers.length)}`,
    );
    const times = (x: number | null) => (x === null ? '–' : `${x.toFixed(2)}×`);
    for (const o of floored) {
      const f = o.floor as FloorResult;
      const columns = callers.map((c) => {
        const r = o[c];
        return r === null
          ? ' – | – | – | – |'
          : ` ${int(r.measurement.rps)} | ${cpu(r.measurement)} | **${times(r.cpuRatio)}** | **${r.ratio.toFixed(2)}×** |`;
      });
      out.push(
        `| ${DATABASE_LABELS[o.database]} | ${OPERATION_LABELS[o.operation]} | ${int(f.measurement.rps)} | ${cpu(f.measurement)} | ${cpu(o.baseline)} | ${o.served ? cpu(o.served.measurement) : '–'} | **${times(f.cpuRatio)}** | **${f.ratio.toFixed(2)}×** | ${cpu(o.generated)} | ${times(f.generatedCpuRatio)} | ${f.generatedRatio.toFixed(2)}× |${columns.join('')}`,
      );
    }
    out.push('');
  }
  for (const o of report.operations) {
    if (o.durable === null) continue;
    const d = o.durable.measurement;
    out.push(
      `Durability on ${DATABASE_LABELS[o.database]}: ${OPERATION_LABELS[o.operation]} with \`--sqlite-synchronous full\` (every commit synced to disk before it is answered; logging off, like the generated column) ` +
        `${int(d.rps)} req/s, p50 ${ms(d.p50)} ms, p99 ${ms(d.p99)} ms, CPU ${cpu(d)} µs/req: **${o.durable.ratio.toFixed(2)}×** the default \`synchronous=NORMAL\` (${int(o.generated.rps)} req/s) in the same rounds` +
        ` — ${o.durable.ratio >= DURABLE_TARGET ? 'at least' : 'below'} the ${DURABLE_TARGET}× issue 19 asks of it${o.durable.ratio >= DURABLE_TARGET ? '' : ' (writes are group-committed, one sync per batch: its figures swing with the disk’s sync time, docs/reliability.md)'}.`,
      '',
    );
  }
  if (report.ceiling) {
    const fastest = Math.max(0, ...report.operations.map((o) => Math.max(o.generated.rps, o.baseline.rps)));
    const limited = fastest > 0.7 * report.ceiling.rps;
    out.push(
      `Load generator ceiling: a bare \`node:http\` server answering a small JSON to the same get requests reaches ${int(report.ceiling.rps)} req/s (p50 ${ms(report.ceiling.p50)} ms)` +
        (limited
          ? ' — close to the fastest server above, so autocannon may be what limits it: compare the CPU columns.'
          : ', well above every server here: the figures are the servers’ own.'),
      '',
    );
  }
  if (report.peers.length > 0) {
    const first = report.peers[0] as PeerResult;
    out.push(
      `json-server ${JSON_SERVER_VERSION} (the npm peer) on the same orders, taking turns with the two servers above on ${DATABASE_LABELS[first.database]} ` +
        `(its nearest calls: \`GET /orders/:id\`, \`GET /orders?_page=1&_limit=50\`, the page of 50 from the middle by number, \`POST /orders\`). ` +
        'It checks no token, validates nothing and writes no history, so the generated server does more per call. ' +
        'It keeps every record in memory, finds one by scanning its array, and on every create serialises its whole database and rewrites db.json:',
      '',
      `| call | json-server rows | json-server req/s | p50 ms | p99 ms | CPU µs/req | generated req/s (${int(first.generatedRows)} rows) | p50 ms | p99 ms | generated ÷ json-server req/s |`,
      '|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const p of report.peers) {
      const j = p.jsonServer;
      const g = p.generated;
      out.push(
        `| ${OPERATION_LABELS[p.operation]} | ${int(p.rows)} | ${int(j.rps)} | ${ms(j.p50)} | ${ms(j.p99)} | ${cpu(j)} | ${int(g.rps)} | ${ms(g.p50)} | ${ms(g.p99)} | **${p.ratio.toFixed(2)}×** |`,
      );
    }
    out.push('');
    const probe = report.peerProbe;
    if (probe) {
      const readRows = report.peers.find((p) => p.operation !== 'create')?.rows;
      const createRows = report.peers.find((p) => p.operation === 'create')?.rows;
      const wait = (ms: number) => `${((options.connections * ms) / 1000).toFixed(1)} s`;
      out.push(
        `Why smaller tables for json-server: every call costs it time in proportion to what it holds. Holding ${int(probe.rows)} orders ` +
          `(db.json ${probe.fileMb.toFixed(0)} MB, ${mb(probe.idleKb)} MB resident when idle), one call at a time (median of 5) takes ` +
          `${ms(probe.getMs)} ms for a get, ${ms(probe.listMs)} ms for a first page and ${ms(probe.createMs)} ms for a create. ` +
          `With ${options.connections} connections a call would wait about ${wait(probe.getMs)} (get) to ${wait(probe.createMs)} (create), longer than a run` +
          (readRows !== undefined ? `, so its runs above hold ${int(readRows)} orders` : '') +
          (createRows !== undefined ? ` (${int(createRows)} for create)` : '') +
          '. The generated server’s cost per call does not grow with the table.',
        '',
      );
    }
  }
  if (report.series.length > 0) {
    out.push(
      'List latency by table size (the same two list calls):',
      '',
      '| database | rows | first page: generated req/s | p50 ms | p99 ms | hand-written req/s | middle page: generated req/s | p50 ms | p99 ms | hand-written req/s | seeded in |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
    );
    for (const database of databases) {
      const sizes = [...new Set(report.series.filter((s) => s.database === database).map((s) => s.rows))].sort(
        (a, b) => a - b,
      );
      for (const rows of sizes) {
        const first = report.series.find((s) => s.database === database && s.rows === rows && s.operation === 'list');
        const deep = report.series.find(
          (s) => s.database === database && s.rows === rows && s.operation === 'list-deep',
        );
        if (!first || !deep) continue;
        const seeded = report.seedSeconds.get(seedKey(database, rows));
        out.push(
          `| ${DATABASE_LABELS[database]} | ${int(rows)} | ${int(first.generated.rps)} | ${ms(first.generated.p50)} | ${ms(first.generated.p99)} | ${int(first.baseline.rps)} | ${int(deep.generated.rps)} | ${ms(deep.generated.p50)} | ${ms(deep.generated.p99)} | ${int(deep.baseline.rps)} | ${seeded === undefined ? '' : `${seeded.toFixed(1)} s`} |`,
        );
      }
    }
    out.push('');
  }
  if (report.startup.length > 0) {
    const runs = report.startup[0]?.runsMs.length ?? 0;
    out.push(
      `Start-up: \`ninepoint serve examples/lending-desk.md\` (${report.pinned ? 'pinned to CPU 0' : 'not pinned'}) from spawning the process to its first 200 from \`/api/health\`, ${runs} starts each; ` +
        'a new database is empty (the start lays it out: the migration), an existing one was laid out by an earlier start:',
      '',
      '| database | state | median ms | fastest ms | slowest ms |',
      '|---|---|---|---|---|',
    );
    for (const s of report.startup) {
      out.push(
        `| ${DATABASE_LABELS[s.database]} | ${s.state} | ${int(median(s.runsMs))} | ${int(Math.min(...s.runsMs))} | ${int(Math.max(...s.runsMs))} |`,
      );
    }
    out.push('');
  }
  if (report.memory.length > 0) {
    out.push(
      `Memory: each server process’s resident set (\`VmRSS\`), idle after start-up (before its first request) and the peak of samples every ${RSS_SAMPLE_MS} ms during all its load runs:`,
      '',
      '| server | database | rows | idle MB | peak under load MB |',
      '|---|---|---|---|---|',
    );
    for (const m of report.memory) {
      const where = m.database === null ? 'its own memory (db.json)' : DATABASE_LABELS[m.database];
      const name = m.server === 'baseline' ? 'hand-written' : m.server;
      const server = m.use === undefined ? name : `${name} (${m.use === 'read' ? 'the reads' : 'create'})`;
      out.push(`| ${server} | ${where} | ${int(m.rows)} | ${mb(m.idleKb)} | ${mb(m.peakKb)} |`);
    }
    out.push('');
  }
  for (const database of databases) {
    const results = report.operations.filter((o) => o.database === database);
    if (results.length === 0) continue;
    const below = results.filter((o) => o.ratio < TARGET_RATIO);
    const ratios = results.map((o) => `${o.operation} ${o.ratio.toFixed(2)}×`).join(', ');
    out.push(
      `Target on ${DATABASE_LABELS[database]}: generated ≥ ${TARGET_RATIO}× the hand-written throughput on each call — ${below.length === 0 ? 'met' : `NOT met (${below.map((o) => o.operation).join(', ')})`} (${ratios}).`,
    );
  }
  for (const database of databases) {
    const results = report.operations.filter((o) => o.database === database && o.served !== null);
    if (results.length === 0) continue;
    const costly = results.filter((o) => (o.served as ServedResult).loggingRatio < 1 - LOGGING_COST);
    const logging = results
      .map((o) => `${o.operation} ${(o.served as ServedResult).loggingRatio.toFixed(2)}×`)
      .join(', ');
    out.push(
      `Request logs on ${DATABASE_LABELS[database]}: the default \`serve\` within ${LOGGING_COST * 100}% of logging off on each call — ${costly.length === 0 ? 'met' : `NOT met (${costly.map((o) => o.operation).join(', ')})`} (${logging}).`,
    );
    const targeted = results.filter((o) => SERVED_TARGETS[o.operation] !== undefined);
    const short = targeted.filter((o) => (o.served as ServedResult).ratio < (SERVED_TARGETS[o.operation] ?? 0));
    const goals = targeted
      .map((o) => `${o.operation} ${(o.served as ServedResult).ratio.toFixed(2)}× (≥ ${SERVED_TARGETS[o.operation]}×)`)
      .join(', ');
    if (targeted.length > 0) {
      out.push(
        `The default \`serve\` on ${DATABASE_LABELS[database]} against the hand-written server — ${short.length === 0 ? 'met' : `NOT met (${short.map((o) => o.operation).join(', ')})`}: ${goals}.`,
      );
    }
  }
  // Issue 31 sets these on SQLite; on PostgreSQL its measure is the hand-written node-postgres server.
  for (const [caller, who] of [
    ['visitor', 'A visitor'],
    ['session', 'A session'],
  ] as const) {
    const results = report.operations.filter((o) => o.database === 'sqlite' && o[caller] !== null);
    if (results.length === 0) continue;
    const { cpu: most, throughput: least } = CALLER_TARGETS;
    const short = results.filter((o) => {
      const r = o[caller] as CallerResult;
      return r.cpuRatio === null || r.cpuRatio > most || r.ratio < least;
    });
    const figures = results
      .map((o) => {
        const r = o[caller] as CallerResult;
        return `${o.operation} ${r.cpuRatio === null ? '–' : r.cpuRatio.toFixed(2)}× CPU, ${r.ratio.toFixed(2)}× req/s`;
      })
      .join('; ');
    out.push(
      `${who}'s call on SQLite against the floor: CPU ≤ ${most}× and throughput ≥ ${least}× on ${results.map((o) => o.operation).join(' and ')} — ${short.length === 0 ? 'met' : `NOT met (${short.map((o) => o.operation).join(', ')})`} (${figures}).`,
    );
  }
  for (const growth of verdict.listGrowth) {
    const sizes = report.series.filter((s) => s.database === growth.database).map((s) => s.rows);
    const range = `${int(Math.min(...sizes))} to ${int(Math.max(...sizes))} rows`;
    out.push(
      `List latency on ${DATABASE_LABELS[growth.database]} from ${range}: generated p50 ×${growth.list.toFixed(2)} (first page), ×${growth['list-deep'].toFixed(2)} (middle page) — ${growth.flat ? 'flat' : 'NOT flat'} (limit ${FLAT_LATENCY_FACTOR}×).`,
    );
  }
  if (verdict.regressions.length > 0) {
    out.push(
      `REGRESSION: below ${GUARD_RATIO}× on ${verdict.regressions.map((o) => `${o.operation} (${DATABASE_LABELS[o.database]})`).join(', ')}; \`npm run bench\` fails.`,
    );
  }
  for (const skipped of report.skipped) out.push(`Skipped: ${skipped}`);
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
