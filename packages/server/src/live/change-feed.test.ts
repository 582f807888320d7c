import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, TEST_DATABASES, TEST_POSTGRES_URL } from '../../test/databases.ts';
import { type Change, encodePayloads, MAX_PAYLOAD_BYTES, PgFeed } from './change-feed.ts';

const change = (id: string): Change => ({ entity: 'Ticket', id, kind: 'update', at: '2026-11-28T04:00:00.000Z' });

describe.runIf(POSTGRES_AVAILABLE || process.env.CI === 'true')('PgFeed, telling the other servers', () => {
  it('closing while a statement of notifications is under way sends the rest after it, and waits for both', async () => {
    // The statements as sent, each settled only when the test says: the one under way is held.
    const sent: { payloads: readonly string[]; settle: () => void; settled: boolean }[] = [];
    const feed = new PgFeed({
      url: TEST_POSTGRES_URL,
      notify: (_channel, payloads) =>
        new Promise<void>((resolve) => {
          const statement = {
            payloads,
            settled: false,
            settle: () => {
              statement.settled = true;
              resolve();
            },
          };
          sent.push(statement);
        }),
    });
    await feed.ready;
    expect(feed.channel).not.toBe('');
    feed.publish(change('a'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.map((s) => s.payloads.length)).toEqual([1]);
    // Published while the first statement is under way, then the server closes.
    feed.publish(change('b'));
    let closed = false;
    const closing = feed.close().then(() => {
      closed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    // One statement at a time, even at close: b is not sent beside a, which could commit after it.
    expect(sent).toHaveLength(1);
    expect(closed).toBe(false);
    sent[0]?.settle();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sent.map((s) => s.payloads.map((p) => JSON.parse(p).i))).toEqual([['a'], ['b']]);
    // Close waits for the last statement: the store's pool, ended next, must not end under it.
    expect(closed).toBe(false);
    sent[1]?.settle();
    await closing;
    expect(closed).toBe(true);
  });

  it('sends a change published just as the last statement of notifications ends, and the changes after it', async () => {
    const sent: { ids: string[]; settle: () => void }[] = [];
    const feed = new PgFeed({
      url: TEST_POSTGRES_URL,
      notify: (_channel, payloads) =>
        new Promise<void>((resolve) => {
          sent.push({ ids: payloads.map((p) => JSON.parse(p).i as string), settle: resolve });
        }),
    });
    await feed.ready;
    const ids = () => sent.flatMap((statement) => statement.ids);
    try {
      // A write whose commit resolves a few microtasks after the statement under way is answered.
      for (let later = 0; later < 6; later++) {
        feed.publish(change(`a${later}`));
        await new Promise((resolve) => setImmediate(resolve));
        sent.at(-1)?.settle();
        let hops: Promise<void> = Promise.resolve();
        for (let i = 0; i < later; i++) hops = hops.then(() => {});
        await hops;
        feed.publish(change(`b${later}`));
        await new Promise((resolve) => setImmediate(resolve));
        expect(ids(), `published ${later} microtasks after`).toContain(`b${later}`);
        sent.at(-1)?.settle();
        await new Promise((resolve) => setImmediate(resolve));
      }
      feed.publish(change('c'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(ids().at(-1)).toBe('c');
    } finally {
      for (const statement of sent) statement.settle();
      await feed.close();
    }
  });

  it('tells an update of more fields than one payload holds in several, every field named, and what comes after it', async () => {
    const pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 1 });
    const notify = async (channel: string, payloads: readonly string[]) => {
      await pool.query(
        'SELECT pg_notify($1, "p") FROM unnest($2::text[]) WITH ORDINALITY AS t("p", "n") ORDER BY "n"',
        [channel, payloads],
      );
    };
    const sender = new PgFeed({ url: TEST_POSTGRES_URL, notify });
    const receiver = new PgFeed({ url: TEST_POSTGRES_URL, notify: async () => {} });
    try {
      await Promise.all([sender.ready, receiver.ready]);
      const heard: Change[] = [];
      receiver.subscribe((c, remote) => {
        if (remote && (c.id === 'wide' || c.id === 'after')) heard.push(c);
      });
      // An imported sheet's 300 columns, all written by one PUT: about 13 kB of names.
      const fields = Array.from({ length: 300 }, (_, i) => `column_${String(i).padStart(3, '0')}_of_an_imported_sheet`);
      const wide: Change = { ...change('wide'), fields };
      expect(encodePayloads(wide, 'o').every((p) => Buffer.byteLength(p) <= MAX_PAYLOAD_BYTES)).toBe(true);
      sender.publish(wide);
      sender.publish(change('after'));
      for (const until = Date.now() + 5000; heard.at(-1)?.id !== 'after' && Date.now() < until; ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(heard.at(-1)?.id).toBe('after');
      const parts = heard.filter((c) => c.id === 'wide');
      expect(parts.length).toBeGreaterThan(1);
      expect(parts.flatMap((c) => c.fields ?? [])).toEqual(fields);
    } finally {
      await sender.close();
      await receiver.close();
      await pool.end();
    }
  });

  it('sends again, in order, a statement of notifications that failed on a connection the database ended', async () => {
    const fresh = await (
      TEST_DATABASES.find((d) => d.name === 'postgres') as NonNullable<(typeof TEST_DATABASES)[number]>
    ).fresh();
    const url = fresh.options.databaseUrl as string;
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    // A connection the database has ended (a restart, a failover, an administrator), as a pooled
    // one can be when a statement is given to it.
    const doomed = new pg.Client({ connectionString: url });
    doomed.on('error', () => {});
    await doomed.connect();
    const ended = new Promise((resolve) => doomed.once('end', resolve));
    await pool.query('SELECT pg_terminate_backend($1)', [(doomed as unknown as { processID: number }).processID]);
    await ended;
    const statements: { payloads: string[]; failed: boolean }[] = [];
    const notify = async (channel: string, payloads: readonly string[]) => {
      const statement = { payloads: payloads.map((p) => JSON.parse(p).i as string), failed: false };
      statements.push(statement);
      const client = statements.length === 1 ? doomed : pool;
      try {
        await client.query(
          'SELECT pg_notify($1, "p") FROM unnest($2::text[]) WITH ORDINALITY AS t("p", "n") ORDER BY "n"',
          [channel, payloads],
        );
      } catch (error) {
        statement.failed = true;
        throw error;
      }
    };
    const sender = new PgFeed({ url, notify });
    const receiver = new PgFeed({ url, notify: async () => {} });
    try {
      await Promise.all([sender.ready, receiver.ready]);
      const heard: string[] = [];
      receiver.subscribe((c, remote) => {
        if (remote) heard.push(c.id);
      });
      sender.publish(change('a'));
      sender.publish(change('b'));
      await new Promise((resolve) => setImmediate(resolve));
      // Published while the first statement fails and waits to be sent again: after a and b.
      sender.publish(change('c'));
      for (const until = Date.now() + 5000; heard.length < 3 && Date.now() < until; ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(heard).toEqual(['a', 'b', 'c']);
      expect(statements).toEqual([
        { payloads: ['a', 'b'], failed: true },
        { payloads: ['a', 'b', 'c'], failed: false },
      ]);
    } finally {
      await sender.close();
      await receiver.close();
      await pool.end();
      await fresh.remove();
    }
  });

  it('stops sending again at close, at most a moment after it, when the database keeps refusing', async () => {
    let attempts = 0;
    const feed = new PgFeed({
      url: TEST_POSTGRES_URL,
      notify: async () => {
        attempts++;
        throw new Error('refused');
      },
    });
    await feed.ready;
    feed.publish(change('a'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(attempts).toBe(1);
    const started = Date.now();
    await feed.close();
    // Closing cuts the wait short and tries at once; then it gives up instead of holding the close.
    expect(Date.now() - started).toBeLessThan(1000);
    const atClose = attempts;
    expect(atClose).toBeGreaterThan(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(attempts).toBe(atClose);
  });
});
