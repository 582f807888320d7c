import { readFileSync } from 'node:fs';
import pg from 'pg';
import { type Logger, pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, TEST_DATABASES, type TestDatabase } from '../../test/databases.ts';
import { openEvents } from '../../test/event-reader.ts';
import { modelOf } from '../../test/helpers.ts';
import { knownUser, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import type { StoreOptions } from '../store/open-store.ts';
import { dueKinds } from './due-kinds.ts';
import { TransitionScheduler } from './scheduler.ts';
import { LOCAL_LOCK, pgSchedulerLock } from './scheduler-lock.ts';

type Json = Record<string, unknown>;

const example = (name: string) => readFileSync(new URL(`../../../../examples/${name}`, import.meta.url), 'utf8');
const HELPDESK = example('helpdesk.md');
const LENDING = example('lending-desk.md');
const MINUTE = 60_000;
const DAY = 86_400_000;
/** The PostgreSQL of the tests, for the suites that run only there (`describe.runIf(POSTGRES_AVAILABLE)`). */
const postgres = TEST_DATABASES.find((d) => d.name === 'postgres') as TestDatabase;

/** A clock the test moves by hand; it starts at the real time, as the records' stamps do. */
function testClock() {
  let at = Date.now();
  return { now: () => at, move: (ms: number) => (at += ms) };
}

async function open(
  source: string,
  options: StoreOptions,
  now: () => number,
  logger: Logger | false = false,
): Promise<NinepointServer> {
  const server = await createServer({ model: modelOf(source), ...options, logger, now });
  await server.app.ready();
  await server.timers.idle();
  return server;
}

function caller(server: NinepointServer, authorization: string) {
  return async (method: string, url: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const response = await server.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    return { status: response.statusCode, body: response.body === '' ? {} : (response.json() as Json) };
  };
}

/**
 * Reads every 50 ms until `done` holds of what `read` answers or `ms` pass (generous: the machine
 * may be loaded), and answers what it read last, for the test to judge.
 */
async function polled<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

let borrowers = 0;
const inDays = (now: number, days: number) => new Date(now + days * DAY).toISOString().slice(0, 10);

/** A lending desk with a book; `lend` lends it to a new member for 14 days. */
async function lendingDesk(server: NinepointServer, now: () => number) {
  const { authorization } = await userWithToken(server, ['staff']);
  const call = caller(server, authorization);
  const book = await call('POST', '/api/books', {
    title: 'Dune',
    author: 'Herbert, Frank',
    isbn: '9780441172719',
    copies: 3,
    shelf: 'FIC-12',
  });
  expect(book.body).toMatchObject({ title: 'Dune' });
  const lend = async () => {
    const borrower = `0190f3c4-7a2b-7c3d-8e4f-${String(++borrowers).padStart(12, '0')}`;
    await knownUser(server, borrower, ['member']);
    const loan = await call('POST', '/api/loans', {
      book: book.body.id,
      borrower,
      lent_on: inDays(now(), 0),
      due: inDays(now(), 14),
    });
    expect(loan.body).toMatchObject({ state: 'out' });
    return String(loan.body.id);
  };
  return { call, lend };
}

// On PostgreSQL too: due records are found by SQL and taken under each database's own scheduler lock.
describe.each(TEST_DATABASES)('automatic transitions on $name', (db: TestDatabase) => {
  describe('the helpdesk escalates a ticket past its service level by itself', () => {
    const clock = testClock();
    let server: NinepointServer;
    let temp: Awaited<ReturnType<TestDatabase['fresh']>>;
    beforeAll(async () => {
      temp = await db.fresh();
      server = await open(HELPDESK, temp.options, clock.now);
    });
    afterAll(async () => {
      await server?.close();
      await temp?.remove();
    });

    it('escalates an urgent ticket after SLA_URGENT, once, by the system, and a normal one not yet', async () => {
      const { authorization, user } = await userWithToken(server, ['agent']);
      const call = caller(server, authorization);
      const ticket = (priority: string) =>
        call('POST', '/api/tickets', {
          title: `A ${priority} problem`,
          description: 'It stopped working this morning.',
          priority,
          reporter: user.id,
        });
      const urgent = await ticket('urgent');
      const normal = await ticket('normal');
      expect(urgent.body.errors ?? urgent.body.detail).toBeUndefined();

      clock.move(29 * MINUTE);
      expect((await server.timers.round()).taken).toBe(0);
      clock.move(2 * MINUTE);
      const round = await server.timers.round();
      expect(round).toMatchObject({ ran: true, taken: 1, refused: 0 });
      expect((await call('GET', `/api/tickets/${urgent.body.id}`)).body.state).toBe('escalated');
      expect((await call('GET', `/api/tickets/${normal.body.id}`)).body.state).toBe('new');
      expect((await server.timers.round()).taken).toBe(0);

      const history = await call('GET', `/api/tickets/${urgent.body.id}/history`);
      const entries = (history.body.items ?? history.body) as Json[];
      const transitions = entries.filter((e) => e.action === 'transition');
      expect(transitions).toEqual([
        expect.objectContaining({ by: 'system', transition: 'miss service level', from: 'new', to: 'escalated' }),
      ]);
      // The system's transition has no call: no person may take it.
      expect((await call('POST', `/api/tickets/${normal.body.id}/miss-service-level`)).status).toBe(404);

      clock.move(4 * 60 * MINUTE);
      expect((await server.timers.round()).taken).toBe(1);
      expect((await call('GET', `/api/tickets/${normal.body.id}`)).body.state).toBe('escalated');
    });
  });

  describe('the lending desk marks a loan overdue by itself', () => {
    const clock = testClock();
    let server: NinepointServer;
    let temp: Awaited<ReturnType<TestDatabase['fresh']>>;
    beforeAll(async () => {
      temp = await db.fresh();
      server = await open(LENDING, temp.options, clock.now);
    });
    afterAll(async () => {
      await server?.close();
      await temp?.remove();
    });

    it('marks a loan past its due date overdue, once', async () => {
      const { call, lend } = await lendingDesk(server, clock.now);
      const late = await lend();
      clock.move(10 * DAY);
      const onTime = await lend();
      expect((await server.timers.round()).taken).toBe(0);
      clock.move(5 * DAY);
      expect(await server.timers.round()).toMatchObject({ taken: 1, refused: 0 });
      expect((await call('GET', `/api/loans/${late}`)).body.state).toBe('overdue');
      expect((await call('GET', `/api/loans/${onTime}`)).body.state).toBe('out');
      expect((await server.timers.round()).taken).toBe(0);
      const history = (await call('GET', `/api/loans/${late}/history`)).body;
      const entries = ((history.items ?? history) as Json[]).filter((e) => e.transition === 'mark overdue');
      expect(entries).toHaveLength(1);
      expect(entries[0]?.by).toBe('system');
    });
  });

  it('catches up at start on what fell due while no server ran', async () => {
    const temp = await db.fresh();
    const clock = testClock();
    try {
      const first = await open(LENDING, temp.options, clock.now);
      const { lend } = await lendingDesk(first, clock.now);
      const ids = [await lend(), await lend()];
      await first.close();

      clock.move(20 * DAY);
      const second = await open(LENDING, temp.options, clock.now);
      try {
        const states = await Promise.all(
          ids.map(async (id) => (await second.store.records('Loan').get(id))?.record.state),
        );
        expect(states).toEqual(['overdue', 'overdue']);
      } finally {
        await second.close();
      }
    } finally {
      await temp.remove();
    }
  });
});

describe.each(TEST_DATABASES)('rounds the server runs by itself on $name', (db: TestDatabase) => {
  it('marks a loan overdue with no one asking, at the next round after it falls due', async () => {
    const temp = await db.fresh();
    const clock = testClock();
    const server = await createServer({
      model: modelOf(LENDING),
      ...temp.options,
      logger: false,
      now: clock.now,
      roundIntervalMs: 100,
    });
    try {
      await server.app.ready();
      const { call, lend } = await lendingDesk(server, clock.now);
      const id = await lend();
      clock.move(15 * DAY);
      // No round is asked for: the server's own timer takes it.
      const state = await polled(
        async () => String((await call('GET', `/api/loans/${id}`)).body.state),
        (s) => s === 'overdue',
      );
      expect(state).toBe('overdue');
    } finally {
      await server.close();
      await temp.remove();
    }
  });
});

describe.runIf(POSTGRES_AVAILABLE)('two servers on one PostgreSQL database', () => {
  it('take each of 50 due records exactly once', async () => {
    const temp = await postgres.fresh();
    const clock = testClock();
    const servers: NinepointServer[] = [];
    try {
      servers.push(await open(LENDING, temp.options, clock.now));
      servers.push(await open(LENDING, temp.options, clock.now));
      const { lend } = await lendingDesk(servers[0] as NinepointServer, clock.now);
      const ids: string[] = [];
      for (let i = 0; i < 50; i++) ids.push(await lend());
      clock.move(15 * DAY);
      // Both servers run rounds at once, several times over.
      const rounds = await Promise.all(servers.flatMap((s) => [s.timers.round(), s.timers.round(), s.timers.round()]));
      expect(rounds.reduce((sum, r) => sum + r.taken, 0)).toBe(50);
      expect(rounds.reduce((sum, r) => sum + r.refused, 0)).toBe(0);
      const records = (servers[1] as NinepointServer).store.records('Loan');
      for (const id of ids) {
        const history = await records.history(id);
        expect(history.filter((e) => e.transition === 'mark overdue')).toHaveLength(1);
      }
    } finally {
      for (const server of servers) await server.close();
      await temp.remove();
    }
  });
});

describe.each(TEST_DATABASES)('a transition after a time in a state on $name', (db: TestDatabase) => {
  const source = LENDING.replace(
    '| write off    | overdue      | lost     | staff         | now - due > LOST_AFTER  |',
    '| write off    | overdue      | lost     | system, staff | after LOST_AFTER        |',
  );

  it('waits from when the record entered its state, not from when it was created', async () => {
    expect(source).not.toBe(LENDING);
    const temp = await db.fresh();
    const clock = testClock();
    const server = await open(source, temp.options, clock.now);
    try {
      const { call, lend } = await lendingDesk(server, clock.now);
      const id = await lend();
      clock.move(15 * DAY);
      expect((await server.timers.round()).taken).toBe(1);
      expect((await call('GET', `/api/loans/${id}`)).body.state).toBe('overdue');
      // LOST_AFTER is 8 weeks: counted from entering overdue, not from the loan.
      clock.move(55 * DAY);
      expect((await server.timers.round()).taken).toBe(0);
      clock.move(2 * DAY);
      expect((await server.timers.round()).taken).toBe(1);
      expect((await call('GET', `/api/loans/${id}`)).body.state).toBe('lost');
    } finally {
      await server.close();
      await temp.remove();
    }
  });
});

describe.each(TEST_DATABASES)('a refused automatic transition on $name', (db: TestDatabase) => {
  // A rule that never holds when a loan is marked overdue: the system's transition is refused.
  const source = LENDING.replace(
    '| loan limit           | Loan       |',
    '| desk closed          | Loan: mark overdue | renewals > 5                                   | LOAN_TOO_LONG   |\n| loan limit           | Loan       |',
  );

  it('is logged, left as it was, and tried again once a round, not in a loop', async () => {
    expect(source).not.toBe(LENDING);
    const lines: Json[] = [];
    const logger: Logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Json) });
    const temp = await db.fresh();
    const clock = testClock();
    const server = await open(source, temp.options, clock.now, logger);
    try {
      const { call, lend } = await lendingDesk(server, clock.now);
      const id = await lend();
      clock.move(15 * DAY);
      expect(await server.timers.round()).toMatchObject({ taken: 0, refused: 1 });
      expect(await server.timers.round()).toMatchObject({ taken: 0, refused: 1 });
      expect((await call('GET', `/api/loans/${id}`)).body.state).toBe('out');
      const refusals = lines.filter(
        (l) => l.msg === 'an automatic transition was refused; it is tried again next round',
      );
      expect(refusals).toHaveLength(2);
      expect(refusals[0]).toMatchObject({
        level: 40,
        entity: 'Loan',
        id,
        transition: 'mark overdue',
        code: 'LOAN_TOO_LONG',
        errors: [expect.objectContaining({ code: 'LOAN_TOO_LONG' })],
      });
    } finally {
      await server.close();
      await temp.remove();
    }
  });
});

