import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASES } from '../../packages/server/test/databases.ts';
import { type Desk, deskModel, inDays, loansHeld, MAX_LOANS, setUpDesk } from './desk.ts';
import { scaled } from './scale.ts';
import {
  type Answer,
  type ApiUser,
  call,
  inspectDatabase,
  type ServedDatabase,
  type ServeProcess,
  startServe,
} from './server-process.ts';

/**
 * Concurrency: many clients racing over HTTP on the same records of a served lending desk. On
 * PostgreSQL two server processes share the database (clients alternate between them), as
 * several app servers would; on SQLite one process serves the file. Every answer must be a success
 * or the refusal the spec catalogues for the race lost (never a 500), and what the database holds
 * afterwards is counted: one winner per transition, no borrower over MAX_LOANS at any moment of the
 * history, no lost read-modify-write.
 */

/** Clients racing on one record. */
const RACERS = scaled(8, 16);
const RACED_LOANS = scaled(6, 30);
const BORROWERS = scaled(3, 10);
/** Lend and return calls each client makes per borrower in the churn. */
const CHURN_CALLS = scaled(15, 60);
const SHARED_BOOKS = scaled(2, 4);
const WRITERS_PER_BOOK = scaled(6, 10);
const WRITES_PER_WRITER = scaled(5, 12);

