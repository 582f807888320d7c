import { startServer, requestFor, load } from './api-bench.ts';
import { spawnSync } from 'node:child_process';
spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)]);
const bare = await startServer('bare', '/tmp/x', { pin: true });
const seeded = { path: '', orders: 100000, middleCursor: '' };
for (let i = 0; i < 6; i++) { const m = await load(bare.url, requestFor('get', seeded), 3, 100); console.log(Math.round(m.rps), m.p50, m.p99); }
await bare.stop();
