import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSpec } from '@ninepoint/spec';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASES } from '../../packages/server/test/databases.ts';
import { killMoment, prng } from './desk.ts';
import { scaled } from './scale.ts';
import {
  type ApiUser,
  addApiUsers,
  call,
  type ServedDatabase,
  type ServeProcess,
  servedDatabase,
  startServe,
} from './server-process.ts';

/**
 * The outbox under SIGKILL: writers create and approve claims, each of which declares a signed
 * call, at a served app that is killed at a random moment (while writes run and while deliveries
 * are in flight: the receiver answers slowly), restarted on the same database, round after round.
 * At the end every committed change's call has arrived at the receiver at least once, counted by
 * `webhook-id`, every call verifies with the `standardwebhooks` package, each change's call kept
 * one `webhook-id` through its retries, and no call arrived for a write that did not commit.
 * On PostgreSQL, two servers then share the database: each call arrives once.
 */

const SEED = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const ROUNDS = scaled(3, 20);
const WRITERS = scaled(3, 5);
const RUN_MS: readonly [number, number] = scaled([200, 1200], [200, 2500]);
/** Changes each round has answered committed before its kill, however long that takes (up to a minute; the test allows 10). */
const COMMITTED_PER_ROUND = 2;
const SECRET = `whsec_${Buffer.from('outbox crash test secret, 32 b!').toString('base64')}`;

console.log(`outbox crash: CRASH_SEED=${SEED}, ${ROUNDS} rounds of ${WRITERS} writers`);

const SPEC = `# Specification: Claims

## 1. What the product does and for whom

Claims, approved and paid elsewhere.

## 2. Screens and routes

Not shown.

## 3. Entities and their fields

### Claim

| field | type | rules                     |
| ----- | ---- | ------------------------- |
| title | text | required, 3..80 characters |

## 4. States and transitions

### Claim

| transition | from  | to       |
| ---------- | ----- | -------- |
| open       | (new) | new      |
| approve    | new   | approved |

## 5. Validation rules

Not shown.

## 6. Roles and permissions

Not shown.

## 7. The calls it makes

### Calls to other systems

| on             | url          | body                | secret          |
| -------------- | ------------ | ------------------- | --------------- |
| create Claim   | env HOOK_URL | Claim (id, title)   | env HOOK_SECRET |
| Claim: approve | env HOOK_URL | Claim (id, state)   | env HOOK_SECRET |

## 8. The error catalogue

Not shown.

## 9. Business constants and limits

| name                  | value   |
| --------------------- | ------- |
| CALLS_TIMEOUT_SECONDS | 2       |
| RATE_LIMIT_PER_MINUTE | 1000000 |
`;

interface Arrival {
  webhookId: string;
  key: string;
  verified: boolean;
}

/** The receiver: verifies each call, answers after a random pause (so calls are in flight at a kill). */
async function startReceiver(random: () => number) {
  const verifier = new Webhook(SECRET);
  const arrivals: Arrival[] = [];
  const server: Server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      let verified = true;
      let payload: { type?: string; id?: string } = {};
      try {
        payload = verifier.verify(body, headers) as typeof payload;
      } catch {
        verified = false;
      }
      arrivals.push({ webhookId: headers['webhook-id'] ?? '', key: `${payload.id} ${payload.type}`, verified });
      setTimeout(() => res.end(), Math.floor(random() * 150));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { url, arrivals, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function until<T>(find: () => Promise<T | undefined> | T | undefined, ms: number): Promise<T | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const found = await find();
    if (found !== undefined || Date.now() > end) return found;
    await new Promise((r) => setTimeout(r, 200));
  }
}

