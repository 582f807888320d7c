import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { modelOf } from '../../test/helpers.ts';
import { SqliteStore } from '../store/sqlite/sqlite-store.ts';
import { uuidv7 } from '../store/uuidv7.ts';
import { Deliverer } from './deliverer.ts';
import { DeliveriesStore } from './deliveries-store.ts';
import { compileOutgoing, eventKey } from './outgoing.ts';
import { RECENT_MS, RequestLoad } from './request-load.ts';

// The deliverer's yielding to requests, with the load and the timer in the test's hands: a real
// receiver, a real SQLite outbox, no sleeps.
const SPEC = `# Specification: Hooks

## 1. What the product does and for whom

Claims.

## 2. Screens and routes

Not shown.

## 3. Entities and their fields

### Claim

| field | type | rules    |
| ----- | ---- | -------- |
| title | text | required |

## 4. States and transitions

Not shown.

## 5. Validation rules

Not shown.

## 6. Roles and permissions

| role  | Claim |
| ----- | ----- |
| clerk | all   |

## 7. The calls it makes

### Calls to other systems

| on           | url          | body          | secret          |
| ------------ | ------------ | ------------- | --------------- |
| create Claim | env HOOK_URL | Claim (title) | env HOOK_SECRET |

## 8. The error catalogue

Not shown.

## 9. Business constants and limits

Not shown.
`;

const BATCH = 4;
const INTERVAL_MS = 100;

let receiver: Server;
let url: string;
const received: string[] = [];

beforeAll(async () => {
  receiver = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['webhook-id']));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

interface Setup {
  deliverer: Deliverer;
  deliveries: DeliveriesStore;
  /** Timers the deliverer set and that have not run or been cleared. */
  timers: { run: () => void; ms: number }[];
  load: { busy: boolean };
  /** The deliverer's clock: `fire` moves it on by the timer's delay. */
  clock: { now: number };
  ids: string[];
}

let open: { store: SqliteStore; deliverer: Deliverer } | null = null;
afterEach(async () => {
  await open?.deliverer.stop();
  await open?.store.close();
  open = null;
  received.length = 0;
});

/** An outbox holding `count` due calls, and a deliverer on it that is not started (no poll). */
async function setUp(count: number): Promise<Setup> {
  const store = SqliteStore.open(':memory:');
  const deliveries = new DeliveriesStore(store.sql);
  await deliveries.setUp();
  const env = {
    HOOK_URL: url,
    HOOK_SECRET: `whsec_${Buffer.from('a test secret of 32 bytes, or so').toString('base64')}`,
  };
  const outgoing = compileOutgoing(modelOf(SPEC), env);
  const [item] = outgoing.byEvent.get(eventKey('Claim', 'create', null)) ?? [];
  if (!item) throw new Error('the spec declares no call');
  const at = Date.now() - 1000;
  const ids = Array.from({ length: count }, () => uuidv7(at));
  await deliveries.add(
    ids.map((id, n) => [
      id,
      'call',
      item.key,
      item.target,
      'create',
      'Claim',
      `claim-${n}`,
      null,
      null,
      new Date(at).toISOString(),
      JSON.stringify({ title: `Claim ${n}` }),
      'pending',
      0,
      at,
    ]),
  );
  const timers: Setup['timers'] = [];
  const load = { busy: false };
  const clock = { now: Date.now() };
  const deliverer = new Deliverer({
    now: () => clock.now,
    deliveries,
    outgoing,
    notify: () => Promise.reject(new Error('no notifications here')),
    logger: pino({ level: 'silent' }),
    timeoutMs: 5000,
    retryWindowMs: 3_600_000,
    allowPrivate: true,
    batch: BATCH,
    busy: () => load.busy,
    busyIntervalMs: INTERVAL_MS,
    timer: (run, ms) => {
      const timer = { run, ms };
      timers.push(timer);
      return () => {
        const at = timers.indexOf(timer);
        if (at >= 0) timers.splice(at, 1);
      };
    },
  });
  open = { store, deliverer };
  return { deliverer, deliveries, timers, load, clock, ids };
}

async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  const end = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Runs the one pending timer, its delay gone by; answers the delay. */
function fire({ timers, clock }: Pick<Setup, 'timers' | 'clock'>): number {
  expect(timers).toHaveLength(1);
  const [timer] = timers.splice(0, 1);
  if (!timer) return 0;
  clock.now += timer.ms;
  timer.run();
  return timer.ms;
}

const settled = (d: DeliveriesStore, n: number) => async () => (await d.counts()).delivered === n;

describe('the deliverer and the requests it yields to', () => {
  it('delivers at once, in batches, while no request keeps the server busy', async () => {
    const setup = await setUp(10);
    const { deliverer, deliveries, timers, ids } = setup;
    deliverer.kick();
    deliverer.kick();
    // The wake-ups of one moment make one look, a few milliseconds on.
    expect(fire(setup)).toBeLessThan(INTERVAL_MS);
    await until(settled(deliveries, 10));
    expect(timers).toEqual([]);
    expect(received).toEqual(ids.map((id) => `msg_${id}`));
  });

  it('under a load that never stops, still makes one batch every busyIntervalMs, oldest first: none waits longer than its place in line says', async () => {
    const setup = await setUp(10);
    const { deliverer, deliveries, timers, load, ids } = setup;
    load.busy = true;
    deliverer.kick();
    deliverer.kick();
    // Held: nothing claimed; it looks again every few milliseconds.
    expect(timers).toHaveLength(1);
    expect((await deliveries.counts()).pending).toBe(10);
    for (const made of [4, 8, 10]) {
      // Still busy at every look, until the interval is over: then one batch, however busy.
      let waited = 0;
      while (timers.length > 0) waited += fire(setup);
      expect(waited).toBe(INTERVAL_MS);
      await until(settled(deliveries, made));
      // Each interval one batch, in the order the writes were made.
      expect(received).toEqual(ids.slice(0, made).map((id) => `msg_${id}`));
      if (made < 10) await until(() => timers.length === 1);
    }
    // Every delivery was made by the ⌈place / batch⌉-th interval; nothing is left to wait for.
    expect(timers).toEqual([]);
    expect(await deliveries.counts()).toEqual({ pending: 0, delivered: 10, dead: 0 });
  });

  it('a wake-up held back by the load goes at the first look after the requests stop', async () => {
    const setup = await setUp(6);
    const { deliverer, deliveries, timers, load } = setup;
    load.busy = true;
    deliverer.kick();
    expect(fire(setup)).toBeLessThan(INTERVAL_MS);
    expect(timers).toHaveLength(1);
    expect((await deliveries.counts()).delivered).toBe(0);
    load.busy = false;
    fire(setup);
    // Not a forced batch: it goes on until nothing is due.
    await until(settled(deliveries, 6));
    expect(timers).toEqual([]);
  });
});

describe('the request load', () => {
  it('is busy while requests keep coming, and not once they leave a quiet moment', () => {
    let now = 0;
    const load = new RequestLoad(() => now);
    expect(load.busy()).toBe(false);
    load.seen();
    expect(load.busy()).toBe(true);
    now += RECENT_MS;
    expect(load.busy()).toBe(true);
    now += 1;
    expect(load.busy()).toBe(false);
  });
});