describe.runIf(POSTGRES_AVAILABLE)('a round on PostgreSQL in groups of records', () => {
  // Only a loan renewed at least once may be marked overdue: the others are refused, mid-group.
  const source = LENDING.replace(
    '| loan limit           | Loan       |',
    '| desk closed          | Loan: mark overdue | renewals > 0                                   | LOAN_TOO_LONG   |\n| loan limit           | Loan       |',
  );

  it('takes each group in one transaction, undoing a refused record alone', async () => {
    expect(source).not.toBe(LENDING);
    const temp = await postgres.fresh();
    const clock = testClock();
    const server = await createServer({
      model: modelOf(source),
      ...temp.options,
      logger: false,
      now: clock.now,
      roundBatch: 4,
    });
    let commits = 0;
    const query = pg.Client.prototype.query;
    try {
      await server.app.ready();
      await server.timers.idle();
      const { call, lend } = await lendingDesk(server, clock.now);
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push(await lend());
      const renewed = ids.filter((_, i) => i % 3 !== 1);
      for (const id of renewed) await server.store.sql.run('UPDATE "loans" SET "renewals" = 1 WHERE "id" = ?', [id]);
      clock.move(15 * DAY);
      pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
        if (args[0] === 'COMMIT') commits++;
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      const round = await server.timers.round();
      pg.Client.prototype.query = query;
      expect(round).toMatchObject({ taken: renewed.length, refused: ids.length - renewed.length });
      // Ten records in groups of four: three commits, not one per record.
      expect(commits).toBe(3);
      const records = server.store.records('Loan');
      for (const id of ids) {
        const loan = await call('GET', `/api/loans/${id}`);
        const history = (await records.history(id)).filter((e) => e.transition === 'mark overdue');
        if (renewed.includes(id)) {
          expect(loan.body.state).toBe('overdue');
          expect(history).toHaveLength(1);
          expect(history[0]?.by).toBe('system');
        } else {
          expect(loan.body.state).toBe('out');
          expect(history).toHaveLength(0);
        }
      }
      expect((await server.timers.round()).taken).toBe(0);
    } finally {
      pg.Client.prototype.query = query;
      await server.close();
      await temp.remove();
    }
  });
});