// On PostgreSQL too: what survives a SIGKILL is each database's durability.
describe.each(TEST_DATABASES)('declared calls through SIGKILL on $name', (db) => {
  const { model } = checkSpec(SPEC);
  const random = prng(SEED + (db.name === 'postgres' ? 1 : 0));
  let dir: string;
  let specPath: string;
  let database: ServedDatabase;
  let remove: () => Promise<void>;
  let user: ApiUser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let servers: ServeProcess[] = [];
  /** Changes known committed (2xx), as `id type`; and writes whose answer a kill took. */
  const committed = new Set<string>();
  const unanswered: { id: string | null; key: string | null; kind: 'create' | 'approve'; title: string }[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ninepoint-outbox-crash-'));
    specPath = join(dir, 'claims.md');
    writeFileSync(specPath, SPEC);
    const fresh = await db.fresh();
    remove = fresh.remove;
    database = servedDatabase(fresh);
    [user] = (await addApiUsers(model, database, [{ email: `crash-${db.name}@example.test`, roles: [] }])) as [ApiUser];
    receiver = await startReceiver(random);
  });

  afterAll(async () => {
    for (const s of servers) await s.kill();
    await receiver?.close();
    await remove?.();
    rmSync(dir, { recursive: true, force: true });
  });

  const env = () => ({ HOOK_URL: receiver.url, HOOK_SECRET: SECRET, CALLS_ALLOW_PRIVATE: 'true' });

  async function writer(url: string, n: number): Promise<void> {
    for (let i = 0; ; i++) {
      const title = `w${n}-${Date.now()}-${i}`;
      let created: Awaited<ReturnType<typeof call>>;
      try {
        created = await call(url, user.token, 'POST', '/api/claims', { title });
      } catch {
        unanswered.push({ id: null, key: null, kind: 'create', title });
        return;
      }
      if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.text}`);
      const id = String(created.body.id);
      committed.add(`${id} claim.created`);
      // A write that is refused (too short a title) commits nothing and must send nothing.
      try {
        await call(url, user.token, 'POST', '/api/claims', { title: 'x' });
      } catch {
        return;
      }
      if (random() < 0.3) continue;
      try {
        const approved = await call(url, user.token, 'POST', `/api/claims/${id}/approve`);
        if (approved.status !== 200) throw new Error(`approve answered ${approved.status}: ${approved.text}`);
        committed.add(`${id} claim.approve`);
        // Approving twice is refused (it is approved): no second call.
        const again = await call(url, user.token, 'POST', `/api/claims/${id}/approve`);
        if (again.status !== 409) throw new Error(`a second approve answered ${again.status}`);
      } catch (error) {
        if (error instanceof Error && /answered/.test(error.message)) throw error;
        unanswered.push({ id, key: `${id} claim.approve`, kind: 'approve', title });
        return;
      }
    }
  }

  it(`every committed change's call arrives at least once through ${ROUNDS} kills, none for a write that did not commit`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const server = await startServe({ specPath, database: { ...database }, env: env(), startTimeoutMs: 120_000 });
      servers = [server];
      const committedBefore = committed.size;
      const runs = Array.from({ length: WRITERS }, (_, n) => writer(server.url, n));
      const [min, max] = RUN_MS;
      await killMoment(min + random() * (max - min), () => committed.size - committedBefore, COMMITTED_PER_ROUND);
      await server.kill();
      await Promise.all(runs);
    }
    const last = await startServe({ specPath, database: { ...database }, env: env(), startTimeoutMs: 120_000 });
    servers = [last];
    // What a kill left unanswered is settled by the database: it committed or it did not.
    for (const u of unanswered) {
      if (u.kind === 'approve' && u.id) {
        const record = await call(last.url, user.token, 'GET', `/api/claims/${u.id}`);
        if (record.body?.state === 'approved') committed.add(`${u.id} claim.approve`);
      }
    }
    const allCreated = await call(last.url, user.token, 'GET', '/api/claims?limit=200');
    expect(allCreated.status).toBe(200);
    const stored = new Map<string, string>();
    let page = allCreated;
    for (;;) {
      for (const r of page.body.items as { id: string; state: string }[]) stored.set(r.id, r.state);
      if (!page.body.next) break;
      page = await call(
        last.url,
        user.token,
        'GET',
        `/api/claims?limit=200&cursor=${encodeURIComponent(page.body.next)}`,
      );
    }
    // Every stored record's create committed, whether or not its answer arrived.
    for (const [id, state] of stored) {
      committed.add(`${id} claim.created`);
      if (state === 'approved') committed.add(`${id} claim.approve`);
    }
    const arrivedKeys = () => new Set(receiver.arrivals.map((a) => a.key));
    // A PostgreSQL server killed holding a lease leaves its calls to be claimed once it is over (9 s here).
    await until(() => ([...committed].every((k) => arrivedKeys().has(k)) ? true : undefined), 60_000);
    const arrived = arrivedKeys();
    const lost = [...committed].filter((k) => !arrived.has(k));
    const idsByKey = new Map<string, Set<string>>();
    for (const a of receiver.arrivals) idsByKey.set(a.key, (idsByKey.get(a.key) ?? new Set()).add(a.webhookId));
    const unexplained = [...arrived].filter((k) => !committed.has(k));
    const duplicates = receiver.arrivals.length - new Set(receiver.arrivals.map((a) => a.webhookId)).size;
    console.log(
      `outbox crash on ${db.name}: ${ROUNDS} kills, ${committed.size} committed changes, ${receiver.arrivals.length} arrivals, ${duplicates} duplicate deliveries (same webhook-id), ${lost.length} lost`,
    );
    expect(lost).toEqual([]);
    expect(unexplained).toEqual([]);
    expect(receiver.arrivals.every((a) => a.verified)).toBe(true);
    expect([...idsByKey.values()].every((ids) => ids.size === 1)).toBe(true);
    expect(committed.size).toBeGreaterThan(ROUNDS);
    await last.stop();
  }, 600_000);
});

