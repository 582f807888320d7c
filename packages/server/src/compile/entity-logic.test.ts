import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LENDING_DESK, modelOf } from '../../test/helpers.ts';
import { compileEntityLogic } from './entity-logic.ts';
import { ProblemCatalogue, ProblemError } from './problems.ts';
import { type ApiRecord, type CountQuery, ReadPending, type TxReader } from './record-types.ts';

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

describe('a limit per fields and period', () => {
  const source = readFileSync(new URL('../../test/fixtures/reviews-and-appointments.md', import.meta.url), 'utf8');
  const clinic = modelOf(source);
  const appointments = compileEntityLogic(clinic, new ProblemCatalogue(clinic)).get('Appointment');
  const counting = (answer: number) => {
    const queries: CountQuery[] = [];
    const reader: TxReader = {
      get: () => undefined,
      count: (query) => {
        queries.push(query);
        return answer;
      },
    };
    return { queries, reader };
  };
  const appointment: ApiRecord = {
    id: 'a1',
    state: 'requested',
    doctor: 'd1',
    patient: 'Ada',
    starts_at: '2026-03-10T09:00:00.000Z',
  };

  it('counts the records of the same doctor in a counted state within the UTC day', () => {
    const { queries, reader } = counting(2);
    appointments?.create?.(appointment, null, reader, staff);
    expect(queries).toEqual([
      {
        entity: 'Appointment',
        equal: [{ column: 'doctor', value: 'd1' }],
        states: ['requested', 'confirmed'],
        within: { column: 'starts_at', from: '2026-03-10T00:00:00.000Z', to: '2026-03-11T00:00:00.000Z' },
        excludeId: 'a1',
      },
    ]);
    expect(() => appointments?.create?.(appointment, null, counting(3).reader, staff)).toThrow(ProblemError);
  });

  it('counts again only when an update moves the record into another group', () => {
    const later = { ...appointment, starts_at: '2026-03-10T17:00:00.000Z', patient: 'Bea' };
    const sameDay = counting(3);
    appointments?.update?.(later, appointment, sameDay.reader, staff);
    expect(sameDay.queries).toEqual([]);
    const nextDay = counting(0);
    appointments?.update?.(
      { ...appointment, starts_at: '2026-03-11T08:00:00.000Z' },
      appointment,
      nextDay.reader,
      staff,
    );
    expect(nextDay.queries[0]?.within?.from).toBe('2026-03-11T00:00:00.000Z');
    const otherDoctor = counting(0);
    appointments?.update?.({ ...appointment, doctor: 'd2' }, appointment, otherDoctor.reader, staff);
    expect(otherDoctor.queries[0]?.equal).toEqual([{ column: 'doctor', value: 'd2' }]);
  });
});
