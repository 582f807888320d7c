import { describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL } from '../../test/databases.ts';
import { type Change, PgFeed } from './change-feed.ts';

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
});
