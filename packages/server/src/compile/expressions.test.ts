import { describe, expect, it } from 'vitest';
import { LENDING_DESK, modelOf, replaceOnce } from '../../test/helpers.ts';
import type { ApiRecord } from '../store/store.ts';
import { chainsOf, compileExpressions, type RecordLoader } from './expressions.ts';

/** The sketch with an optional note on Loan, a rule about it, a duration constant and a field rule. */
const SPEC = replaceOnce(
  replaceOnce(
    replaceOnce(
      LENDING_DESK,
      /\| due {6}\| date \| required \|/,
      (row) => `${row}\n| note | text | |\n| fee | decimal | |`,
    ),
    /\| loan limit {8}\|/,
    (row) =>
      `| short note | Loan | size(note) < 5 | DUE_IN_PAST |\n| fee rule | Loan.fee | value < 2.5 | DUE_IN_PAST |\n| soon | Loan | due - today < GRACE | DUE_IN_PAST |\n${row}`,
  ),
  /\| MAX_COPIES \| 50 {4}\|/,
  (row) => `| GRACE | 3 days | grace |\n${row}`,
);

const BOOK_ID = '0190f3c4-7a2b-7c3d-8e4f-00000000000b';
const books: Record<string, ApiRecord> = {
  [BOOK_ID]: { id: BOOK_ID, title: 'Dune', isbn: '9780441013593', copies: 2 },
};
const load: RecordLoader = (entity, id) => (entity === 'Book' ? books[id] : undefined);
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const loan = (extra: ApiRecord = {}): ApiRecord => ({
  id: 'l1',
  state: 'out',
  book: BOOK_ID,
  borrower: 'u1',
  due: day(2),
  note: null,
  fee: null,
  ...extra,
});

describe('compiled expressions', () => {
  const model = modelOf(SPEC);
  const compiled = compileExpressions(model);
  const evaluator = compiled.entities.get('Loan');
  const guard = (name: string) => compiled.guards.get('Loan')?.get(name);
  const rule = (name: string) => compiled.rules.get(name);
  if (!evaluator) throw new Error('no Loan');

  it('compiles every guard and expression rule once, with the field chains they mention', () => {
    expect([...(compiled.guards.get('Loan')?.keys() ?? [])]).toEqual(['lend', 'mark overdue']);
    expect(guard('lend')?.chains).toEqual([['book', 'copies']]);
    expect(rule('due in the future')?.chains).toEqual([['due']]);
    expect(rule('fee rule')?.chains).toEqual([['value']]);
  });

  it('loads references, types integers as ints and dates as timestamps', () => {
    const lend = guard('lend');
    if (!lend) throw new Error('no guard');
    expect(evaluator.evaluate(lend, loan(), load, 'guard')).toBe('holds');
    books[BOOK_ID] = { ...books[BOOK_ID], copies: 0 };
    expect(evaluator.evaluate(lend, loan(), load, 'guard')).toBe('fails');
    books[BOOK_ID] = { ...books[BOOK_ID], copies: 2 };
    const due = rule('due in the future');
    if (!due) throw new Error('no rule');
    expect(evaluator.evaluate(due, loan(), load, 'rule')).toBe('holds');
    expect(evaluator.evaluate(due, loan({ due: day(0) }), load, 'rule')).toBe('fails');
  });

  it('skips a rule and fails a guard that mention an empty field or a missing record', () => {
    const short = rule('short note');
    const fee = rule('fee rule');
    const lend = guard('lend');
    if (!short || !fee || !lend) throw new Error('missing');
    expect(evaluator.evaluate(short, loan(), load, 'rule')).toBe('skipped');
    expect(evaluator.evaluate(short, loan({ note: 'ok' }), load, 'rule')).toBe('holds');
    expect(evaluator.evaluate(short, loan({ note: 'too long' }), load, 'rule')).toBe('fails');
    expect(evaluator.evaluate(fee, loan(), load, 'rule')).toBe('skipped');
    expect(evaluator.evaluate(fee, loan({ fee: 1.25 }), load, 'rule')).toBe('holds');
    expect(evaluator.evaluate(fee, loan({ fee: 3 }), load, 'rule')).toBe('fails');
    expect(evaluator.evaluate(lend, loan({ book: 'gone' }), load, 'guard')).toBe('fails');
    expect(evaluator.evaluate(lend, loan({ book: null }), load, 'guard')).toBe('fails');
  });

  it('gives duration constants as CEL durations', () => {
    const soon = rule('soon');
    if (!soon) throw new Error('no rule');
    expect(evaluator.evaluate(soon, loan({ due: day(2) }), load, 'rule')).toBe('holds');
    expect(evaluator.evaluate(soon, loan({ due: day(9) }), load, 'rule')).toBe('fails');
  });

  it('fails closed when evaluation throws or a loader throws', () => {
    const lend = guard('lend');
    const due = rule('due in the future');
    if (!lend || !due) throw new Error('missing');
    const broken: RecordLoader = () => {
      throw new Error('database gone');
    };
    expect(evaluator.evaluate(lend, loan(), broken, 'guard')).toBe('fails');
    // A value of the wrong type reaches CEL: an error, so the rule is violated.
    expect(evaluator.evaluate(due, loan({ due: 'not a date' }), load, 'rule')).toBe('fails');
  });
});

describe('chainsOf', () => {
  it('finds field chains outside strings and leaves method names out', () => {
    const heads = new Set(['book', 'note', 'due']);
    expect(chainsOf('book.copies > 0 && note.size() < 3 && "due" != note', heads)).toEqual([
      ['book', 'copies'],
      ['note'],
    ]);
    expect(chainsOf('size(note) > 0', heads)).toEqual([['note']]);
  });
});
