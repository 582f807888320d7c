// `node bench/rss.ts [requests] [snapshot dir]`: whether the default `serve` keeps memory it does
// not need (issue 31). Seeds 10,000 orders, starts the served server (request logs to /dev/null)
// with `--heapsnapshot-signal`, warms it up with mixed requests (get, first page, create),
// then sends `requests` more (default 100,000) in rounds of 20,000. After each round it prints the
// least and the most RSS sampled during it (every 100 ms), and the RSS once the load has stopped,
// against the same after the warm-up: what the process keeps. With
// a folder, a heap snapshot is written there after the warm-up and at the end (compare them in
// Chrome DevTools). Each round also says where the memory is (bench/report-memory.ts, loaded into
// the server): V8's young and old generations and its other spaces, the live heap, and what lies
// outside V8's heap and external memory.
// The warm-up's line and each round's also give the C heap: malloc's main arena (the `[heap]`
// mapping of `/proc/<pid>/smaps`), all the main thread's C allocations. SQLite's page cache lives
// there, up to 16 MB per connection as better-sqlite3 builds SQLite, and it fills as the table
// grows (a third of the requests are creates). The warm-up (`BENCH_WARMUP` requests, default
// 60,000) is long enough for that cache to reach its cap, so the measured rounds show what the
// server keeps beyond its bounded caches; after the 20,000 of earlier runs, the first measured
// round still grew the C heap by 5–6 MB.
// `BENCH_SETTLE_MS` (default 600) is how long each round waits after its load before reading the
// RSS: V8's memory reducer collects the garbage of a burst about 8 s after the allocations stop,
// so 10000 reads what a server keeps once idle, the default what it holds just after a burst.
// The server runs with the node flags Ninepoint's launchers give it (scripts/node-flags.mjs);
// `BENCH_NODE_FLAGS` adds more, which win (`--max-semi-space-size=64`, say). Not part of `npm run
// bench`: it answers one question (docs/benchmarks.md).
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { NODE_FLAGS } from '../scripts/node-flags.mjs';
import { requestFor, rssKb, seedDatabase } from './api-bench.ts';
import { spawnNode } from './child.ts';
import { describeMemory, type MemoryReport } from './memory-report.ts';

const total = Number(process.argv[2] ?? 100_000);
const snapshots = process.argv[3];
const ROUND = 20_000;
const WARMUP = Number(process.env.BENCH_WARMUP ?? 60_000);
if (!Number.isInteger(WARMUP) || WARMUP < 1)
  throw new Error(`BENCH_WARMUP must be a whole number of requests, not ${process.env.BENCH_WARMUP}`);