// On PostgreSQL too: racing writes are serialised by each database's own locking.
describe.each(TEST_DATABASES)('racing clients on the lending desk on $name', (db) => {
  const model = deskModel();
  /** Set up in beforeAll, so that a describe filtered out (`-t`) leaves no folder behind. */
  let setup: Desk | undefined;
  let database: ServedDatabase;
  const servers: ServeProcess[] = [];
  let desk: ApiUser;
  let members: ApiUser[];
  /** Every answer: status and code, to assert no 5xx and only the expected refusals. */
  const answers: { what: string; status: number; code: string | null }[] = [];
  let calls = 0;

  const specPath = (): string => {
    if (!setup) throw new Error('beforeAll has not set up the desk');
    return setup.specPath;
  };

  beforeAll(async () => {
    setup = await setUpDesk(db, { members: BORROWERS + 1, domain: 'race' });
    ({ database, desk, members } = setup);
    const count = db.name === 'postgres' ? 2 : 1;
    for (let i = 0; i < count; i++) servers.push(await startServe({ specPath: specPath(), database }));
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await setup?.remove();
    const refusals = answers.filter((a) => a.status >= 400).length;
    console.log(`concurrency on ${db.name}: ${answers.length} racing calls, ${refusals} refused as catalogued`);
  });

  /** A call as the desk, through the servers in turn, recorded for the checks at the end. */
  async function race(method: string, path: string, body?: unknown, ifMatch?: string): Promise<Answer> {
    const server = servers[calls++ % servers.length] as ServeProcess;
    const answer = await call(server.url, desk.token, method, path, body, ifMatch ? { ifMatch } : {});
    answers.push({ what: `${method} ${path}`, status: answer.status, code: answer.body?.code ?? null });
    expect(answer.status, `${method} ${path}: ${answer.text.slice(0, 300)}`).toBeLessThan(500);
    return answer;
  }

  async function created(path: string, body: unknown): Promise<Record<string, unknown>> {
    const answer = await race('POST', path, body);
    expect(answer.status, answer.text).toBe(201);
    return answer.body;
  }

  let books = 0;
  const newBook = () =>
    created('/api/books', {
      title: `Race ${++books}`,
      author: 'Racer, Many',
      isbn: `979${String(books).padStart(10, '0')}`,
      copies: 5,
      shelf: 'RC-1',
    });

  /** Whether each answer is a success or the one refusal named: its status and code. */
  function outcomes(list: readonly Answer[], refusal: { status: number; code: string }) {
    const won = list.filter((a) => a.status >= 200 && a.status < 300);
    const lost = list.filter((a) => a.status === refusal.status && a.body?.code === refusal.code);
    expect(
      list.filter((a) => !won.includes(a) && !lost.includes(a)).map((a) => a.text),
      `answers other than success or ${refusal.code}`,
    ).toEqual([]);
    return { won, lost };
  }

  it('lets exactly one of N racing clients return a loan; the others get TRANSITION_NOT_ALLOWED', async () => {
    const book = await newBook();
    const borrower = members[BORROWERS] as ApiUser;
    const loans: Record<string, unknown>[] = [];
    for (let i = 0; i < RACED_LOANS; i++) {
      loans.push(await created('/api/loans', { book: book.id, borrower: borrower.id, due: inDays(7) }));
      // The last loans stay within MAX_LOANS: return each once raced, before lending the next batch.
      if (loans.length % MAX_LOANS === 0 || i === RACED_LOANS - 1) {
        const batch = loans.splice(0);
        const raced = await Promise.all(
          batch.map((loan) =>
            Promise.all(
              Array.from({ length: RACERS }, (_, n) =>
                race('POST', `/api/loans/${loan.id}/return`, { condition_note: `racer ${n}` }),
              ),
            ),
          ),
        );
        for (const [j, answers] of raced.entries()) {
          const { won, lost } = outcomes(answers, { status: 409, code: 'TRANSITION_NOT_ALLOWED' });
          expect(won).toHaveLength(1);
          expect(lost).toHaveLength(RACERS - 1);
          const winner = won[0]?.body;
          const stored = await race('GET', `/api/loans/${batch[j]?.id}`);
          expect(stored.etag).toBe('"2"');
          expect(stored.body).toMatchObject({ state: 'returned', condition_note: winner.condition_note });
        }
      }
    }
  });

  it('lets exactly one of N clients renewing with the same If-Match win; the others get CONFLICT', async () => {
    const book = await newBook();
    const borrower = members[BORROWERS] as ApiUser;
    const loans = await Promise.all(
      Array.from({ length: MAX_LOANS }, () =>
        created('/api/loans', { book: book.id, borrower: borrower.id, due: inDays(3) }),
      ),
    );
    const raced = await Promise.all(
      loans.map((loan) =>
        Promise.all(
          Array.from({ length: RACERS }, () => race('POST', `/api/loans/${loan.id}/renew`, undefined, '"1"')),
        ),
      ),
    );
    for (const [j, answers] of raced.entries()) {
      const { won, lost } = outcomes(answers, { status: 409, code: 'CONFLICT' });
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(RACERS - 1);
      const stored = await race('GET', `/api/loans/${loans[j]?.id}`);
      expect(stored.etag).toBe('"2"');
      // One renewal, not several: LOAN_PERIOD (21 days) added once, counted once.
      expect(stored.body).toMatchObject({ due: inDays(24), renewals: 1 });
      expect(stored.body.due).toBe(won[0]?.body.due);
      await race('POST', `/api/loans/${loans[j]?.id}/return`, {});
    }
  });

  it('lets exactly one of N clients creating the same ISBN, and one deleting a book, succeed', async () => {
    for (let round = 0; round < scaled(3, 10); round++) {
      const isbn = `979${String(900_000 + round).padStart(10, '0')}`;
      const creates = await Promise.all(
        Array.from({ length: RACERS }, (_, n) =>
          race('POST', '/api/books', { title: `Twin ${n}`, author: 'Twin, A', isbn, shelf: 'TW-1' }),
        ),
      );
      const { won } = outcomes(creates, { status: 409, code: 'NOT_UNIQUE' });
      expect(won).toHaveLength(1);
      const id = won[0]?.body.id;
      const deletes = await Promise.all(Array.from({ length: RACERS }, () => race('DELETE', `/api/books/${id}`)));
      expect(outcomes(deletes, { status: 404, code: 'NOT_FOUND' }).won).toHaveLength(1);
    }
  });

  it('never lets a borrower hold more than MAX_LOANS, however lends and returns race', async () => {
    const book = await newBook();
    const borrowers = members.slice(0, BORROWERS);
    // A burst: RACERS lends at once per borrower, all borrowers together; MAX_LOANS each pass.
    const burst = await Promise.all(
      borrowers.map((b) =>
        Promise.all(
          Array.from({ length: RACERS + MAX_LOANS }, () =>
            race('POST', '/api/loans', { book: book.id, borrower: b.id, due: inDays(10) }),
          ),
        ),
      ),
    );
    const out = new Map<string, string[]>();
    for (const [i, answers] of burst.entries()) {
      const { won } = outcomes(answers, { status: 409, code: 'LOAN_LIMIT' });
      expect(won).toHaveLength(MAX_LOANS);
      out.set(
        borrowers[i]?.id ?? '',
        won.map((a) => a.body.id as string),
      );
    }
    // The churn: per borrower, clients lend and return at random, racing each other.
    let lent = 0;
    let returned = 0;
    await Promise.all(
      borrowers.flatMap((b) =>
        Array.from({ length: 4 }, async (_, client) => {
          const held = out.get(b.id) ?? [];
          for (let n = 0; n < CHURN_CALLS; n++) {
            if ((n + client) % 2 === 0 && held.length > 0) {
              const id = held[(n * 7 + client) % held.length] as string;
              const answer = await race('POST', `/api/loans/${id}/return`, {});
              const { won } = outcomes([answer], { status: 409, code: 'TRANSITION_NOT_ALLOWED' });
              if (won.length === 1) {
                returned++;
                held.splice(held.indexOf(id), 1);
              }
            } else {
              const answer = await race('POST', '/api/loans', { book: book.id, borrower: b.id, due: inDays(10) });
              const { won } = outcomes([answer], { status: 409, code: 'LOAN_LIMIT' });
              if (won.length === 1) {
                lent++;
                held.push(answer.body.id);
              }
            }
          }
        }),
      ),
    );
    expect(lent, 'lends that passed in the churn').toBeGreaterThan(0);
    expect(returned, 'returns in the churn').toBeGreaterThan(0);

    const { most, now } = await loansHeld(model, database);
    for (const b of borrowers) {
      expect(most.get(b.id), `the most loans ${b.email} held at once`).toBe(MAX_LOANS);
      expect(now.get(b.id), `the loans ${b.email} holds now`).toBe(out.get(b.id)?.length);
    }
    const page = await race('GET', `/api/loans?filter[book]=${book.id}&filter[state]=out&count=true&limit=1`);
    expect(page.body.total).toBe(BORROWERS * MAX_LOANS - returned + lent);
  });

  it('loses no write when clients read, modify and write back with If-Match, retrying on CONFLICT', async () => {
    let retried = 0;
    const shared = await Promise.all(Array.from({ length: SHARED_BOOKS }, () => newBook()));
    await Promise.all(
      shared.flatMap((book) =>
        Array.from({ length: WRITERS_PER_BOOK }, async (_, writer) => {
          for (let n = 0; n < WRITES_PER_WRITER; n++) {
            const mark = `[w${writer}n${n}]`;
            for (;;) {
              const read = await race('GET', `/api/books/${book.id}`);
              expect(read.status).toBe(200);
              const summary = `${read.body.summary ?? ''}${mark}`;
              const wrote = await race('PATCH', `/api/books/${book.id}`, { summary }, read.etag ?? '');
              if (outcomes([wrote], { status: 409, code: 'CONFLICT' }).won.length === 1) break;
              retried++;
            }
          }
        }),
      ),
    );
    console.log(`concurrency on ${db.name}: ${retried} read-modify-writes retried after CONFLICT`);
    for (const book of shared) {
      const stored = await race('GET', `/api/books/${book.id}`);
      const marks: string[] = stored.body.summary.match(/\[w\d+n\d+\]/g) ?? [];
      expect(marks).toHaveLength(WRITERS_PER_BOOK * WRITES_PER_WRITER);
      expect(new Set(marks).size).toBe(marks.length);
      expect(stored.etag).toBe(`"${1 + WRITERS_PER_BOOK * WRITES_PER_WRITER}"`);
    }
  });

  it('answered no 5xx, logged no error, and left a whole database with its history in step', async () => {
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    for (const server of servers) expect(server.errorLogs(), 'errors the server logged').toEqual([]);
    await Promise.all(servers.map((s) => s.stop()));
    const inspection = await inspectDatabase(model, database);
    expect(inspection.problems).toEqual([]);
  });
});
