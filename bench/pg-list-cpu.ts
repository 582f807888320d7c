// `node bench/pg-list-cpu.ts [lists] [list|get]`: the CPU time of a first page of 50 (or a get by id) on PostgreSQL, the
// generated server against the hand-written node-postgres one, both in this process through
// Fastify's `inject` (no sockets: what is left is the servers' own work and pg's), 10 lists at a
// time, 4 measured rounds after one warm-up, on a new schema of 10,000 orders (dropped after).
// Steadier than the HTTP benchmark on a loaded machine; issue 31 measured its PostgreSQL change
// with it (docs/benchmarks.md).
import { createServer } from '@ninepoint/server';
import { createPgBaseline } from './api-baseline-pg.ts';
import { benchModel, orderId, seedPostgres } from './api-bench.ts';
import { postgresUrlOf } from './postgres.ts';

const lists = Number(process.argv[2] ?? 1000);
const call = process.argv[3] ?? 'list';
const url = (i: number) => (call === 'get' ? `/api/orders/${orderId(1 + ((i * 7919) % 10_000))}` : '/api/orders');
const seeded = await seedPostgres(postgresUrlOf(), 10_000);
try {
  const server = await createServer({ model: benchModel(), databaseUrl: seeded.location, logger: false });
  const baseline = createPgBaseline(seeded.location);
  await baseline.ready();
  const headers = { authorization: `Bearer ${seeded.token}` };
  const apps = [
    ['generated', server.app],
    ['hand-written', baseline],
  ] as const;
  for (let round = 0; round < 5; round++) {
    const cpu: number[] = [];
    for (const [name, app] of apps) {
      const started = process.cpuUsage();
      for (let i = 0; i < lists; i += 10) {
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, j) => app.inject({ method: 'GET', url: url(i + j), headers })),
        );
        for (const a of answers) if (a.statusCode !== 200) throw new Error(`${name}: ${a.statusCode} ${a.body}`);
      }
      const used = process.cpuUsage(started);
      cpu.push((used.user + used.system) / lists);
    }
    if (round > 0) {
      const [g = 0, h = 0] = cpu;
      console.log(
        `round ${round}: generated ${g.toFixed(0)} µs, hand-written ${h.toFixed(0)} µs per ${call} (${(g / h).toFixed(2)}×)`,
      );
    }
  }
  await server.close();
  await baseline.close();
} finally {
  await seeded.remove();
}
