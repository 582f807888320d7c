// `node bench/token-lookup-cpu.ts [lookups]`: CPU µs of finding a request's API token on SQLite
// (hash + lookup, what `resolveActor` does), kept tokens (the runtime's `TokensStore`) against
// reading the token and its user every time (the same store over a runner without `changeStamp`),
// interleaved, 5 rounds, on a new database file (removed after). Issue 31.
import { hash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthStore, openStore } from '@ninepoint/server';

const secretHash = (secret: string) => hash('sha256', secret, 'hex');
const lookups = Number(process.argv[2] ?? 200_000);
const path = join(tmpdir(), `np-token-cpu-${process.pid}.db`);
const store = await openStore({ dbPath: path });
try {
  const kept = new AuthStore(store.sql);
  await kept.setUp();
  const sql = store.sql;
  // The runtime's runner without its change stamp: what every lookup did before tokens were kept.
  const plain: ConstructorParameters<typeof AuthStore>[0] = {
    dialect: sql.dialect,
    all: (s, p) => sql.all(s, p),
    get: (s, p) => sql.get(s, p),
    run: (s, p) => sql.run(s, p),
    exec: (s) => sql.exec(s),
  };
  const read = new AuthStore(plain);
  const id = '0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f';
  await kept.users.add({
    id,
    email: 'b@example.test',
    name: 'B',
    roles: ['staff'],
    createdAt: new Date().toISOString(),
    passwordHash: 'x',
  });
  const token = `npt_${randomBytes(32).toString('base64url')}`;
  await kept.tokens.create({ id: 't', userId: id, name: 'bench', hash: secretHash(token), now: Date.now() });
  for (let round = 0; round < 6; round++) {
    const cpu: number[] = [];
    for (const auth of [kept, read]) {
      const started = process.cpuUsage();
      for (let i = 0; i < lookups; i++) if (!auth.tokens.user(secretHash(token))) throw new Error('token not found');
      const used = process.cpuUsage(started);
      cpu.push((used.user + used.system) / lookups);
    }
    if (round > 0)
      console.log(`round ${round}: kept ${cpu[0]?.toFixed(2)} µs, read every time ${cpu[1]?.toFixed(2)} µs per lookup`);
  }
} finally {
  await store.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}
