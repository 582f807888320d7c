import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL } from '../../../test/databases.ts';
import { channelName, PgListener } from './pg-listener.ts';

let admin: pg.Client;
const closing: (() => Promise<unknown>)[] = [];
beforeEach(async () => {
  admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
});
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
  await admin.end();
});

async function eventually(check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A listener whose connection is found by its own application name, and what it reported, in order. */
function listen(channels: (schema: string) => readonly string[]) {
  const name = `np_listener_${randomBytes(4).toString('hex')}`;
  const url = new URL(TEST_POSTGRES_URL);
  url.searchParams.set('application_name', name);
  const events: string[] = [];
  const heard: { channel: string; payload: string | undefined }[] = [];
  const logger = { warn: () => events.push('warn') } as unknown as Logger;
  const listener: PgListener = new PgListener({
    url: url.toString(),
    channels,
    onNotification: (channel, payload) => heard.push({ channel, payload }),
    onListening: () => events.push(listener.listening ? 'listening' : 'listening but not said so'),
    onLost: () => events.push(listener.listening ? 'lost while still said listening' : 'lost'),
    logger,
    what: 'a test’s channels',
  });
  closing.push(() => listener.close());
  const backends = async () =>
    (
      await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [name])
    ).rows.map((row) => row.pid);
  return { listener, events, heard, backends };
}

const tag = randomBytes(4).toString('hex');

describe.skipIf(!POSTGRES_AVAILABLE)('PgListener', () => {
  it('listens on every channel it is given, named for the connection’s schema', async () => {
    const { listener, heard, events } = listen((schema) => [`a_${tag}_${schema}`, `b_${tag}_${schema}`]);
    await listener.ready;
    expect(listener.listening).toBe(true);
    expect(events).toEqual(['listening']);
    expect(listener.channels).toEqual([`a_${tag}_public`, `b_${tag}_public`]);
    await admin.query(`SELECT pg_notify($1, 'one'), pg_notify($2, 'two'), pg_notify($3, 'none')`, [
      `a_${tag}_public`,
      `b_${tag}_public`,
      `c_${tag}_public`,
    ]);
    await eventually(() => heard.length === 2);
    expect(heard).toEqual([
      { channel: `a_${tag}_public`, payload: 'one' },
      { channel: `b_${tag}_public`, payload: 'two' },
    ]);
  });

  it('reports the loss first when the database ends its connection, then listens again on a new one', async () => {
    const channel = `lost_${tag}`;
    const { listener, events, heard, backends } = listen(() => [channel]);
    await listener.ready;
    const [pid] = await backends();
    expect(pid).toBeDefined();
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await eventually(() => events.includes('lost'));
    // Lost before the listener logs the loss or tries again, and not listening from that moment.
    expect(events.slice(0, 3)).toEqual(['listening', 'lost', 'warn']);
    await eventually(() => listener.listening);
    expect(events.at(-1)).toBe('listening');
    const now = await backends();
    expect(now).toHaveLength(1);
    expect(now).not.toContain(pid);
    await admin.query('SELECT pg_notify($1, $2)', [channel, 'after']);
    await eventually(() => heard.length === 1);
    expect(heard[0]?.payload).toBe('after');
  });

  it('waits longer each time when the database ends the connection as soon as it listens, not 250 ms every time', async () => {
    const { listener, events, backends } = listen(() => [`flapping_${tag}`]);
    await listener.ready;
    const waits: number[] = [];
    const ended = new Set<number>();
    for (let i = 0; i < 3; i++) {
      // The connection listening now (one just ended may still be leaving pg_stat_activity).
      let pid: number | undefined;
      await eventually(async () => {
        pid = (await backends()).find((p) => !ended.has(p));
        return pid !== undefined;
      });
      ended.add(pid as number);
      const listened = events.filter((e) => e === 'listening').length;
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await eventually(() => !listener.listening);
      const lost = Date.now();
      await eventually(() => events.filter((e) => e === 'listening').length > listened);
      waits.push(Date.now() - lost);
    }
    // 250 ms, 500 ms, 1 s at least: timers never fire early, whatever the machine's load.
    expect(waits[1]).toBeGreaterThanOrEqual(450);
    expect(waits[2]).toBeGreaterThanOrEqual(950);
  });

  it('tries again, with growing waits, when the database cannot be reached, and reports each failure as a loss', async () => {
    const events: string[] = [];
    const listener = new PgListener({
      // A port nothing listens on: every attempt fails at once.
      url: 'postgres://postgres@127.0.0.1:1/test',
      channels: () => ['never'],
      onNotification: () => {},
      onLost: () => events.push('lost'),
      what: 'nothing',
    });
    closing.push(() => listener.close());
    await listener.ready;
    expect(listener.listening).toBe(false);
    expect(events).toEqual(['lost']);
    // 250 ms, then 500 ms: two more attempts within a second, not ten.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events.length).toBeLessThanOrEqual(3);
  });

  it('closes while connecting, leaving no connection behind and trying no more', async () => {
    const { listener, backends } = listen(() => [`closed_${tag}`]);
    const started = Date.now();
    await listener.close();
    // The start under way ends by itself; close does not sit out its two-second cap.
    expect(Date.now() - started).toBeLessThan(1500);
    expect(listener.listening).toBe(false);
    expect(await backends()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await backends()).toEqual([]);
  });

  it('hashes a channel name past PostgreSQL’s 63 bytes, the same for the same schema', () => {
    expect(channelName('p_', 'short', 'md5')).toBe('p_short');
    const long = 'x'.repeat(70);
    const name = channelName('ninepoint_changes_', long, 'sha256');
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(63);
    expect(name).toBe(channelName('ninepoint_changes_', long, 'sha256'));
    expect(name).not.toBe(channelName('ninepoint_changes_', `${long}y`, 'sha256'));
  });
});