describe.each(TEST_DATABASES)('an automatic transition told as a person’s on $name', (db: TestDatabase) => {
  // The system's transition sets a field, and the desk is notified of it.
  const source = LENDING.replace(
    '| mark overdue | out          | overdue  | system, staff | now > due               |                                                  |',
    '| mark overdue | out          | overdue  | system, staff | now > due               | condition_note = "marked overdue"                |',
  ).replace(
    '| POST   | /api/loans/:id/write-off    |                                                     | Loan: write off    |                                    |\n',
    `| POST   | /api/loans/:id/write-off    |                                                     | Loan: write off    |                                    |

### Notifications

| on                 | to          | subject         | text                                 |
| ------------------ | ----------- | --------------- | ------------------------------------ |
| Loan: mark overdue | every staff | A loan is late  | Call the member about {due}.         |
`,
  );

  it('sets what the transition sets, tells live subscribers and notifies the desk', async () => {
    expect(source).toContain('condition_note = "marked overdue"');
    expect(source).toContain('| Loan: mark overdue | every staff |');
    const temp = await db.fresh();
    const clock = testClock();
    // Lent 15 days ago, so the round runs at about the real time: the outbox delivers on the real clock.
    clock.move(-15 * DAY);
    const server = await createServer({
      model: modelOf(source),
      ...temp.options,
      logger: false,
      now: clock.now,
      outbox: { env: {}, timing: { baseDelayMs: 50, pollMs: 50 } },
    });
    try {
      const base = await server.listen({ port: 0 });
      await server.timers.idle();
      const staff = await userWithToken(server, ['staff']);
      const member = await userWithToken(server, ['member']);
      const call = caller(server, staff.authorization);
      const book = await call('POST', '/api/books', {
        title: 'Dune',
        author: 'Herbert, Frank',
        isbn: '9780441172719',
        copies: 3,
        shelf: 'FIC-12',
      });
      const loan = await call('POST', '/api/loans', {
        book: book.body.id,
        borrower: member.user.id,
        lent_on: inDays(clock.now(), 0),
        due: inDays(clock.now(), 14),
      });
      expect(loan.body).toMatchObject({ state: 'out', condition_note: null });
      const events = await openEvents(base, { authorization: staff.authorization });
      try {
        clock.move(15 * DAY);
        expect((await server.timers.round()).taken).toBe(1);
        expect(await events.change()).toMatchObject({ entity: 'Loan', id: loan.body.id, kind: 'transition' });
      } finally {
        await events.cancel();
      }
      expect((await call('GET', `/api/loans/${loan.body.id}`)).body).toMatchObject({
        state: 'overdue',
        condition_note: 'marked overdue',
      });
      // The outbox delivers it after the commit, as it does a person's.
      const bell = caller(server, staff.authorization);
      const items = await polled(
        async () => (await bell('GET', '/api/notifications')).body.items as unknown[],
        (found) => found.length > 0,
      );
      expect(items).toEqual([expect.objectContaining({ subject: 'A loan is late' })]);
    } finally {
      await server.close();
      await temp.remove();
    }
  });
});