const dir = mkdtempSync(join(os.tmpdir(), 'ninepoint-rss-'));
const seeded = await seedDatabase(join(dir, 'orders.db'), 10_000);
const devNull = openSync('/dev/null', 'a');
const memoryFile = join(dir, 'memory.json');
const { child, stop } = spawnNode(
  [
    ...NODE_FLAGS,
    ...(process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter((flag) => flag !== ''),
    '--import',
    new URL('./report-memory.ts', import.meta.url).pathname,
    ...(snapshots ? [`--heapsnapshot-signal=SIGUSR2`, `--diagnostic-dir=${snapshots}`] : []),
    new URL('./api-server.ts', import.meta.url).pathname,
    'served',
    seeded.location,
  ],
  { pin: false, stdio: ['pipe', devNull, 'inherit', 'pipe'], env: { ...process.env, BENCH_MEMORY_FILE: memoryFile } },
);
const line = await new Promise<string>((resolve) =>
  createInterface({ input: child.stdio[3] as NodeJS.ReadableStream }).once('line', resolve),
);
const { url, pid } = JSON.parse(line) as { url: string; pid: number };
const mixed = [requestFor('get', seeded), requestFor('list', seeded), requestFor('create', seeded)];
/** Sends `amount` requests; answers the least and the most RSS sampled (every 100 ms) meanwhile, in KB. */
const send = async (amount: number): Promise<[number, number]> => {
  let least = Number.POSITIVE_INFINITY;
  let most = 0;
  const sample = () => {
    const kb = rssKb(pid);
    if (kb !== null) [least, most] = [Math.min(least, kb), Math.max(most, kb)];
  };
  const sampler = setInterval(sample, 100);
  try {
    const result = await autocannon({ url, connections: 50, amount, requests: mixed });
    if (result.non2xx + result.errors > 0) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
  } finally {
    clearInterval(sampler);
  }
  sample();
  return [least, most];
};
const mb = (kb: number) => (kb / 1024).toFixed(1);
/** The server's RSS now, in KB. */
const rss = (): number => {
  const kb = rssKb(pid);
  if (kb === null) throw new Error(`the server (pid ${pid}) is gone`);
  return kb;
};
/** The RSS of malloc's main arena (the `[heap]` mapping) in KB, null where there is none (musl, say). */
const cHeap = (): number | null => {
  const smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const at = smaps.search(/ \[heap\]\n/);
  // A mapping's fields follow its header line: the first `Rss:` after it is the heap's.
  const match = at < 0 ? null : /^Rss:\s+(\d+) kB/m.exec(smaps.slice(at));
  return match ? Number(match[1]) : null;
};
/** Where the server's memory is now, `BENCH_SETTLE_MS` after the load, as report-memory.ts last wrote it. */
const where = async (): Promise<string> => {
  await new Promise((r) => setTimeout(r, Number(process.env.BENCH_SETTLE_MS ?? 600)));
  if (!existsSync(memoryFile)) return '';
  return `; ${describeMemory(JSON.parse(readFileSync(memoryFile, 'utf8')) as Partial<MemoryReport>)}`;
};
const snapshot = async (name: string) => {
  if (!snapshots) return;
  const before = new Set(readdirSync(snapshots));
  child.kill('SIGUSR2');
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const made = readdirSync(snapshots).find((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
    // Written once its size stops changing.
    if (made) {
      await new Promise((r) => setTimeout(r, 3000));
      renameSync(join(snapshots, made), join(snapshots, `${name}.heapsnapshot`));
      return;
    }
  }
};
try {
  console.log(`idle: RSS ${mb(rss())} MB`);
  let [warm, warmMost] = [Number.POSITIVE_INFINITY, 0];
  for (let sent = 0; sent < WARMUP; sent += ROUND) {
    const [least, most] = await send(Math.min(ROUND, WARMUP - sent));
    [warm, warmMost] = [Math.min(warm, least), Math.max(warmMost, most)];
  }
  // The warm-up's least RSS is the one at its start, before the server grew. Each round is compared
  // instead with the RSS read once the load has stopped (`where` waits BENCH_SETTLE_MS) after the warm-up,
  // and after the heap snapshot, whose full collection changes it.
  const warmWhere = await where();
  await snapshot('after-warm-up');
  const kept = rss();
  const keptC = cHeap();
  console.log(
    `${WARMUP.toLocaleString('en')} warm-up requests: RSS ${mb(warm)}–${mb(warmMost)} MB (least–most sampled), ${mb(kept)} MB after it, C heap ${keptC === null ? '–' : `${mb(keptC)} MB`}${warmWhere}`,
  );
  for (let sent = 0; sent < total; sent += ROUND) {
    const [least, most] = await send(ROUND);
    const at = await where();
    const after = rss();
    const c = cHeap();
    const sign = (kb: number) => `${kb >= 0 ? '+' : ''}${mb(kb)}`;
    console.log(
      `+${(sent + ROUND).toLocaleString('en')}: RSS ${mb(least)}–${mb(most)} MB, ${mb(after)} MB after it (${sign(after - kept)} MB against after the warm-up), C heap ${c === null || keptC === null ? '–' : `${mb(c)} MB (${sign(c - keptC)})`}${at}`,
    );
  }
  await snapshot('after-all');
} finally {
  await stop();
  await seeded.remove();
  rmSync(dir, { recursive: true, force: true });
}
