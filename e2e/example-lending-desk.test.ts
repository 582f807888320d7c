import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_ONLY } from '../packages/server/test/databases.ts';
import {
  type Client,
  exampleSource,
  inDays,
  type Json,
  NEVER_ANSWERED,
  readAll,
  someone,
  type User,
  Walk,
  walkDeactivation,
  walkJoiningLinks,
  walkLockout,
  walkPasswordReset,
  walkRateLimit,
  walkSession,
} from './walk.ts';

const SOURCE = exampleSource('lending-desk.md');

/** Codes of the catalogue no call of this spec can answer, each with why. */
const EXCLUDED: Readonly<Record<string, string>> = {
  ...NEVER_ANSWERED,
  SIGN_UP_DOMAIN: 'no role of the lending desk takes sign-ups from some email domains only',
  CANNOT_DEACTIVATE_SELF: 'staff manage people; the refusals are walked on the helpdesk (example-helpdesk.test.ts)',
  LAST_MANAGER: 'staff manage people; the refusals are walked on the helpdesk (example-helpdesk.test.ts)',
  INVALID_CHOICE: 'no field of the lending desk is a choice',
  TOO_SHORT: 'the lending desk’s one minimum length is title’s 1, and a required text refuses an empty one as REQUIRED',
};

describe.each(SQLITE_ONLY)('the lending desk example over HTTP on $name', (db) => {
  let walk: Walk;
  /** The desk: staff may do everything the spec allows. */
  let desk: Client;
  let deskUser: User;
  /** Signed out: the catalogue is public (`anyone | read`). */
  let visitor: Client;
  let isbns = 0;
  const isbn = () => `978${String(++isbns).padStart(10, '0')}`;
  const book = (fields: Json = {}): Json => ({
    title: 'Dune',
    author: 'Herbert, Frank',
    isbn: isbn(),
    copies: 3,
    shelf: 'FIC-120',
    ...fields,
  });
  const member = (name: string) => walk.user(['member'], name);
  const loan = (bookId: string, borrower: User, fields: Json = {}): Json => ({
    book: bookId,
    borrower: borrower.id,
    due: inDays(14),
    ...fields,
  });
  /** A title on the shelf that the loans below are made of. */
  let dune: Json;

  beforeAll(async () => {
    walk = await Walk.start(SOURCE, db);
    deskUser = await walk.user(['staff'], 'desk');
    desk = walk.as(deskUser);
    visitor = walk.as(null);
  });
  afterAll(async () => {
    await walk?.close();
  });

  it('creates a book as staff, answering 201 with its Location and ETag', async () => {
    const fields = book({
      summary: 'A desert planet, a spice, a prophecy.',
      cover: 'https://covers.example.org/dune.jpg',
    });
    dune = await desk.create('/api/books', fields);
    expect(dune).toMatchObject({ ...fields, created_by: deskUser.id });
    expect(dune.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(dune.created_at).toBe(dune.updated_at);
  });

  it('fills in the default copies, and takes MAX_COPIES copies but not one more', async () => {
    expect((await desk.create('/api/books', book({ copies: undefined }))).copies).toBe(1);
    expect((await desk.create('/api/books', book({ copies: 50 }))).copies).toBe(50);
    walk.expectProblem(await desk.post('/api/books', book({ copies: 51 })), 'VALIDATION_FAILED', [
      ['copies', 'OUT_OF_RANGE'],
    ]);
  });

  it('lets anyone read the catalogue signed out, and only staff change it', async () => {
    const answer = await visitor.get(`/api/books/${dune.id}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('etag')).toBe('"1"');
    expect(answer.body).toEqual(dune);
    walk.expectProblem(await visitor.post('/api/books', book()), 'NOT_SIGNED_IN');
    walk.expectProblem(await visitor.patch(`/api/books/${dune.id}`, { copies: 1 }), 'NOT_SIGNED_IN');
    walk.expectProblem(await visitor.delete(`/api/books/${dune.id}`), 'NOT_SIGNED_IN');

    const reader = walk.as(await member('reader'));
    expect((await reader.get(`/api/books/${dune.id}`)).status).toBe(200);
    walk.expectProblem(await reader.post('/api/books', book()), 'FORBIDDEN');
    walk.expectProblem(await reader.patch(`/api/books/${dune.id}`, { copies: 1 }), 'FORBIDDEN');
    walk.expectProblem(await reader.delete(`/api/books/${dune.id}`), 'FORBIDDEN');
    expect((await visitor.get(`/api/books/${dune.id}`)).body.copies).toBe(3);
  });

  it('answers an unknown id with the catalogue’s own NOT_FOUND message', async () => {
    const missing = await visitor.get(`/api/books/${someone()}`);
    walk.expectProblem(missing, 'NOT_FOUND');
    expect(missing.body.detail).toBe('That Book is not in the Riverside Branch Library catalogue.');
    walk.expectProblem(await visitor.get('/api/books/not-an-id'), 'NOT_FOUND');
    walk.expectProblem(await desk.get(`/api/loans/${someone()}`), 'NOT_FOUND');
    walk.expectProblem(await desk.get(`/api/loans/${someone()}/history`), 'NOT_FOUND');
  });

  it('refuses a book field by field with the catalogue codes, each at its field', async () => {
    const wrong = await desk.post('/api/books', {
      title: '',
      author: 'x'.repeat(121),
      isbn: '12345',
      copies: -1,
      summary: 's'.repeat(2001),
      cover: 'javascript:alert(1)',
      shelf: 'fic-120',
    });
    walk.expectProblem(wrong, 'VALIDATION_FAILED', [
      ['title', 'REQUIRED'],
      ['author', 'TOO_LONG'],
      ['isbn', 'PATTERN_MISMATCH'],
      ['copies', 'OUT_OF_RANGE'],
      ['summary', 'TOO_LONG'],
      ['cover', 'INVALID_TYPE'],
      ['shelf', 'PATTERN_MISMATCH'],
    ]);
    walk.expectProblem(await desk.post('/api/books', {}), 'VALIDATION_FAILED', [
      ['title', 'REQUIRED'],
      ['author', 'REQUIRED'],
      ['isbn', 'REQUIRED'],
      ['shelf', 'REQUIRED'],
    ]);
    walk.expectProblem(
      await desk.post('/api/books', book({ title: 't'.repeat(201), copies: 'three', shelf: null })),
      'VALIDATION_FAILED',
      [
        ['title', 'TOO_LONG'],
        ['copies', 'INVALID_TYPE'],
        ['shelf', 'REQUIRED'],
      ],
    );
    walk.expectProblem(await desk.post('/api/books', book({ copies: 2.5 })), 'VALIDATION_FAILED', [
      ['copies', 'INVALID_TYPE'],
    ]);
    walk.expectProblem(
      await desk.post('/api/books', book({ id: someone(), created_at: inDays(0) })),
      'VALIDATION_FAILED',
      [
        ['id', 'READ_ONLY_FIELD'],
        ['created_at', 'READ_ONLY_FIELD'],
      ],
    );
  });

  it('refuses a body that is not a book payload with INVALID_PAYLOAD, and one too large with PAYLOAD_TOO_LARGE', async () => {
    const unknown = await desk.post('/api/books', book({ publisher: 'Chilton' }));
    walk.expectProblem(unknown, 'INVALID_PAYLOAD');
    expect(unknown.body.detail).toContain('"publisher"');
    walk.expectProblem(await desk.post('/api/books', undefined, { raw: '{"title": "Du' }), 'INVALID_PAYLOAD');
    walk.expectProblem(await desk.post('/api/books', undefined, { raw: '[]' }), 'INVALID_PAYLOAD');
    walk.expectProblem(
      await desk.post('/api/books', undefined, { raw: 'title=Dune', contentType: 'text/plain' }),
      'INVALID_PAYLOAD',
    );
    const large = await desk.post('/api/books', book({ summary: 'x'.repeat(1_100_000) }));
    walk.expectProblem(large, 'PAYLOAD_TOO_LARGE');
    expect(large.body.detail).toContain('1048576');
  });

  it('refuses a second book with the same ISBN with NOT_UNIQUE at isbn', async () => {
    walk.expectProblem(await desk.post('/api/books', book({ isbn: dune.isbn })), 'NOT_UNIQUE', [
      ['isbn', 'NOT_UNIQUE'],
    ]);
  });

  it('answers UNKNOWN_CALL for every call section 7 does not declare', async () => {
    for (const [method, path] of [
      ['GET', '/api/nothing'],
      ['GET', '/api/members'],
      ['PUT', `/api/books/${dune.id}`],
      ['POST', `/api/books/${dune.id}`],
      ['GET', `/api/books/${dune.id}/history`],
      ['DELETE', `/api/loans/${someone()}`],
      ['PATCH', `/api/loans/${someone()}`],
      ['POST', `/api/loans/${someone()}/lend`],
    ] as const) {
      walk.expectProblem(await desk.call(method, path), 'UNKNOWN_CALL');
    }
  });

  it('lists the catalogue a PAGE_SIZE page at a time along the cursor', async () => {
    for (let i = 1; i <= 26; i++) {
      const shelf = i % 3 === 0 ? 'SCI-7' : 'FIC-120';
      await desk.create('/api/books', book({ title: `Walk ${String(i).padStart(2, '0')}`, copies: i % 4, shelf }));
    }
    const first = await visitor.get('/api/books?count=true');
    expect(first.body.items).toHaveLength(24); // PAGE_SIZE
    expect(first.body.total).toBe(29);
    expect(first.body.next).toEqual(expect.any(String));
    const second = await visitor.get(`/api/books?cursor=${first.body.next}`);
    expect(second.body.items).toHaveLength(5);
    expect(second.body.next).toBeNull();
    const ids = [...first.body.items, ...second.body.items].map((b: Json) => b.id);
    expect(new Set(ids).size).toBe(29);
    expect(ids).toEqual([...ids].sort()); // oldest first: ids are time-ordered
    expect((await readAll(visitor, '/api/books', 10)).map((b: Json) => b.id)).toEqual(ids);
    expect((await visitor.get('/api/books?limit=200')).body.items).toHaveLength(29); // MAX_PAGE_SIZE
  });

  it('sorts, filters and searches the catalogue, along the cursor too', async () => {
    const all: Json[] = (await visitor.get('/api/books?limit=200')).body.items;
    const byTitle = (await visitor.get('/api/books?sort=-title&limit=200')).body.items.map((b: Json) => b.title);
    expect(byTitle).toEqual(all.map((b) => b.title).sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)));
    const byCopies: Json[] = (await visitor.get('/api/books?sort=copies&limit=200')).body.items;
    expect(byCopies.map((b) => b.copies)).toEqual(all.map((b) => b.copies).sort((a, b) => a - b));
    expect((await readAll(visitor, '/api/books?sort=copies', 7)).map((b: Json) => b.id)).toEqual(
      byCopies.map((b) => b.id),
    );

    const science: Json[] = (await visitor.get('/api/books?filter[shelf]=SCI-7')).body.items;
    expect(science.map((b) => b.id)).toEqual(all.filter((b) => b.shelf === 'SCI-7').map((b) => b.id));
    expect(science).toHaveLength(8);
    const none = (await visitor.get('/api/books?filter[copies]=0&filter[shelf]=SCI-7')).body.items;
    expect(none.map((b: Json) => b.id)).toEqual(
      all.filter((b) => b.copies === 0 && b.shelf === 'SCI-7').map((b) => b.id),
    );

    const found: Json[] = (await visitor.get('/api/books?q=WALK%202')).body.items;
    expect(found.map((b) => b.title)).toEqual([
      'Walk 20',
      'Walk 21',
      'Walk 22',
      'Walk 23',
      'Walk 24',
      'Walk 25',
      'Walk 26',
    ]);
    expect((await visitor.get('/api/books?q=desert%20planet')).body.items.map((b: Json) => b.id)).toEqual([dune.id]);
  });

  it('refuses a list query it cannot answer with INVALID_PAYLOAD', async () => {
    const sorted = await visitor.get('/api/books?sort=title&limit=2');
    for (const query of [
      'limit=201',
      'limit=0',
      'sort=nope',
      'filter[nope]=1',
      'filter[copies]=many',
      'cursor=not-a-cursor',
      `sort=copies&cursor=${sorted.body.next}`,
      'page=2',
    ]) {
      walk.expectProblem(await visitor.get(`/api/books?${query}`), 'INVALID_PAYLOAD');
    }
  });

  it('updates a book with If-Match, answers a stale If-Match with CONFLICT and writes nothing', async () => {
    const updated = await desk.patch(`/api/books/${dune.id}`, { copies: 5, summary: 'Spice.' }, { ifMatch: '"1"' });
    expect(updated.status).toBe(200);
    expect(updated.headers.get('etag')).toBe('"2"');
    expect(updated.body).toMatchObject({ copies: 5, summary: 'Spice.', isbn: dune.isbn });
    expect(updated.body.updated_at >= dune.updated_at).toBe(true);

    const stale = await desk.patch(`/api/books/${dune.id}`, { copies: 9 }, { ifMatch: '"1"' });
    walk.expectProblem(stale, 'CONFLICT');
    const now = await desk.get(`/api/books/${dune.id}`);
    expect(now.headers.get('etag')).toBe('"2"');
    expect(now.body.copies).toBe(5);

    const cleared = await desk.patch(`/api/books/${dune.id}`, { summary: null });
    expect(cleared.body.summary).toBeNull();
    expect(cleared.headers.get('etag')).toBe('"3"');
    dune = cleared.body;
  });

  it('refuses an update of the ISBN (not in the PATCH payload) and of invalid values, at their fields', async () => {
    walk.expectProblem(await desk.patch(`/api/books/${dune.id}`, { isbn: isbn() }), 'VALIDATION_FAILED', [
      ['isbn', 'READ_ONLY_FIELD'],
    ]);
    walk.expectProblem(
      await desk.patch(`/api/books/${dune.id}`, { title: null, copies: 51, cover: 'ftp://x.example' }),
      'VALIDATION_FAILED',
      [
        ['title', 'REQUIRED'],
        ['copies', 'OUT_OF_RANGE'],
        ['cover', 'INVALID_TYPE'],
      ],
    );
    walk.expectProblem(await desk.patch(`/api/books/${someone()}`, { copies: 2 }), 'NOT_FOUND');
  });

  it('lends a book to a member: the loan starts out, lent today, and only its borrower and staff see it', async () => {
    const alice = await member('alice');
    const lent = await desk.create('/api/loans', loan(dune.id, alice));
    expect(lent).toMatchObject({
      state: 'out',
      book: dune.id,
      borrower: alice.id,
      lent_on: inDays(0),
      renewals: 0,
      condition_note: null,
      created_by: deskUser.id,
    });
    const own = await walk.as(alice).get(`/api/loans/${lent.id}`);
    expect(own.body).toEqual(lent);
    expect(own.headers.get('etag')).toBe('"1"');
    expect((await walk.as(alice).get('/api/loans')).body.items.map((l: Json) => l.id)).toEqual([lent.id]);

    const bob = walk.as(await member('bob'));
    walk.expectProblem(await bob.get(`/api/loans/${lent.id}`), 'NOT_FOUND');
    walk.expectProblem(await bob.get(`/api/loans/${lent.id}/history`), 'NOT_FOUND');
    expect((await bob.get('/api/loans')).body.items).toEqual([]);
    walk.expectProblem(await bob.post('/api/loans', loan(dune.id, alice)), 'FORBIDDEN');
    walk.expectProblem(await walk.as(alice).post(`/api/loans/${lent.id}/return`, {}), 'FORBIDDEN');
    walk.expectProblem(await visitor.get('/api/loans'), 'NOT_SIGNED_IN');
    walk.expectProblem(await visitor.get(`/api/loans/${lent.id}`), 'NOT_SIGNED_IN');
  });

  it('keeps a loan within LOAN_PERIOD of lending (LOAN_TOO_LONG), due after it (DUE_BEFORE_LENT)', async () => {
    const carol = await member('carol');
    expect((await desk.create('/api/loans', loan(dune.id, carol, { due: inDays(21) }))).due).toBe(inDays(21));
    const long = await desk.post('/api/loans', loan(dune.id, carol, { due: inDays(22) }));
    walk.expectProblem(long, 'LOAN_TOO_LONG', [[null, 'LOAN_TOO_LONG']]);
    expect(long.body.errors[0].message).toBe('A loan may last at most 21 days.');

    const early = await desk.post('/api/loans', loan(dune.id, carol, { lent_on: inDays(-3), due: inDays(-3) }));
    walk.expectProblem(early, 'DUE_BEFORE_LENT', [['due', 'DUE_BEFORE_LENT']]);
    expect(early.body.errors[0].message).toBe(`The due date must be after the day the book was lent (${inDays(-3)}).`);
  });

  it('lends only to members (NOT_A_MEMBER), only a title with copies (the guard of lend), only one that exists', async () => {
    const notMember = await desk.post('/api/loans', loan(dune.id, deskUser));
    walk.expectProblem(notMember, 'NOT_A_MEMBER', [['borrower', 'NOT_A_MEMBER']]);
    expect(notMember.body.errors[0].message).toBe('Books can only be lent to members with a library card.');

    const withdrawn = await desk.create('/api/books', book({ copies: 0 }));
    const refused = await desk.post('/api/loans', loan(withdrawn.id, await member('dave')));
    walk.expectProblem(refused, 'TRANSITION_NOT_ALLOWED');
    expect(refused.body.detail).toBe('Lend is allowed only when the book’s copies are more than 0.');
    walk.expectProblem(await desk.post('/api/loans', loan(someone(), await member('erin'))), 'UNKNOWN_REFERENCE', [
      ['book', 'UNKNOWN_REFERENCE'],
    ]);
  });

  it('refuses loan payloads field by field, and fields the lend payload does not carry', async () => {
    walk.expectProblem(
      await desk.post('/api/loans', { book: dune.id, borrower: 'alice', lent_on: '2025-02-30' }),
      'VALIDATION_FAILED',
      [
        ['borrower', 'INVALID_TYPE'],
        ['lent_on', 'INVALID_TYPE'],
        ['due', 'REQUIRED'],
      ],
    );
    walk.expectProblem(
      await desk.post('/api/loans', { book: dune.id, borrower: someone(), due: inDays(3), renewals: 1, state: 'lost' }),
      'VALIDATION_FAILED',
      [
        ['renewals', 'READ_ONLY_FIELD'],
        ['state', 'READ_ONLY_FIELD'],
      ],
    );
  });

  it('refuses the loan over MAX_LOANS with LOAN_LIMIT, and counts only loans that are out or overdue', async () => {
    const frank = await member('frank');
    const loans: Json[] = [];
    for (let i = 0; i < 5; i++) loans.push(await desk.create('/api/loans', loan(dune.id, frank)));
    const sixth = await desk.post('/api/loans', loan(dune.id, frank));
    walk.expectProblem(sixth, 'LOAN_LIMIT', [[null, 'LOAN_LIMIT']]);
    expect(sixth.body.detail).toBe('A member may hold at most 5 books at once.');
    // With another failure the answer is VALIDATION_FAILED listing both.
    walk.expectProblem(await desk.post('/api/loans', loan(dune.id, frank, { due: inDays(0) })), 'VALIDATION_FAILED', [
      ['due', 'DUE_BEFORE_LENT'],
      [null, 'LOAN_LIMIT'],
    ]);
    expect((await desk.post(`/api/loans/${loans[0].id}/return`, {})).body.state).toBe('returned');
    await desk.create('/api/loans', loan(dune.id, frank));
    const held = await walk.as(frank).get('/api/loans?count=true');
    expect(held.body.total).toBe(6);
    expect(held.body.items.filter((l: Json) => l.state === 'out')).toHaveLength(5);
  });

  it('walks a loan out → renew → renew → return with If-Match: each renewal moves the due date on and counts itself, up to MAX_RENEWALS', async () => {
    const grace = await member('grace');
    const lent = await desk.create('/api/loans', loan(dune.id, grace));
    const path = `/api/loans/${lent.id}`;
    walk.expectProblem(await walk.as(grace).post(`${path}/renew`), 'FORBIDDEN');
    const renewed = await desk.post(`${path}/renew`, undefined, { ifMatch: '"1"' });
    expect(renewed.status).toBe(200);
    expect(renewed.headers.get('etag')).toBe('"2"');
    // LOAN_PERIOD (21 days) after the due date (14 days ahead), and one renewal counted.
    expect(renewed.body).toMatchObject({ state: 'out', due: inDays(35), renewals: 1 });
    walk.expectProblem(await desk.post(`${path}/renew`, undefined, { ifMatch: '"1"' }), 'CONFLICT');
    // The desk no longer sends the due date or the count: the call takes no payload.
    walk.expectProblem(await desk.post(`${path}/renew`, { due: inDays(22) }), 'VALIDATION_FAILED', [
      ['due', 'READ_ONLY_FIELD'],
    ]);
    walk.expectProblem(await desk.post(`${path}/renew`, { renewals: 0 }), 'VALIDATION_FAILED', [
      ['renewals', 'READ_ONLY_FIELD'],
    ]);
    expect((await desk.post(`${path}/renew`)).body).toMatchObject({ due: inDays(56), renewals: 2 });
    // The guard sees the count before this renewal: a third is refused, and nothing changes.
    const third = await desk.post(`${path}/renew`);
    walk.expectProblem(third, 'TRANSITION_NOT_ALLOWED');
    expect(third.body.detail).toBe('Renew is allowed only when the renewals are less than 2.');
    expect((await desk.get(path)).body).toMatchObject({ due: inDays(56), renewals: 2 });

    walk.expectProblem(await desk.post(`${path}/return`, { condition_note: 'n'.repeat(501) }), 'VALIDATION_FAILED', [
      ['condition_note', 'TOO_LONG'],
    ]);
    const back = await desk.post(`${path}/return`, { condition_note: 'Spine cracked' });
    expect(back.body).toMatchObject({ state: 'returned', condition_note: 'Spine cracked' });
    const again = await desk.post(`${path}/return`, {});
    walk.expectProblem(again, 'TRANSITION_NOT_ALLOWED');
    expect(again.body.detail).toBe('return is not allowed when the Loan is returned.');
    walk.expectProblem(await desk.post(`${path}/mark-overdue`), 'TRANSITION_NOT_ALLOWED');

    const history = await walk.as(grace).get(`${path}/history`);
    expect(history.body.items).toMatchObject([
      { action: 'create', transition: null, from: null, to: 'out', by: deskUser.id },
      { action: 'transition', transition: 'renew', from: 'out', to: 'out', changes: { due: inDays(35), renewals: 1 } },
      { action: 'transition', transition: 'renew', from: 'out', to: 'out', changes: { due: inDays(56), renewals: 2 } },
      {
        action: 'transition',
        transition: 'return',
        from: 'out',
        to: 'returned',
        changes: { condition_note: 'Spine cracked' },
      },
    ]);
  });

  it('refuses a body on a transition that takes none, and a transition of a loan that does not exist', async () => {
    const lent = await desk.create('/api/loans', loan(dune.id, await member('heidi')));
    walk.expectProblem(await desk.post(`/api/loans/${lent.id}/mark-overdue`, { due: inDays(1) }), 'VALIDATION_FAILED', [
      ['due', 'READ_ONLY_FIELD'],
    ]);
    walk.expectProblem(await desk.post(`/api/loans/${lent.id}/write-off`, { reason: 'lost' }), 'INVALID_PAYLOAD');
    walk.expectProblem(await desk.post(`/api/loans/${someone()}/return`, {}), 'NOT_FOUND');
    walk.expectProblem(await desk.post('/api/loans/nope/renew'), 'NOT_FOUND');
  });

  it('marks a late loan overdue and takes it back; writes off only a loan late past LOST_AFTER', async () => {
    const ivan = await member('ivan');
    const onTime = await desk.create('/api/loans', loan(dune.id, ivan));
    const early = await desk.post(`/api/loans/${onTime.id}/mark-overdue`);
    walk.expectProblem(early, 'TRANSITION_NOT_ALLOWED');
    expect(early.body.detail).toBe('Mark overdue is allowed only when the due date has passed.');

    const late = await desk.create('/api/loans', loan(dune.id, ivan, { lent_on: inDays(-30), due: inDays(-20) }));
    expect((await desk.post(`/api/loans/${late.id}/mark-overdue`)).body.state).toBe('overdue');
    walk.expectProblem(await desk.post(`/api/loans/${late.id}/renew`), 'TRANSITION_NOT_ALLOWED');
    const soon = await desk.post(`/api/loans/${late.id}/write-off`);
    walk.expectProblem(soon, 'TRANSITION_NOT_ALLOWED');
    expect(soon.body.detail).toBe('Write off is allowed only when more than 8 weeks have passed since the due date.');
    expect((await desk.post(`/api/loans/${late.id}/return`)).body.state).toBe('returned');

    const lost = await desk.create('/api/loans', loan(dune.id, ivan, { lent_on: inDays(-80), due: inDays(-70) }));
    expect((await desk.post(`/api/loans/${lost.id}/mark-overdue`)).body.state).toBe('overdue');
    const written = await desk.post(`/api/loans/${lost.id}/write-off`, {}, { ifMatch: '"2"' });
    expect(written.body.state).toBe('lost');
    expect(written.headers.get('etag')).toBe('"3"');
    walk.expectProblem(await desk.post(`/api/loans/${lost.id}/return`), 'TRANSITION_NOT_ALLOWED');
    expect((await desk.get(`/api/loans/${lost.id}/history`)).body.items.map((h: Json) => h.to)).toEqual([
      'out',
      'overdue',
      'lost',
    ]);
  });

  it('lists loans by state, borrower and due date, and searches the condition notes', async () => {
    const all: Json[] = (await desk.get('/api/loans?limit=200')).body.items;
    const lost = (await desk.get('/api/loans?filter[state]=lost')).body.items;
    expect(lost.map((l: Json) => l.state)).toEqual(['lost']);
    expect((await desk.get('/api/loans?filter[state]=overdue')).body.items).toEqual([]);
    const out = (await desk.get(`/api/loans?filter[state]=out&filter[book]=${dune.id}&count=true`)).body;
    expect(out.total).toBe(all.filter((l) => l.state === 'out').length);
    const borrower = all[0].borrower;
    const theirs = (await desk.get(`/api/loans?filter[borrower]=${borrower}`)).body.items;
    expect(theirs.map((l: Json) => l.id)).toEqual(all.filter((l) => l.borrower === borrower).map((l) => l.id));
    const byDue = (await readAll(desk, '/api/loans?sort=-due', 4)).map((l: Json) => l.due);
    expect(byDue).toEqual(
      all
        .map((l) => l.due)
        .sort()
        .reverse(),
    );
    expect((await desk.get('/api/loans?q=spine')).body.items.map((l: Json) => l.condition_note)).toEqual([
      'Spine cracked',
    ]);
    walk.expectProblem(await desk.get('/api/loans?filter[state]=borrowed'), 'INVALID_PAYLOAD');
    walk.expectProblem(await desk.get('/api/loans?filter[borrower]=alice'), 'INVALID_PAYLOAD');
  });

  it('deletes a book with If-Match only while no loan refers to it', async () => {
    const referred = await desk.delete(`/api/books/${dune.id}`);
    walk.expectProblem(referred, 'CONFLICT');
    expect(referred.body.detail).toContain('Loan');
    expect((await visitor.get(`/api/books/${dune.id}`)).status).toBe(200);

    const spare = await desk.create('/api/books', book({ title: 'Spare' }));
    walk.expectProblem(await desk.delete(`/api/books/${spare.id}`, { ifMatch: '"7"' }), 'CONFLICT');
    expect((await desk.delete(`/api/books/${spare.id}`, { ifMatch: '"1"' })).status).toBe(204);
    walk.expectProblem(await visitor.get(`/api/books/${spare.id}`), 'NOT_FOUND');
    walk.expectProblem(await desk.delete(`/api/books/${spare.id}`), 'NOT_FOUND');
  });

  it('signs staff in by password: a session cookie reads and, from the app’s own pages only, writes', async () => {
    const written = await walkSession(walk, deskUser, '/api/loans', {
      method: 'POST',
      path: '/api/books',
      body: book({ title: 'Signed in' }),
    });
    expect(written.body.created_by).toBe(deskUser.id);
  });

  it('answers RATE_LIMITED past RATE_LIMIT_PER_MINUTE calls of one user', async () => {
    await walkRateLimit(walk.as(await member('eager')), '/api/books?limit=1');
  });

  // In this order: a lockout locks the address too, so only walks that sign no one in follow it.
  it('signs a deactivated account out and refuses its sign-in (ACCOUNT_DEACTIVATED)', async () => {
    await walkDeactivation(walk, await member('leaving'), '/api/books?limit=1');
  });

  it('locks sign-in after SIGN_IN_ATTEMPTS_PER_15_MINUTES failures, even with the right password (SIGN_IN_LOCKED)', async () => {
    await walkLockout(walk, await member('forgetful'));
  });

  it('refuses a password reset link no mail carried (RESET_LINK_INVALID), and answers a reset request alike for any address', async () => {
    await walkPasswordReset(walk);
  });

  it('refuses sign-up confirmation and invitation links no mail carried (VERIFY_LINK_INVALID, INVITATION_INVALID)', async () => {
    await walkJoiningLinks(walk);
  });

  it('walked every declared call to a success and answered every catalogued code', () => {
    walk.expectEveryCallSucceeded({});
    walk.expectCatalogueCovered(EXCLUDED);
  });
});

/**
 * Ids are UUIDs, which may be written in either case (RFC 9562), and `format: uuid` takes both. A
 * path id is read in lower case (`GET /api/books/<ID>` finds the book), so a reference in a body
 * or a filter must be too: otherwise an existing book is "unknown", and a borrower written in
 * upper case is another borrower to LOAN_LIMIT. And a reference to a user must name one.
 */
describe.each(SQLITE_ONLY)('the lending desk example: references on $name', (db) => {
  let walk: Walk;
  let desk: Client;
  let bookId: string;
  beforeAll(async () => {
    walk = await Walk.start(SOURCE, db);
    desk = walk.as(await walk.user(['staff'], 'desk'));
    const emma = { title: 'Emma', author: 'Austen, Jane', isbn: '9780141439587', shelf: 'FIC-1' };
    bookId = (await desk.create('/api/books', emma)).id;
  });
  afterAll(async () => {
    await walk?.close();
  });

  it('gets a record by its id in upper case', async () => {
    expect((await desk.get(`/api/books/${bookId.toUpperCase()}`)).body.id).toBe(bookId);
  });

  it('lends a book named by its id in upper case, storing the id as the book has it', async () => {
    const borrower = (await walk.user(['member'], 'upper')).id;
    const lent = await desk.post('/api/loans', { book: bookId.toUpperCase(), borrower, due: inDays(7) });
    expect(lent.status, lent.text).toBe(201);
    expect(lent.body.book).toBe(bookId);
  });

  it('counts a borrower written in upper case as the same borrower toward LOAN_LIMIT', async () => {
    const borrower = (await walk.user(['member'], 'twice')).id;
    for (let i = 0; i < 5; i++) await desk.create('/api/loans', { book: bookId, borrower, due: inDays(7) });
    const sixth = await desk.post('/api/loans', { book: bookId, borrower: borrower.toUpperCase(), due: inDays(7) });
    walk.expectProblem(sixth, 'LOAN_LIMIT', [[null, 'LOAN_LIMIT']]);
  });

  it('filters by a reference written in upper case', async () => {
    const answer = await desk.get(`/api/loans?filter[book]=${bookId.toUpperCase()}&count=true`);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.total).toBeGreaterThan(0);
  });

  it('refuses a loan to a borrower who is no user with UNKNOWN_REFERENCE (or the "members only" rule is skipped)', async () => {
    walk.expectProblem(
      await desk.post('/api/loans', { book: bookId, borrower: someone(), due: inDays(7) }),
      'UNKNOWN_REFERENCE',
      [['borrower', 'UNKNOWN_REFERENCE']],
    );
  });
});
