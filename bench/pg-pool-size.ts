// `[ROUNDS=3] node bench/pg-pool-size.ts [calls] [sizes]`: how the PostgreSQL pool's size bears on
// a first page of 50 and a create under concurrency. One generated server per pool size (default
// 4, 10, 20, 40), all in this process on one new schema of 10,000 orders (dropped after), each
// answering `calls` calls 50 at a time through Fastify's `inject`, the sizes taking turns within
// each round; prints each size's calls a second and CPU per call, and its throughput ÷ the
// default size's (10) per round and as the median. Issue 31 set the default from it
// (docs/benchmarks.md).
import { createServer, type NinepointServer } from '@ninepoint/server';
import { benchModel, orderBody, seedPostgres } from './api-bench.ts';
import { postgresUrlOf } from './postgres.ts';

const calls = Number(process.argv[2] ?? 2000);
const sizes = (process.argv[3] ?? '4,10,20,40').split(',').map(Number);
const rounds = Number(process.env.ROUNDS ?? 3);
const CONCURRENCY = 50;
const seeded = await seedPostgres(postgresUrlOf(), 10_000);
try {
  const servers: [number, NinepointServer][] = [];
  for (const size of sizes) {
    servers.push([
      size,
      await createServer({
        model: benchModel(),
        databaseUrl: seeded.location,
        postgres: { poolSize: size },
        logger: false,
      }),
    ]);
  }
  const headers = { authorization: `Bearer ${seeded.token}`, 'content-type': 'application/json' };
  const shipBy = new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10);
  let n = 0;
  const call = async (server: NinepointServer, operation: string) => {
    const answer =
      operation === 'create'
        ? await server.app.inject({ method: 'POST', url: '/api/orders', headers, payload: orderBody(++n, shipBy) })
        : await server.app.inject({ method: 'GET', url: '/api/orders', headers });
    if (answer.statusCode >= 300) throw new Error(`${answer.statusCode} ${answer.body}`);
  };
  for (const operation of ['list', 'create']) {
    const ratios = new Map<number, number[]>(sizes.map((s) => [s, []]));
    for (let round = 0; round <= rounds; round++) {
      const rate = new Map<number, number>();
      const line: string[] = [];
      for (const [size, server] of servers) {
        let next = 0;
        const started = process.cpuUsage();
        const t0 = performance.now();
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (next++ < calls) await call(server, operation);
          }),
        );
        const seconds = (performance.now() - t0) / 1000;
        const used = process.cpuUsage(started);
        rate.set(size, calls / seconds);
        line.push(`${size}: ${(calls / seconds).toFixed(0)}/s ${((used.user + used.system) / calls).toFixed(0)} µs`);
      }
      if (round === 0) continue;
      const base = rate.get(10) ?? rate.get(sizes[0] as number) ?? 1;
      for (const size of sizes) ratios.get(size)?.push((rate.get(size) ?? 0) / base);
      console.log(`${operation} round ${round}: ${line.join(', ')}`);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    console.log(
      `${operation}: throughput ÷ pool of 10, median of ${rounds}: ${sizes.map((s) => `${s}: ${median(ratios.get(s) ?? []).toFixed(2)}×`).join(', ')}`,
    );
  }
  for (const [, server] of servers) await server.close();
} finally {
  await seeded.remove();
}
