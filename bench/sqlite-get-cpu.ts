// `node bench/sqlite-get-cpu.ts [answers] [get|list]`: the CPU time of a get by id (or a first page
// of 50) on SQLite, the generated server (with the benchmark's API token, logger off) against the
// floor (the hand-written server without auth), both in this process through Fastify's `inject`
// (no sockets), 10 calls at a time, 4 measured rounds after one warm-up, on a new file of 10,000
// orders (removed after). Issue 31 measured its token and request-path changes with it.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from '@ninepoint/server';
import { createBaseline } from './api-baseline.ts';
import { benchModel, orderId, seedDatabase } from './api-bench.ts';

const answers = Number(process.argv[2] ?? 5000);
const call = process.argv[3] ?? 'get';
const seeded = await seedDatabase(join(tmpdir(), `np-get-cpu-${process.pid}.db`), 10_000);
try {
  const server = await createServer({ model: benchModel(), dbPath: seeded.location, logger: false });
  const floor = createBaseline(seeded.location, { auth: false });
  await floor.ready();
  const headers = { authorization: `Bearer ${seeded.token}` };
  const url = (i: number) => (call === 'list' ? '/api/orders' : `/api/orders/${orderId(1 + ((i * 7919) % 10_000))}`);
  const apps = [
    ['generated', server.app, headers],
    ['floor', floor, {}],
  ] as const;
  for (let round = 0; round < 5; round++) {
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
      const [g = 0, f = 0] = cpu;
      console.log(
        `round ${round}: generated ${g.toFixed(1)} µs, floor ${f.toFixed(1)} µs per ${call} (${(g / f).toFixed(2)}×)`,
      );
    }
  }
  await server.close();
  await floor.close();
} finally {
  await seeded.remove();
}
