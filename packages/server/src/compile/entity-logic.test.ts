import { describe, expect, it } from 'vitest';
import { LENDING_DESK, modelOf } from '../../test/helpers.ts';
import { ProblemCatalogue, ProblemError } from '../http/problem.ts';
import { type ApiRecord, ReadPending, type TxReader } from '../store/store.ts';
import { compileEntityLogic } from './entity-logic.ts';

const BOOK_ID = '0190f3c4-7a2b-7c3d-8e4f-00000000000b';
const model = modelOf(LENDING_DESK);
const logic = compileEntityLogic(model, new ProblemCatalogue(model)).get('Loan');
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const loan: ApiRecord = { id: 'l1', state: 'out', book: BOOK_ID, borrower: 'u1', due: day(2) };
const staff = { id: 's1', email: 'sam@example.com', name: 'Sam', roles: ['staff'] };

/** A PostgreSQL-like reader that has made no read yet, or one answering from `books`. */
const pendingReader: TxReader = {
  get: (entity, id) => {
    throw new ReadPending({ kind: 'get', entity, id });
  },
  count: () => 0,
};
const reader = (copies: number): TxReader => ({
  get: (entity, id) => (entity === 'Book' && id === BOOK_ID ? { id, title: 'Dune', copies } : undefined),
  count: () => 0,
});

describe('the compiled checks of a write', () => {
  it("let a reader's ReadPending through the guard, so the store makes the read and checks again", () => {
    const create = logic?.create;
    if (!create) throw new Error('no create check');
    expect(() => create(loan, null, pendingReader, staff)).toThrow(ReadPending);
    expect(() => create(loan, null, reader(2), staff)).not.toThrow();
    try {
      create(loan, null, reader(0), staff);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ProblemError);
      expect((error as ProblemError).code).toBe('TRANSITION_NOT_ALLOWED');
    }
  });
});
