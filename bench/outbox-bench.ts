// `node bench/outbox-bench.ts` (or `npm run bench -- outbox`): create-and-approve throughput of a
// spec declaring one call to another system and one notification per create and per approval,
// against the same spec declaring none, in one run: rounds alternate the two servers (each in a
// process of its own, on a fresh SQLite file), and the receiver of the calls answers 204 from a
// process of its own (bench/outbox-receiver.ts), not the load generator's. Delivery is off the
// request's path, so the target is `with` ≥ 0.9× `without`.
// BENCH_OUTBOX_ROUNDS (default 3) and BENCH_OUTBOX_SECONDS (default 5) size it; BENCH_CPU_PROF (a
// folder) has the servers write CPU profiles there (`node bench/cpu-profile.ts` reads them).
// Each `with` round also waits for what its load left pending to be delivered, and reports how
// long that took and the server's CPU time per delivery meanwhile.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnNode } from './child.ts';

const ROUNDS = Number(process.env.BENCH_OUTBOX_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_OUTBOX_SECONDS ?? 5);
const CONCURRENCY = 16;
/** The longest the `with` server may take to deliver what a round's load left pending. */
const CATCH_UP_LIMIT_MS = 120_000;

export interface OutboxBenchReport {
  /** Create-and-approve pairs a second, median of the rounds. */
  with: number;
  without: number;
  ratio: number;
  /** Calls the receiver took during the `with` rounds (the load and the catch-up after it). */
  calls: number;
  /** The server's CPU time per pair under the load, median of the rounds, in µs. */
  cpuPerPair: { with: number; without: number };
  /** `with` rounds: deliveries made while the load ran, and those left pending when it ended (medians). */
  deliveredUnderLoad: number;
  pendingAfterLoad: number;
  /** `with` rounds: how long the server took to deliver what was left once the load ended (median, s). */
  catchUpSeconds: number;
  /** `with` rounds: the server's CPU time per delivery during that catch-up (median, µs). */
  cpuPerDelivery: number;
}

interface Stats {
  cpuUs: number;
  pending: number;
  delivered: number;
}

