import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, SQLITE_ONLY, TEST_DATABASES, type TestDatabase } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import type { StoreOptions } from '../store/open-store.ts';

const HELPDESK = readFileSync(new URL('../../../../examples/helpdesk.md', import.meta.url), 'utf8');
/** The helpdesk with a daily job in point 7 and a signed call each time it falls due. */
const SPEC = HELPDESK.replace(
  '## 8. The error catalogue',
  `### Schedules

| job          | every              |
| ------------ | ------------------ |
| daily digest | every day at 07:00 |

### Calls to other systems

| on                    | url          | secret          |
| --------------------- | ------------ | --------------- |
| schedule daily digest | env HOOK_URL | env HOOK_SECRET |

## 8. The error catalogue`,
);
const SECRET = `whsec_${Buffer.from('a test secret of thirty-two bytes').toString('base64')}`;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A Monday, 05:00 UTC: the job first falls due two hours later. */
const START = Date.parse('2026-03-02T05:00:00Z');

/** A real HTTP receiver that keeps each call's body once its signature verifies. */
async function startReceiver() {
  const verifier = new Webhook(SECRET);
  const bodies: unknown[] = [];
  const server: Server = createHttpServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      bodies.push(verifier.verify(body, headers));
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { url, bodies, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function until(check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(TEST_DATABASES)('recurring jobs on $name', (db: TestDatabase) => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let options: StoreOptions;
  let remove: () => Promise<void>;
  let at = START;

  const open = async (): Promise<NinepointServer> => {
    const server = await createServer({
      model: modelOf(SPEC),
      ...options,
      logger: false,
      now: () => at,
      outbox: {
        env: { HOOK_URL: receiver.url, HOOK_SECRET: SECRET, CALLS_ALLOW_PRIVATE: 'true' },
        timing: { baseDelayMs: 50, pollMs: 50 },
      },
    });
    await server.app.ready();
    await server.timers.idle();
    return server;
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    const fresh = await db.fresh();
    options = fresh.options;
    remove = fresh.remove;
  });
  afterAll(async () => {
    await remove?.();
    await receiver?.close();
  });

  it('runs a daily job once a day, and once after downtime however many days it missed', async () => {
    const server = await open();
    try {
      expect((await server.timers.round()).jobs).toBe(0);
      at = START + 2 * HOUR;
      expect((await server.timers.round()).jobs).toBe(1);
      at += 30_000;
      expect((await server.timers.round()).jobs).toBe(0);
      at = START + 10 * HOUR;
      expect((await server.timers.round()).jobs).toBe(0);
      at = START + DAY + 2 * HOUR + 5_000;
      expect((await server.timers.round()).jobs).toBe(1);
      await until(() => receiver.bodies.length === 2);
    } finally {
      await server.close();
    }
    // Down for three days: the first round at start runs the latest due time only.
    at = START + 4 * DAY + 4 * HOUR;
    const again = await open();
    try {
      expect((await again.timers.round()).jobs).toBe(0);
      await until(() => receiver.bodies.length === 3);
    } finally {
      await again.close();
    }
    expect(receiver.bodies).toEqual([
      { type: 'schedule.daily-digest', event: 'schedule', job: 'daily digest', due: '2026-03-02T07:00:00.000Z' },
      { type: 'schedule.daily-digest', event: 'schedule', job: 'daily digest', due: '2026-03-03T07:00:00.000Z' },
      { type: 'schedule.daily-digest', event: 'schedule', job: 'daily digest', due: '2026-03-06T07:00:00.000Z' },
    ]);
  });
});

describe.runIf(POSTGRES_AVAILABLE)('recurring jobs with two servers on one PostgreSQL database', () => {
  it('runs each due time once between them', async () => {
    const postgres = TEST_DATABASES.find((d) => d.name === 'postgres') as TestDatabase;
    const receiver = await startReceiver();
    const fresh = await postgres.fresh();
    let at = START;
    const open = async () => {
      const server = await createServer({
        model: modelOf(SPEC),
        ...fresh.options,
        logger: false,
        now: () => at,
        outbox: {
          env: { HOOK_URL: receiver.url, HOOK_SECRET: SECRET, CALLS_ALLOW_PRIVATE: 'true' },
          timing: { baseDelayMs: 50, pollMs: 50 },
        },
      });
      await server.app.ready();
      await server.timers.idle();
      return server;
    };
    const one = await open();
    const two = await open();
    try {
      let ran = 0;
      for (const day of [0, 1, 2]) {
        at = START + day * DAY + 2 * HOUR;
        const reports = await Promise.all([1, 2, 3].flatMap(() => [one.timers.round(), two.timers.round()]));
        ran += reports.reduce((sum, r) => sum + r.jobs, 0);
      }
      expect(ran).toBe(3);
      await until(() => receiver.bodies.length >= 3);
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.bodies.map((b) => (b as { due: string }).due)).toEqual([
        '2026-03-02T07:00:00.000Z',
        '2026-03-03T07:00:00.000Z',
        '2026-03-04T07:00:00.000Z',
      ]);
    } finally {
      await one.close();
      await two.close();
      await fresh.remove();
      await receiver.close();
    }
  });
});

// The due time is computed before either database is asked, so one database shows it.
describe.each(SQLITE_ONLY)("a recurring job in the product's time zone on $name", (db: TestDatabase) => {
  it('runs at 07:00 Berlin time on both sides of the switch to summer time', async () => {
    const berlin = SPEC.replace(/(\| RATE_LIMIT_PER_MINUTE .*\n)/, '$1| TIME_ZONE | Europe/Berlin | |\n');
    expect(berlin).not.toBe(SPEC);
    const receiver = await startReceiver();
    const fresh = await db.fresh();
    let at = Date.parse('2026-03-28T05:30:00Z');
    const server = await createServer({
      model: modelOf(berlin),
      ...fresh.options,
      logger: false,
      now: () => at,
      outbox: {
        env: { HOOK_URL: receiver.url, HOOK_SECRET: SECRET, CALLS_ALLOW_PRIVATE: 'true' },
        timing: { baseDelayMs: 50, pollMs: 50 },
      },
    });
    try {
      await server.app.ready();
      await server.timers.idle();
      // 06:30 in Berlin (UTC+1): not yet.
      expect((await server.timers.round()).jobs).toBe(0);
      at = Date.parse('2026-03-28T06:00:00Z');
      expect((await server.timers.round()).jobs).toBe(1);
      // The next morning is summer time (UTC+2): 07:00 is 05:00 UTC.
      at = Date.parse('2026-03-29T04:59:00Z');
      expect((await server.timers.round()).jobs).toBe(0);
      at = Date.parse('2026-03-29T05:00:00Z');
      expect((await server.timers.round()).jobs).toBe(1);
      await until(() => receiver.bodies.length === 2);
      expect(receiver.bodies.map((b) => (b as { due: string }).due)).toEqual([
        '2026-03-28T06:00:00.000Z',
        '2026-03-29T05:00:00.000Z',
      ]);
    } finally {
      await server.close();
      await fresh.remove();
      await receiver.close();
    }
  });
});