describe.each(TEST_DATABASES.filter((d) => d.name === 'postgres'))('two servers on one $name database', (db) => {
  const { model } = checkSpec(SPEC);
  const random = prng(SEED + 7);
  let dir: string;
  let remove: () => Promise<void>;
  let servers: ServeProcess[] = [];
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  afterAll(async () => {
    for (const s of servers) await s.kill();
    await receiver?.close();
    await remove?.();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('deliver each call once: every delivery is claimed by one of them', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ninepoint-outbox-two-'));
    const specPath = join(dir, 'claims.md');
    writeFileSync(specPath, SPEC);
    const fresh = await db.fresh();
    remove = fresh.remove;
    const database = servedDatabase(fresh);
    const [user] = (await addApiUsers(model, database, [{ email: 'two@example.test', roles: [] }])) as [ApiUser];
    receiver = await startReceiver(random);
    const env = { HOOK_URL: receiver.url, HOOK_SECRET: SECRET, CALLS_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'info' };
    servers = await Promise.all([
      startServe({ specPath, database, env, startTimeoutMs: 120_000 }),
      startServe({ specPath, database, env, startTimeoutMs: 120_000 }),
    ]);
    const committed = new Set<string>();
    // Writes alternate between the servers; both claim the outbox every second and after each write.
    await Promise.all(
      Array.from({ length: 4 }, async (_, n) => {
        for (let i = 0; i < scaled(15, 60); i++) {
          const url = (servers[(n + i) % 2] as ServeProcess).url;
          const created = await call(url, user.token, 'POST', '/api/claims', { title: `two ${n}-${i}` });
          expect(created.status).toBe(201);
          committed.add(`${created.body.id} claim.created`);
          const approved = await call(url, user.token, 'POST', `/api/claims/${created.body.id}/approve`);
          expect(approved.status).toBe(200);
          committed.add(`${created.body.id} claim.approve`);
        }
      }),
    );
    await until(() => (new Set(receiver.arrivals.map((a) => a.key)).size >= committed.size ? true : undefined), 30_000);
    await new Promise((r) => setTimeout(r, 1500));
    const ids = receiver.arrivals.map((a) => a.webhookId);
    console.log(
      `two servers: ${committed.size} changes, ${ids.length} arrivals, ${ids.length - new Set(ids).size} duplicates`,
    );
    expect(new Set(receiver.arrivals.map((a) => a.key))).toEqual(committed);
    expect(ids.length).toBe(new Set(ids).size);
    expect(receiver.arrivals.every((a) => a.verified)).toBe(true);
    // One log line per attempt, on the server that made it: between them, one per call.
    const lines = servers.map(
      (s) => s.output.split('\n').filter((l) => l.includes('delivered call POST env HOOK_URL')).length,
    );
    console.log(`two servers: delivered ${lines.join(' and ')}`);
    expect((lines[0] ?? 0) + (lines[1] ?? 0)).toBe(ids.length);
  });
});