/** A Node process of the bench that answers in lines on stdout: `ask` writes a line and reads the next. */
async function lineChild(name: string, args: readonly string[]) {
  const child = spawnNode(args, { pin: false, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  let out = '';
  child.child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
    for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  const exited = child.exited.then(() => {
    throw new Error(`the ${name} exited: ${child.stderr()}`);
  });
  exited.catch(() => {});
  const next = () =>
    Promise.race([
      exited,
      new Promise<string>((resolve) => {
        const line = lines.shift();
        if (line !== undefined) resolve(line);
        else waiters.push(resolve);
      }),
    ]);
  const first = await next();
  const ask = async <T>(command: string): Promise<T> => {
    child.child.stdin?.write(`${command}\n`);
    return JSON.parse(await next()) as T;
  };
  return { first, ask, stop: child.stop };
}

async function startServer(kind: 'with' | 'without', dbPath: string, receiver: string, profile: string) {
  const profDir = process.env.BENCH_CPU_PROF;
  const prof = profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${profile}.cpuprofile`] : [];
  const server = await lineChild(`${kind} server`, [
    ...prof,
    new URL('./outbox-server.ts', import.meta.url).pathname,
    kind,
    dbPath,
    receiver,
  ]);
  const { url, token } = JSON.parse(server.first) as { url: string; token: string };
  return { url, token, stats: () => server.ask<Stats>('stats'), stop: server.stop };
}

/** Create-and-approve pairs a second, with `CONCURRENCY` clients for `SECONDS`. */
async function load(url: string, token: string): Promise<number> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const end = Date.now() + SECONDS * 1000;
  let pairs = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, n) => {
      for (let i = 0; Date.now() < end; i++) {
        const created = await fetch(`${url}/api/claims`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ title: `Claim ${n}-${i}`, amount: 12.5 }),
        });
        const { id } = (await created.json()) as { id: string };
        if (created.status !== 201) throw new Error(`create answered ${created.status}`);
        const approved = await fetch(`${url}/api/claims/${id}/approve`, { method: 'POST', headers, body: '{}' });
        await approved.arrayBuffer();
        if (approved.status !== 200) throw new Error(`approve answered ${approved.status}`);
        pairs++;
      }
    }),
  );
  return pairs / SECONDS;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

export async function benchOutbox(): Promise<OutboxBenchReport> {
  const receiver = await lineChild('receiver', [new URL('./outbox-receiver.ts', import.meta.url).pathname]);
  const receiverUrl = (JSON.parse(receiver.first) as { url: string }).url;
  const dir = mkdtempSync(join(tmpdir(), 'ninepoint-outbox-bench-'));
  const results: Record<'with' | 'without', number[]> = { with: [], without: [] };
  const cpuPerPair: Record<'with' | 'without', number[]> = { with: [], without: [] };
  const underLoad: number[] = [];
  const left: number[] = [];
  const catchUp: number[] = [];
  const cpuPerDelivery: number[] = [];
  let calls = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of round % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const)) {
        const server = await startServer(kind, join(dir, `${kind}-${round}.db`), receiverUrl, `${kind}-${round}`);
        try {
          const before = await server.stats();
          const rate = await load(server.url, server.token);
          const after = await server.stats();
          results[kind].push(rate);
          cpuPerPair[kind].push((after.cpuUs - before.cpuUs) / (rate * SECONDS));
          if (kind === 'with') {
            underLoad.push(after.delivered - before.delivered);
            left.push(after.pending);
            // What the load left pending, delivered with no request waiting.
            const started = performance.now();
            let now = after;
            while (now.pending > 0 && performance.now() - started < CATCH_UP_LIMIT_MS) {
              await new Promise((resolve) => setTimeout(resolve, 100));
              now = await server.stats();
            }
            if (now.pending > 0) {
              throw new Error(`${now.pending} deliveries still pending ${CATCH_UP_LIMIT_MS} ms after the load`);
            }
            catchUp.push((performance.now() - started) / 1000);
            const made = now.delivered - after.delivered;
            if (made > 0) cpuPerDelivery.push((now.cpuUs - after.cpuUs) / made);
          }
        } finally {
          await server.stop();
        }
      }
    }
    calls = (await receiver.ask<{ calls: number }>('count')).calls;
  } finally {
    await receiver.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const withRate = median(results.with);
  const withoutRate = median(results.without);
  return {
    with: withRate,
    without: withoutRate,
    ratio: withRate / withoutRate,
    calls,
    cpuPerPair: { with: median(cpuPerPair.with), without: median(cpuPerPair.without) },
    deliveredUnderLoad: median(underLoad),
    pendingAfterLoad: median(left),
    catchUpSeconds: median(catchUp),
    cpuPerDelivery: cpuPerDelivery.length > 0 ? median(cpuPerDelivery) : Number.NaN,
  };
}

/** The report as Markdown, for docs/benchmarks.md. */
export function formatOutboxReport(report: OutboxBenchReport): string {
  const verdict = report.ratio >= 0.9 ? 'met' : 'NOT met';
  return [
    '| spec | create + approve pairs/s (median) |',
    '|---|---|',
    `| no point 7 items | ${report.without.toFixed(0)} |`,
    `| one call and one notification per create and per approve | ${report.with.toFixed(0)} |`,
    '',
    `Ratio ${report.ratio.toFixed(2)}× (target ≥ 0.9×: ${verdict}); the receiver took ${report.calls} calls during the runs. ${ROUNDS} rounds of ${SECONDS} s, ${CONCURRENCY} clients, SQLite.`,
    '',
    `Server CPU per pair under load: ${report.cpuPerPair.without.toFixed(0)} µs without, ${report.cpuPerPair.with.toFixed(0)} µs with. ` +
      `With (medians of the rounds): ${report.deliveredUnderLoad} deliveries made during the load, ${report.pendingAfterLoad} left pending at its end, ` +
      `delivered ${report.catchUpSeconds.toFixed(1)} s after it at ${report.cpuPerDelivery.toFixed(0)} µs of server CPU each.`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const report = await benchOutbox();
  console.log(formatOutboxReport(report));
}
