// The scheduler's cost: one round of automatic transitions with 10,000 loans due at once on the
// lending desk example ("mark overdue", `system` when `now > due`), on SQLite and PostgreSQL:
// the round's time, the queries it sends (every statement run, counted at the driver), and the
// requests a second client gets through while the round runs (GET /api/loans/:id in a loop), and
// the same client's rate with no round running, to compare.
// `node bench/timers.ts [count] [--no-postgres] [--no-sqlite] [--batch n,m,…]`: `--batch` the records
// one PostgreSQL transaction takes (default the server's, PG_ROUND_BATCH), one run per size.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addUser, assignableRoles, createApiToken, createServer, type NinepointServer } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createSchema, postgresUnavailable, postgresUrlOf } from './postgres.ts';

const DAY = 86_400_000;
const args = process.argv.slice(2);
const COUNT = Number(args.find((a) => /^\d+$/.test(a)) ?? 10_000);
const batchArg = args.indexOf('--batch');
const BATCHES: (number | undefined)[] =
  batchArg >= 0 ? (args[batchArg + 1] ?? '').split(',').map((b) => Number(b)) : [undefined];
/** How long the reading client runs alone, for its rate without a round. */
const IDLE_MS = 3000;
const SOURCE = readFileSync(new URL('../examples/lending-desk.md', import.meta.url), 'utf8');

