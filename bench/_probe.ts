import { spawnSync } from 'node:child_process';
import { load, type Operation, requestFor, seedDatabase, startServer } from './api-bench.ts';

spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)]);
const rows = Number(process.env.ROWS ?? 100000);
const ops = (process.env.OPS ?? 'get').split(',') as Operation[];
const seconds = Number(process.env.SECS ?? 4);
const seeded = await seedDatabase('/tmp/probe/orders.db', rows);
const gen = await startServer('generated', seeded.path, {
  pin: true,
  ...(process.env.PROF ? { cpuProfDir: process.env.PROF, profileName: 'generated' } : {}),
});
const base = await startServer('baseline', seeded.path, {
  pin: true,
  ...(process.env.PROF ? { cpuProfDir: process.env.PROF, profileName: 'baseline' } : {}),
});
const served = new Map<string, number>();
for (const op of ops) {
  const req = requestFor(op, seeded);
  for (const s of [gen, base]) {
    const w = await load(s, req, 1, 100);
    served.set(s.kind, (served.get(s.kind) ?? 0) + w.requests);
  }
  for (let i = 0; i < Number(process.env.ROUNDS ?? 3); i++) {
    for (const s of [gen, base]) {
      const m = await load(s, req, seconds, 100);
      served.set(s.kind, (served.get(s.kind) ?? 0) + m.requests);
      console.log(op, s.kind, Math.round(m.rps), m.p50, m.p99, 'cpu µs', m.cpuUs?.toFixed(0));
    }
  }
}
console.log('served', [...served]);
await gen.stop();
await base.stop();
