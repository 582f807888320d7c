import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASES } from '../../packages/server/test/databases.ts';
import { between, type Desk, deskModel, inDays, killMoment, loansHeld, MAX_LOANS, prng, setUpDesk } from './desk.ts';
import { FULL, scaled } from './scale.ts';
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
 * Crash safety: writers drive creates, updates (If-Match), transitions and deletes at a served
 * lending desk, which is killed with SIGKILL at a random moment, restarted on the same database,
 * and the database is compared with every answer the writers got. Each writer owns its records
 * (it lends only its own books), so a record has at most one call in flight, and the record's
 * fate is known exactly: what the last 2xx answered, or, for the one call a kill left unanswered,
 * either what it had before or all of what the call asked for (never a part of it).
 *
 * CRASH_SEED replays a run's choices of calls and kill moments (the interleaving of answers still
 * varies with timing).
 */

const SEED = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const ROUNDS = scaled(3, 20);
const WRITERS = scaled(4, 6);
/** How long the writers run before the kill, in ms: from just after start to a few seconds in. */
const RUN_MS: readonly [number, number] = scaled([150, 1200], [150, 3000]);
/**
 * Writes each round has answered before its kill, however long that takes (up to 30 s): on a
 * loaded machine the random run time alone had seen 10 writes answered over 3 rounds.
 */
const ANSWERED_PER_ROUND = 6;
const MEMBERS = 6;

console.log(`crash: CRASH_SEED=${SEED} (set it to replay the choices), ${ROUNDS} rounds of ${WRITERS} writers`);

type Entity = 'Book' | 'Loan';
type Fields = Record<string, unknown>;

/** A record as the server last answered it (present), or answered its delete (gone). */
interface Known {
  entity: Entity;
  id: string;
  record: Fields;
  version: number;
  /** The writer that owns it (books: created it; loans: lent its own book). */
  writer: number;
}

/** The call a writer has in flight, with every outcome the database may show if it is never answered. */
type Pending =
  | { kind: 'create'; entity: Entity; sent: Fields; path: string }
  | { kind: 'write'; known: Known; expect: Fields; path: string }
  | { kind: 'delete'; known: Known; path: string };

interface Tally {
  answered: number;
  refused: number;
  unanswered: number;
  /** Unanswered calls the database shows done, and not done. */
  landed: number;
  vanished: number;
  kills: number;
  records: number;
}