/** Every statement the drivers run, counted where they are sent. */
let statements = 0;
function countStatements(): void {
  const probe = new Database(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, unknown>;
  probe.close();
  for (const method of ['run', 'get', 'all', 'iterate']) {
    const original = statement[method] as (...a: unknown[]) => unknown;
    statement[method] = function counted(this: unknown, ...a: unknown[]) {
      statements++;
      return original.apply(this, a);
    };
  }
  const query = pg.Client.prototype.query as (...a: unknown[]) => unknown;
  pg.Client.prototype.query = function counted(this: unknown, ...a: unknown[]) {
    statements++;
    return query.apply(this, a);
  } as typeof pg.Client.prototype.query;
}

interface Result {
  database: string;
  due: number;
  taken: number;
  ms: number;
  /** This process's CPU time (user + system) during the first round: steadier than its wall time on a busy machine. */
  cpuMs: number;
  dueQueries: number;
  statements: number;
  /** The second round, with a client reading a loan in a loop beside it. */
  besideMs: number;
  readsDuring: number;
  /** The same reads with no round running, per second. */
  idlePerSecond: number;
}

async function benchOne(
  database: string,
  options: { dbPath?: string; databaseUrl?: string; roundBatch?: number },
): Promise<Result> {
  const { model, ok } = checkSpec(SOURCE);
  if (!ok) throw new Error('the lending desk example does not check');
  let at = Date.now();
  const server: NinepointServer = await createServer({ model, ...options, logger: false, now: () => at });
  try {
    await server.app.ready();
    await server.timers.idle();
    const loans = server.store.records('Loan');
    const books = server.store.records('Book');
    const bookId = randomUUID();
    const stamp = new Date(at).toISOString();
    const system = { at: stamp, by: null };
    await books.create(
      {
        id: bookId,
        created_at: stamp,
        updated_at: stamp,
        created_by: null,
        title: 'Dune',
        author: 'Herbert, Frank',
        isbn: '9780441172719',
        copies: 1,
        summary: null,
        cover: null,
        shelf: 'FIC-1',
      },
      system,
    );
    const borrower = randomUUID();
    await server.auth.users.add({
      id: borrower,
      email: 'member@example.test',
      name: 'Member',
      roles: ['member'],
      passwordHash: 'unusable: not an argon2 hash',
      createdAt: stamp,
    });
    const lent = new Date(at).toISOString().slice(0, 10);
    // Two batches: one falls due for the round timed alone, the other for the round beside reads.
    const rows: unknown[][] = [];
    for (let i = 0; i < 2 * COUNT; i++) {
      const due = new Date(at + (i < COUNT ? 14 : 21) * DAY).toISOString().slice(0, 10);
      rows.push([randomUUID(), stamp, stamp, null, 'out', bookId, borrower, lent, due, 0, null]);
    }
    // Straight into the table, 500 rows a statement: the loans' making is not what is measured.
    const columns = LOAN_COLUMNS.map((c) => `"${c}"`).join(', ');
    const row = `(${LOAN_COLUMNS.map(() => '?').join(', ')})`;
    for (let start = 0; start < rows.length; start += 500) {
      const batch = rows.slice(start, start + 500);
      await server.store.sql.run(
        `INSERT INTO "loans" (${columns}) VALUES ${batch.map(() => row).join(', ')}`,
        batch.flat(),
      );
    }
    const id = (
      await loans.list({
        sort: { column: 'created_at', descending: false },
        filters: [],
        search: null,
        owner: null,
        after: null,
        limit: 1,
        count: false,
      })
    ).records[0]?.id;
    const { authorization } = await tokenOf(server);
    let reading = true;
    let reads = 0;
    const read = async () => {
      while (reading) {
        await server.app.inject({ method: 'GET', url: `/api/loans/${id}`, headers: { authorization } });
        if (reading) reads++;
        // As requests arriving over a socket would: one per turn of the event loop.
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    // The reader alone first, on a settled server: its rate with no round running.
    const idle = read();
    const idleStarted = performance.now();
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    reading = false;
    await idle;
    const idlePerSecond = (reads / (performance.now() - idleStarted)) * 1000;
    at += 15 * DAY;
    const before = statements;
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const round = await server.timers.round();
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const sent = statements - before;
    at += 7 * DAY;
    reading = true;
    reads = 0;
    const reader = read();
    const besideStarted = performance.now();
    const beside = await server.timers.round();
    const besideMs = performance.now() - besideStarted;
    reading = false;
    await reader;
    const readsDuring = reads;
    if (beside.taken !== COUNT) throw new Error(`the second round took ${beside.taken} of ${COUNT}`);
    return {
      database,
      due: COUNT,
      taken: round.taken,
      ms,
      cpuMs,
      dueQueries: round.queries,
      statements: sent,
      besideMs,
      readsDuring,
      idlePerSecond,
    };
  } finally {
    await server.close();
  }
}

const LOAN_COLUMNS = [
  'id',
  'created_at',
  'updated_at',
  'created_by',
  'state',
  'book',
  'borrower',
  'lent_on',
  'due',
  'renewals',
  'condition_note',
];

async function tokenOf(server: NinepointServer): Promise<{ authorization: string }> {
  const known = assignableRoles(server.compiled.model);
  const user = await addUser(
    server.auth,
    { email: 's@example.test', roles: ['staff'], password: 'correct horse battery staple' },
    known,
  );
  const { secret } = await createApiToken(server.auth, user.email, 'bench');
  return { authorization: `Bearer ${secret}` };
}

countStatements();
const results: Result[] = [];
const dir = mkdtempSync(join(tmpdir(), 'np-timers-'));
try {
  if (!args.includes('--no-sqlite')) results.push(await benchOne('sqlite', { dbPath: join(dir, 'bench.db') }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const url = postgresUrlOf();
if (!args.includes('--no-postgres') && (await postgresUnavailable(url)) === null) {
  for (const batch of BATCHES) {
    const schema = await createSchema(url, 'np_timers');
    try {
      const label = batch === undefined ? 'postgres' : `postgres, ${batch} a transaction`;
      results.push(
        await benchOne(label, { databaseUrl: schema.url, ...(batch === undefined ? {} : { roundBatch: batch }) }),
      );
    } finally {
      await schema.drop();
    }
  }
}
console.log(
  '| database | due | taken | round ms | ms per record | CPU ms (Node) | due queries | statements | per record | round beside reads, ms | reads during it | reads with no round |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of results) {
  console.log(
    `| ${r.database} | ${r.due} | ${r.taken} | ${r.ms.toFixed(0)} | ${(r.ms / r.due).toFixed(3)} | ${r.cpuMs.toFixed(0)} | ${r.dueQueries} | ${r.statements} | ${(r.statements / r.due).toFixed(1)} | ${r.besideMs.toFixed(0)} | ${r.readsDuring} (${((r.readsDuring / r.besideMs) * 1000).toFixed(0)}/s) | ${r.idlePerSecond.toFixed(0)}/s |`,
  );
}
