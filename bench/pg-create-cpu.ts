// `[ROUNDS=4] node bench/pg-create-cpu.ts [creates] [--statements]`: the CPU time of a create (the
// record and its history row) on PostgreSQL, the generated server against the hand-written
// node-postgres one, both in this process through Fastify's `inject` (no sockets), 10 creates at a
// time, the servers taking turns, ROUNDS measured rounds after one warm-up (and their medians), on a new schema of 10,000 orders (dropped after). With `--statements`
// it first prints the statements one create sends (each a round trip to PostgreSQL) for both
// servers. Issue 31 measured the PostgreSQL create path with it (docs/benchmarks.md).
import { createServer } from '@ninepoint/server';
import pg from 'pg';
import { createPgBaseline } from './api-baseline-pg.ts';
import { benchModel, orderBody, seedPostgres } from './api-bench.ts';
import { postgresUrlOf } from './postgres.ts';

const creates = Number(process.argv[2] ?? 1000);
const listStatements = process.argv.includes('--statements');
const rounds = Number(process.env.ROUNDS ?? 4);
const seeded = await seedPostgres(postgresUrlOf(), 10_000);
try {
  const server = await createServer({ model: benchModel(), databaseUrl: seeded.location, logger: false });
  const baseline = createPgBaseline(seeded.location);
  await baseline.ready();
  const headers = { authorization: `Bearer ${seeded.token}`, 'content-type': 'application/json' };
  const shipBy = new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10);
  let n = 0;
  const create = async (name: string, app: typeof baseline) => {
    const answer = await app.inject({ method: 'POST', url: '/api/orders', headers, payload: orderBody(++n, shipBy) });
    if (answer.statusCode !== 201) throw new Error(`${name}: ${answer.statusCode} ${answer.body}`);
  };
  const apps = [
    ['generated', server.app],
    ['hand-written', baseline],
  ] as const;
  if (listStatements) {
    // Every statement a pg client sends, by its text (prepared ones by name the first time).
    const sent: string[] = [];
    const original = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const first = args[0] as string | { text?: string };
      sent.push((typeof first === 'string' ? first : (first.text ?? '?')).replace(/\s+/g, ' ').slice(0, 110));
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original;
    for (const [name, app] of apps) {
      // The first creates touch the token (its last use): the third is the everyday one.
      await create(name, app);
      await create(name, app);
      await new Promise((resolve) => setTimeout(resolve, 50));
      sent.length = 0;
      await create(name, app);
      console.log(`${name}: ${sent.length} statements per create`);
      for (const s of sent) console.log(`  ${s}`);
    }
    pg.Client.prototype.query = original;
  }
  const ratios: { cpu: number; throughput: number }[] = [];
  for (let round = 0; round <= rounds; round++) {
    const cpu: number[] = [];
    const wall: number[] = [];
    for (const [name, app] of apps) {
      const started = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < creates; i += 10) await Promise.all(Array.from({ length: 10 }, () => create(name, app)));
      const used = process.cpuUsage(started);
      wall.push(performance.now() - t0);
      cpu.push((used.user + used.system) / creates);
    }
    if (round > 0) {
      const [g = 0, h = 0] = cpu;
      const [gw = 0, hw = 0] = wall;
      ratios.push({ cpu: g / h, throughput: hw / gw });
      console.log(
        `round ${round}: generated ${g.toFixed(0)} µs, hand-written ${h.toFixed(0)} µs CPU per create (${(g / h).toFixed(2)}×); wall ${((gw / creates) * 1000).toFixed(0)} vs ${((hw / creates) * 1000).toFixed(0)} µs (${(hw / gw).toFixed(2)}× throughput)`,
      );
    }
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  console.log(
    `median of ${rounds} rounds: generated ÷ hand-written CPU per create ${median(ratios.map((r) => r.cpu)).toFixed(2)}×, throughput ${median(ratios.map((r) => r.throughput)).toFixed(2)}×`,
  );
  await server.close();
  await baseline.close();
} finally {
  await seeded.remove();
}