describe.runIf(POSTGRES_AVAILABLE)('a group of due records that fails on PostgreSQL', () => {
  it('is rolled back whole, then each record taken alone: every one taken, written and told once, after its commit', async () => {
    const temp = await postgres.fresh();
    const clock = testClock();
    const server = await open(LENDING, temp.options, clock.now);
    try {
      const { lend } = await lendingDesk(server, clock.now);
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push(await lend());
      clock.move(15 * DAY);
      // The third transition is written in its savepoint, then its group fails (as a deadlock
      // against another writer would): the two before it must be undone too, and none told.
      let calls = 0;
      const store = new Proxy(server.store, {
        get(target, prop) {
          if (prop === 'records') {
            return (entity: string) => {
              const records = target.records(entity);
              return new Proxy(records, {
                get(inner, name) {
                  if (name === 'transition') {
                    return async (...args: Parameters<typeof records.transition>) => {
                      const outcome = await records.transition(...args);
                      if (++calls === 3) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
                      return outcome;
                    };
                  }
                  const value = Reflect.get(inner, name, inner) as unknown;
                  return typeof value === 'function' ? value.bind(inner) : value;
                },
              });
            };
          }
          const value = Reflect.get(target, prop, target) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const told: string[] = [];
      const statesWhenTold: Promise<unknown>[] = [];
      const lines: Json[] = [];
      const scheduler = new TransitionScheduler({
        compiled: server.compiled,
        store,
        kinds: dueKinds(server.compiled.model),
        jobs: null,
        lock: LOCAL_LOCK,
        logger: pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line) as Json) }),
        now: clock.now,
        committed: (change) => {
          told.push(change.id);
          // Read on another connection as soon as it is told: only a committed write is seen.
          statesWhenTold.push(
            Promise.resolve(server.store.records('Loan').get(change.id)).then((r) => r?.record.state),
          );
        },
        batch: 4,
      });
      expect(await scheduler.round()).toMatchObject({ taken: 10, refused: 0, skipped: 0 });
      // Three in the failed group, its four again alone, then the other groups of four and two.
      expect(calls).toBe(3 + 4 + 4 + 2);
      expect([...told].sort()).toEqual([...ids].sort());
      expect(await Promise.all(statesWhenTold)).toEqual(ids.map(() => 'overdue'));
      for (const id of ids) {
        const history = await server.store.records('Loan').history(id);
        expect(history.filter((e) => e.transition === 'mark overdue')).toHaveLength(1);
      }
      expect(lines).toEqual([
        expect.objectContaining({
          msg: 'a group of automatic transitions was rolled back; its records are taken one at a time',
          records: 4,
        }),
      ]);
      expect((await scheduler.round()).taken).toBe(0);
    } finally {
      await server.close();
      await temp.remove();
    }
  });

  it('counts a limit with the records before it in the same transaction: 5 of 10 due taken, 5 refused', async () => {
    const source = LENDING.replace(
      '| loan limit           | Loan       |',
      '| overdue desk         | Loan       | at most 5 Loan in state overdue per book                  | LOAN_LIMIT      |\n| loan limit           | Loan       |',
    );
    expect(source).not.toBe(LENDING);
    const temp = await postgres.fresh();
    const clock = testClock();
    const server = await open(source, temp.options, clock.now);
    try {
      const { lend } = await lendingDesk(server, clock.now);
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push(await lend());
      clock.move(15 * DAY);
      expect(await server.timers.round()).toMatchObject({ taken: 5, refused: 5 });
      const states = await Promise.all(
        ids.map(async (id) => (await server.store.records('Loan').get(id))?.record.state),
      );
      expect(states.filter((s) => s === 'overdue')).toHaveLength(5);
      expect(await server.timers.round()).toMatchObject({ taken: 0, refused: 5 });
    } finally {
      await server.close();
      await temp.remove();
    }
  });
});

describe.runIf(POSTGRES_AVAILABLE)("the scheduler's lock on PostgreSQL", () => {
  it('is given up with its connection when unlocking fails, so another server still runs rounds', async () => {
    const temp = await postgres.fresh();
    const url = (temp.options as { databaseUrl: string }).databaseUrl;
    const one = new pg.Pool({ connectionString: url, max: 2 });
    const two = new pg.Pool({ connectionString: url, max: 2 });
    const query = pg.Client.prototype.query;
    try {
      pg.Client.prototype.query = function failingUnlock(this: pg.Client, ...args: unknown[]) {
        if (typeof args[0] === 'string' && args[0].includes('pg_advisory_unlock')) {
          return Promise.reject(new Error('Connection terminated unexpectedly'));
        }
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      expect(await pgSchedulerLock(one).whileHeld(async () => {})).toBe(true);
      pg.Client.prototype.query = query;
      expect(await pgSchedulerLock(two).whileHeld(async () => {})).toBe(true);
    } finally {
      pg.Client.prototype.query = query;
      await one.end();
      await two.end();
      await temp.remove();
    }
  });
});
