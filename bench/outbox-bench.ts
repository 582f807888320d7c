// `node bench/outbox-bench.ts` (or `npm run bench -- outbox`): create-and-approve throughput of a
// spec declaring one call to another system and one notification per create and per approval,
// against the same spec declaring none, in one run: rounds alternate the two servers (each in a
// process of its own, on a fresh SQLite file), and the receiver of the calls answers 204 from
// this process. Delivery is off the request's path, so the target is `with` ≥ 0.9× `without`.
// BENCH_OUTBOX_ROUNDS (default 3) and BENCH_OUTBOX_SECONDS (default 5) size it.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnNode } from './child.ts';

const ROUNDS = Number(process.env.BENCH_OUTBOX_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_OUTBOX_SECONDS ?? 5);
const CONCURRENCY = 16;

export interface OutboxBenchReport {
  /** Create-and-approve pairs a second, median of the rounds. */
  with: number;
  without: number;
  ratio: number;
  /** Calls the receiver took during the `with` rounds. */
  calls: number;
}

async function startServer(kind: 'with' | 'without', dbPath: string, receiver: string) {
  const child = spawnNode([new URL('./outbox-server.ts', import.meta.url).pathname, kind, dbPath, receiver], {
    pin: false,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    void child.exited.then(() => reject(new Error(`the ${kind} server exited: ${child.stderr()}`)));
  });
  const { url, token } = JSON.parse(line) as { url: string; token: string };
  return { url, token, stop: child.stop };
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
  let calls = 0;
  const receiver = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls++;
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const dir = mkdtempSync(join(tmpdir(), 'ninepoint-outbox-bench-'));
  const results: Record<'with' | 'without', number[]> = { with: [], without: [] };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of round % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const)) {
        const server = await startServer(kind, join(dir, `${kind}-${round}.db`), receiverUrl);
        try {
          results[kind].push(await load(server.url, server.token));
        } finally {
          await server.stop();
        }
      }
    }
  } finally {
    receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const withRate = median(results.with);
  const withoutRate = median(results.without);
  return { with: withRate, without: withoutRate, ratio: withRate / withoutRate, calls };
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
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const report = await benchOutbox();
  console.log(formatOutboxReport(report));
}