// On PostgreSQL too: what survives a SIGKILL is each database's durability.
describe.each(TEST_DATABASES)('the lending desk killed with SIGKILL mid-write on $name', (db) => {
  const model = deskModel();
  /** Set up in beforeAll, so that a describe filtered out (`-t`) leaves no folder behind. */
  let setup: Desk | undefined;
  let database: ServedDatabase;
  let desk: ApiUser;
  let members: ApiUser[];
  let server: ServeProcess | undefined;
  const known = new Map<string, Known>();
  const gone = new Set<string>();
  const tally: Tally = { answered: 0, refused: 0, unanswered: 0, landed: 0, vanished: 0, kills: 0, records: 0 };
  const random = prng(SEED + (db.name === 'postgres' ? 1 : 0));
  /** Answers a writer got that no crash explains: a 5xx, an unexpected refusal. */
  const wrong: string[] = [];

  const specPath = (): string => {
    if (!setup) throw new Error('beforeAll has not set up the desk');
    return setup.specPath;
  };

  beforeAll(async () => {
    setup = await setUpDesk(db, { members: MEMBERS, domain: 'crash' });
    ({ database, desk, members } = setup);
  });

  afterAll(async () => {
    await server?.kill();
    await setup?.remove();
    console.log(`crash on ${db.name}: ${JSON.stringify(tally)}`);
  });

  /** One writer's calls until the server is gone; answers its call left in flight, or null. */
  async function write(writer: number, url: string, isbns: { next: number }): Promise<Pending | null> {
    for (;;) {
      const pending = nextCall(writer, isbns);
      let answer: Answer;
      try {
        answer = await send(url, pending);
      } catch {
        return pending;
      }
      settle(writer, pending, answer);
    }
  }

  /** A call chosen at random among those the writer's records allow, always with If-Match. */
  function nextCall(writer: number, isbns: { next: number }): Pending {
    const mine = [...known.values()].filter((k) => k.writer === writer);
    const books = mine.filter((k) => k.entity === 'Book');
    const loans = mine.filter((k) => k.entity === 'Loan');
    const choice = random();
    if (books.length < 3 || choice < 0.15) {
      const isbn = `978${String(writer).padStart(2, '0')}${String(++isbns.next).padStart(8, '0')}`;
      const sent = {
        title: `Crash ${writer}-${isbns.next}`,
        author: 'Tester, Crash',
        isbn,
        copies: between(random, 1, 50),
        shelf: `CR-${between(random, 1, 9999)}`,
        summary: 's'.repeat(between(random, 0, 400)),
      };
      return { kind: 'create', entity: 'Book', sent, path: '/api/books' };
    }
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    if (choice < 0.4) {
      const book = pick(books);
      const patch = {
        title: `Crash ${writer} v${book.version + 1}`,
        copies: between(random, 1, 50),
        summary: random() < 0.3 ? null : 'u'.repeat(between(random, 1, 1500)),
      };
      return { kind: 'write', known: book, expect: patch, path: `/api/books/${book.id}` };
    }
    if (choice < 0.45) {
      const unlent = books.filter((b) => !loans.some((l) => l.record.book === b.id));
      if (unlent.length > 0) {
        const book = pick(unlent);
        return { kind: 'delete', known: book, path: `/api/books/${book.id}` };
      }
    }
    if (choice < 0.7) {
      // Never due yet: the app marks a loan past its due date overdue by itself (`system` in point
      // 4), which would change records behind the writers' ledger.
      const sent = { book: pick(books).id, borrower: pick(members).id, due: inDays(between(random, 1, 21)) };
      return { kind: 'create', entity: 'Loan', sent, path: '/api/loans' };
    }
    const out = loans.filter((l) => l.record.state === 'out');
    const held = loans.filter((l) => l.record.state === 'out' || l.record.state === 'overdue');
    const renewable = out.filter((l) => Number(l.record.renewals) < 2);
    if (choice < 0.8 && renewable.length > 0) {
      const loan = pick(renewable);
      // A renewal takes no payload: it moves the due date on by LOAN_PERIOD (21 days) and counts itself.
      const due = new Date(Date.parse(`${loan.record.due}T00:00:00Z`) + 21 * 86_400_000).toISOString().slice(0, 10);
      const renewed = { due, renewals: Number(loan.record.renewals) + 1 };
      return { kind: 'write', known: loan, expect: renewed, path: `/api/loans/${loan.id}/renew` };
    }
    if (held.length > 0) {
      const loan = pick(held);
      const payload = { condition_note: random() < 0.5 ? null : `Back ${between(random, 1, 1e6)}` };
      return {
        kind: 'write',
        known: loan,
        expect: { ...payload, state: 'returned' },
        path: `/api/loans/${loan.id}/return`,
      };
    }
    // A different number of copies: an update that changes nothing answers 200 at the same version.
    const book = pick(books);
    const copies = (Number(book.record.copies) % 50) + 1;
    return { kind: 'write', known: book, expect: { copies }, path: `/api/books/${book.id}` };
  }

  function send(url: string, pending: Pending): Promise<Answer> {
    const token = desk.token;
    if (pending.kind === 'create') return call(url, token, 'POST', pending.path, pending.sent);
    const ifMatch = `"${pending.known.version}"`;
    if (pending.kind === 'delete') return call(url, token, 'DELETE', pending.path, undefined, { ifMatch });
    const isBook = pending.known.entity === 'Book';
    const { state: _, ...body } = pending.expect;
    const transitionBody = pending.path.endsWith('/renew') ? undefined : body;
    return call(url, token, isBook ? 'PATCH' : 'POST', pending.path, isBook ? body : transitionBody, { ifMatch });
  }

  /** Takes an answer into the ledger: a 2xx is what the database must show from now on. */
  function settle(writer: number, pending: Pending, answer: Answer): void {
    const what = `${pending.path} answered ${answer.status}: ${answer.text.slice(0, 300)}`;
    if (answer.status >= 300) {
      // Lending to a member who holds MAX_LOANS is the one refusal these calls can meet.
      if (answer.status === 409 && answer.body?.code === 'LOAN_LIMIT') tally.refused++;
      else wrong.push(what);
      return;
    }
    tally.answered++;
    if (pending.kind === 'delete') {
      if (answer.status !== 204) wrong.push(what);
      known.delete(pending.known.id);
      gone.add(pending.known.id);
      return;
    }
    const version = Number(/^"(\d+)"$/.exec(answer.etag ?? '')?.[1]);
    const entity = pending.kind === 'create' ? pending.entity : pending.known.entity;
    const record = answer.body as Fields;
    const expected = pending.kind === 'create' ? pending.sent : pending.expect;
    const expectedVersion = pending.kind === 'create' ? 1 : pending.known.version + 1;
    if (version !== expectedVersion || !matches(record, expected))
      wrong.push(
        `${pending.path} answered ${answer.status} with ETag ${answer.etag}, expected version ${expectedVersion} and ${JSON.stringify(expected)}: ${answer.text.slice(0, 300)}`,
      );
    known.set(String(record.id), { entity, id: String(record.id), record, version, writer });
  }

  /** Compares the database with the ledger, resolving each unanswered call by what the database shows. */
  function reconcile(
    records: Map<string, Map<string, { record: Fields; version: number }>>,
    inFlight: (Pending | null)[],
  ): string[] {
    const problems: string[] = [];
    const stored = new Map<string, { entity: Entity; record: Fields; version: number }>();
    for (const entity of ['Book', 'Loan'] as const) {
      for (const [id, row] of records.get(entity) ?? []) stored.set(id, { entity, ...row });
    }
    const unsettled = new Map<string, Exclude<Pending, { kind: 'create' }>>();
    const creates: { writer: number; pending: Extract<Pending, { kind: 'create' }> }[] = [];
    for (const [writer, pending] of inFlight.entries()) {
      if (!pending) continue;
      tally.unanswered++;
      if (pending.kind === 'create') creates.push({ writer, pending });
      else unsettled.set(pending.known.id, pending);
    }
    for (const [id, k] of known) {
      const row = stored.get(id);
      const pending = unsettled.get(id);
      stored.delete(id);
      const before = row !== undefined && row.version === k.version && matches(row.record, k.record);
      if (!pending) {
        if (!row) problems.push(`${k.entity} ${id}, answered at version ${k.version}, is lost`);
        else if (!before) problems.push(`${k.entity} ${id} is not as answered: ${JSON.stringify({ k, row })}`);
        continue;
      }
      if (pending.kind === 'delete') {
        if (!row) {
          known.delete(id);
          gone.add(id);
          tally.landed++;
        } else if (before) tally.vanished++;
        else problems.push(`${k.entity} ${id}: an unanswered delete left it changed: ${JSON.stringify(row)}`);
        continue;
      }
      const after =
        row !== undefined &&
        row.version === k.version + 1 &&
        matches(row.record, { ...k.record, ...pending.expect }, k);
      if (after && row) {
        known.set(id, { ...k, record: row.record, version: row.version });
        tally.landed++;
      } else if (before) tally.vanished++;
      else
        problems.push(
          `${k.entity} ${id}: an unanswered ${pending.path} left it half-written: ${JSON.stringify({ k, row, expect: pending.expect })}`,
        );
    }
    for (const id of gone) {
      if (stored.has(id)) problems.push(`${id}, answered deleted, is stored again`);
      stored.delete(id);
    }
    // What is left was never answered: each must be the whole of one unanswered create.
    for (const [id, row] of stored) {
      const index = creates.findIndex((c) => c.pending.entity === row.entity && matches(row.record, c.pending.sent));
      const create = creates[index];
      if (!create || row.version !== 1) {
        problems.push(`${row.entity} ${id} was never answered and matches no call in flight: ${JSON.stringify(row)}`);
        continue;
      }
      creates.splice(index, 1);
      known.set(id, { entity: row.entity, id, record: row.record, version: 1, writer: create.writer });
      tally.landed++;
    }
    tally.vanished += creates.length;
    return problems;
  }

  it(
    'keeps every answered write across SIGKILL, and an unanswered one whole or not at all',
    async () => {
      const isbns = Array.from({ length: WRITERS }, () => ({ next: 0 }));
      for (let round = 1; round <= ROUNDS; round++) {
        const started = await startServe({ specPath: specPath(), database });
        server = started;
        const answeredBefore = tally.answered;
        const runs = isbns.map((counter, writer) => write(writer, started.url, counter));
        await killMoment(
          between(random, RUN_MS[0], RUN_MS[1]),
          () => tally.answered - answeredBefore,
          ANSWERED_PER_ROUND,
          30_000,
        );
        const exit = await started.kill();
        tally.kills++;
        expect(exit.signal, started.output).toBe('SIGKILL');
        const inFlight = await Promise.all(runs);
        expect(wrong, `answers no crash explains (round ${round}, CRASH_SEED=${SEED})`).toEqual([]);
        expect(started.errorLogs(), 'errors the server logged').toEqual([]);

        const inspection = await inspectDatabase(model, database);
        expect(inspection.problems, `database after kill ${round} (CRASH_SEED=${SEED})`).toEqual([]);
        expect(reconcile(inspection.records, inFlight), `round ${round} (CRASH_SEED=${SEED})`).toEqual([]);
        const { most } = await loansHeld(model, database);
        expect(Math.max(0, ...most.values())).toBeLessThanOrEqual(MAX_LOANS);
      }
      tally.records = known.size;
      expect(tally.answered, 'writes answered before the kills').toBeGreaterThan(ROUNDS * 5);

      // A last start: the server serves every record exactly as the database holds it.
      const last = await startServe({ specPath: specPath(), database });
      server = last;
      for (const [path, entity] of [
        ['/api/books', 'Book'],
        ['/api/loans', 'Loan'],
      ] as const) {
        const served = new Map<string, Fields>();
        let next: string | null = null;
        do {
          const page: Answer = await call(
            last.url,
            desk.token,
            'GET',
            `${path}?limit=200${next ? `&cursor=${next}` : ''}`,
          );
          expect(page.status, page.text).toBe(200);
          for (const item of page.body.items as Fields[]) served.set(String(item.id), item);
          next = page.body.next;
        } while (next);
        const ours = [...known.values()].filter((k) => k.entity === entity);
        expect(served.size).toBe(ours.length);
        for (const k of ours) expect(served.get(k.id)).toEqual(k.record);
      }
      await last.stop();
    },
    // Reduced: about 25 s on a quiet machine; the bound leaves room for starts and the rounds'
    // waits for answers (up to 30 s each) on a loaded one.
    FULL ? 900_000 : 240_000,
  );
});

/**
 * Whether a record holds every value `expected` names. For the updated version of a record known
 * before (`previous`), `updated_at` may move on; nothing else outside `expected` may change.
 */
function matches(record: Fields, expected: Fields, previous?: Known): boolean {
  for (const [name, value] of Object.entries(expected)) {
    if (name === 'updated_at' && previous) continue;
    if (record[name] !== value) return false;
  }
  return true;
}
