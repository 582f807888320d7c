// `node bench/sqlite-get-cpu.ts [answers] [get|list] [served]`: the CPU time of a get by id (or a
// first page of 50) on SQLite, the generated server (with the benchmark's API token, logger off)
// against the floor (the hand-written server without auth), both in this process through Fastify's
// `inject` (no sockets), 10 calls at a time, 4 measured rounds after one warm-up, on a new file of
// 10,000 orders (removed after). With `served`, also the generated server with the logger
// `ninepoint serve` makes when stdout is not a terminal (one JSON line per request on stdout: send
// stdout to a file; the figures go to stderr). `BENCH_ROUNDS` sets the measured rounds (default 4);
// the least of each server's rounds ends the output. Issue 31 measured its token and request-path changes
// with it.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, createServer } from '@ninepoint/server';
import { createBaseline } from './api-baseline.ts';
import { benchModel, orderId, seedDatabase } from './api-bench.ts';

const answers = Number(process.argv[2] ?? 5000);
const call = process.argv[3] ?? 'get';
const withServed = process.argv[4] === 'served';
/** Measured rounds, after one warm-up (`BENCH_ROUNDS`, default 4). */
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
const print = withServed ? console.error : console.log;
const seeded = await seedDatabase(join(tmpdir(), `np-get-cpu-${process.pid}.db`), 10_000);
try {
  const server = await createServer({ model: benchModel(), dbPath: seeded.location, logger: false });
  const served = withServed
    ? await createServer({
        model: benchModel(),
        dbPath: seeded.location,
        logger: createLogger({ level: 'info', format: 'json' }),
      })
    : null;
  const floor = createBaseline(seeded.location, { auth: false });
  await floor.ready();
  const headers = { authorization: `Bearer ${seeded.token}` };
  const url = (i: number) => (call === 'list' ? '/api/orders' : `/api/orders/${orderId(1 + ((i * 7919) % 10_000))}`);
  const apps = [
    ['generated', server.app, headers],
    ['floor', floor, {}],
    ...(served ? ([['served', served.app, headers]] as const) : []),
  ] as const;
  const names = apps.map(([name]) => name);
  const perRound: number[][] = [];
  for (let round = 0; round <= rounds; round++) {
    const cpu: number[] = [];
    for (const [name, app, h] of apps) {
      const started = process.cpuUsage();
      for (let i = 0; i < answers; i += 10) {
        const got = await Promise.all(
          Array.from({ length: 10 }, (_, j) => app.inject({ method: 'GET', url: url(i + j), headers: h })),
        );
        for (const a of got) if (a.statusCode !== 200) throw new Error(`${name}: ${a.statusCode} ${a.body}`);
      }
      const used = process.cpuUsage(started);
      cpu.push((used.user + used.system) / answers);
    }
    if (round > 0) {
      perRound.push(cpu);
      const [g = 0, f = 0, s] = cpu;
      const logged = s === undefined ? '' : `, served ${s.toFixed(1)} µs (${(s / f).toFixed(2)}×)`;
      print(
        `round ${round}: generated ${g.toFixed(1)} µs, floor ${f.toFixed(1)} µs per ${call} (${(g / f).toFixed(2)}×)${logged}`,
      );
    }
  }
  // On a shared machine another process only ever adds to a round's time: the least is the steadiest.
  const least = names.map(
    (name, i) => `${name} ${Math.min(...perRound.map((cpu) => cpu[i] ?? Infinity)).toFixed(1)} µs`,
  );
  print(`least of ${rounds} rounds: ${least.join(', ')}`);
  await server.close();
  await served?.close();
  await floor.close();
} finally {
  await seeded.remove();
}
