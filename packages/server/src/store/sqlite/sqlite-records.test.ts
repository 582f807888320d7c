import { afterEach, describe, expect, it } from 'vitest';
import { LENDING_DESK_DERIVED, modelOf, REVIEWS_AND_APPOINTMENTS, tempDir } from '../../../test/helpers.ts';
import type { CountQuery } from '../../compile/record-types.ts';
import { compileSqlSchema } from '../../compile/sql-schema.ts';
import { escapeLike } from '../record-logic.ts';
import type { ListQuery } from '../store.ts';
import { StatementCache } from './sqlite-records.ts';
import { SqliteStore } from './sqlite-store.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function openLendingDesk(): Promise<SqliteStore> {
  const temp = tempDir();
  const store = SqliteStore.open(temp.dbPath);
  cleanups.push(() => {
    if (store.db.open) store.db.close();
    temp.remove();
  });
  const model = modelOf(LENDING_DESK_DERIVED);
  await store.applySchema(compileSqlSchema(model), model);
  return store;
}

const query = (over: Partial<ListQuery> = {}): ListQuery => ({
  sort: { column: 'created_at', descending: false },
  filters: [],
  search: null,
  owner: null,
  after: null,
  limit: 50,
  count: false,
  ...over,
});

/** How SQLite runs a list query: the `detail` lines of its plan. */
function plan(store: SqliteStore, entity: string, q: ListQuery): string[] {
  const { sql, params } = store.records(entity).listSql(q);
  return store.db
    .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
    .all(...params)
    .map((r) => r.detail);
}

describe('SQLite list queries', () => {
  it('walk the default sort by its index, forwards and backwards, with no sort step and no OFFSET', async () => {
    const store = await openLendingDesk();
    const after = { value: '2025-01-01T00:00:00.000Z', id: '0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f' };
    for (const descending of [false, true]) {
      for (const position of [null, after]) {
        const q = query({ sort: { column: 'created_at', descending }, after: position });
        const steps = plan(store, 'Book', q);
        expect(steps.join(' | ')).toMatch(/USING INDEX books_created_at_id_idx/);
        expect(steps.join(' | ')).not.toMatch(/TEMP B-TREE|SCAN books$/);
        expect(store.records('Book').listSql(q).sql).not.toMatch(/OFFSET/i);
      }
    }
  });

  it('read the records referring to one record, or in one state, in order from an index', async () => {
    const store = await openLendingDesk();
    const after = { value: '2025-01-01T00:00:00.000Z', id: '0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f' };
    for (const [column, index] of [
      ['book', 'loans_book_created_at_id_idx'],
      ['state', 'loans_state_created_at_id_idx'],
    ] as const) {
      for (const position of [null, after]) {
        const steps = plan(store, 'Loan', query({ filters: [{ column, value: 'x' }], after: position })).join(' | ');
        expect(steps).toContain(`USING INDEX ${index}`);
        expect(steps).not.toContain('TEMP B-TREE');
      }
    }
  });

  it('bind every value, so a value can never change the SQL', async () => {
    const store = await openLendingDesk();
    const hostile = "x' OR 1=1; DROP TABLE books; --";
    const { sql, params } = store.records('Book').listSql(
      query({
        filters: [{ column: 'title', value: hostile }],
        search: { columns: ['title', 'isbn'], text: hostile },
        after: { value: hostile, id: hostile },
      }),
    );
    expect(sql).not.toContain(hostile);
    expect(sql).not.toContain('DROP');
    expect(params).toContain(hostile);
    expect(await store.records('Book').list(query({ filters: [{ column: 'title', value: hostile }] }))).toEqual({
      records: [],
      next: null,
    });
  });

  it('refuse a column the table does not have, and the version column', async () => {
    const store = await openLendingDesk();
    const books = store.records('Book');
    await expect(books.list(query({ sort: { column: 'title; --', descending: false } }))).rejects.toThrow(/no column/);
    await expect(books.list(query({ filters: [{ column: '_version', value: 1 }] }))).rejects.toThrow(/no column/);
    await expect(books.list(query({ search: { columns: ['nope'], text: 'x' } }))).rejects.toThrow(/no column/);
  });
});

describe('SQLite writes', () => {
  it('leave nothing behind when refused: no row and no history entry', async () => {
    const store = await openLendingDesk();
    const at = '2025-01-01T00:00:00.000Z';
    const base = { created_at: at, updated_at: at, created_by: null };
    const books = store.records('Book');
    const first = { id: '0190f3c4-7a2b-7c3d-8e4f-000000000001', ...base, title: 'A', isbn: '9780000000001', copies: 1 };
    expect((await books.create(first, { at, by: null })).ok).toBe(true);
    const clash = { ...first, id: '0190f3c4-7a2b-7c3d-8e4f-000000000002' };
    expect(await books.create(clash, { at, by: null })).toEqual({
      ok: false,
      refusal: { kind: 'not-unique', field: 'isbn' },
    });
    const loan = {
      id: '0190f3c4-7a2b-7c3d-8e4f-000000000003',
      ...base,
      state: 'out',
      book: '0190f3c4-7a2b-7c3d-8e4f-00000000ffff',
      borrower: '0190f3c4-7a2b-7c3d-8e4f-00000000aaaa',
      due: '2030-01-01',
    };
    expect(await store.records('Loan').create(loan, { at, by: null })).toEqual({
      ok: false,
      refusal: { kind: 'unknown-reference', fields: ['book', 'borrower'] },
    });
    const count = (sql: string) => (store.db.prepare(sql).get() as { n: number }).n;
    expect(count('SELECT count(*) AS n FROM books')).toBe(1);
    expect(count('SELECT count(*) AS n FROM loans')).toBe(0);
    expect(count('SELECT count(*) AS n FROM _ninepoint_history')).toBe(1);
  });
});

describe('StatementCache', () => {
  it('prepares each SQL text once and keeps only the most recently used', async () => {
    const store = await openLendingDesk();
    const cache = new StatementCache(store.db, 2);
    const a = cache.get('SELECT 1');
    expect(cache.get('SELECT 1')).toBe(a);
    cache.get('SELECT 2');
    cache.get('SELECT 1');
    cache.get('SELECT 3');
    expect(cache.size).toBe(2);
    // SELECT 2 was the least recently used: gone. SELECT 1 stayed.
    expect(cache.get('SELECT 1')).toBe(a);
  });
});

describe('escapeLike', () => {
  it('makes LIKE wildcards and the escape character match themselves', () => {
    expect(escapeLike('100% of_a\\b')).toBe('100\\% of\\_a\\\\b');
  });
});

describe('SQLite limit counts', () => {
  async function openClinic(): Promise<SqliteStore> {
    const temp = tempDir();
    const store = SqliteStore.open(temp.dbPath);
    cleanups.push(() => {
      if (store.db.open) store.db.close();
      temp.remove();
    });
    const model = modelOf(REVIEWS_AND_APPOINTMENTS);
    await store.applySchema(compileSqlSchema(model), model);
    return store;
  }
  const countPlan = (store: SqliteStore, entity: string, q: CountQuery) => {
    const { sql, params } = store.records(entity).countSql(q);
    return store.db
      .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...params)
      .map((r) => r.detail)
      .join(' | ');
  };

  it("seek a limit's group through the index of its fields, states and date", async () => {
    const store = await openClinic();
    const perDay: CountQuery = {
      entity: 'Appointment',
      equal: [{ column: 'doctor', value: 'd1' }],
      states: ['requested', 'confirmed'],
      within: { column: 'starts_at', from: '2026-03-10T00:00:00.000Z', to: '2026-03-11T00:00:00.000Z' },
      excludeId: 'a1',
    };
    expect(countPlan(store, 'Appointment', perDay)).toMatch(
      /SEARCH appointments USING (COVERING )?INDEX appointments_doctor_state_starts_at_idx \(doctor=\? AND state=\? AND starts_at>\? AND starts_at<\?\)/,
    );
    const pair: CountQuery = {
      entity: 'Review',
      equal: [
        { column: 'reviewer', value: 'u1' },
        { column: 'talk', value: 't1' },
      ],
      states: null,
      within: null,
      excludeId: null,
    };
    expect(countPlan(store, 'Review', pair)).toMatch(
      /USING (COVERING )?INDEX reviews_talk_reviewer_idx \(talk=\? AND reviewer=\?\)/,
    );
  });

  it('count only the records in the group, the range including its start and leaving out its end', async () => {
    const store = await openClinic();
    const context = { at: '2026-03-01T00:00:00.000Z', by: null };
    const system = { created_at: context.at, updated_at: context.at, created_by: null };
    const doctor = await store
      .records('Doctor')
      .create({ ...system, id: 'd0000000-0000-7000-8000-000000000001', name: 'Who' }, context);
    expect(doctor.ok).toBe(true);
    const doctorId = 'd0000000-0000-7000-8000-000000000001';
    const times = [
      '2026-03-10T00:00:00.000Z',
      '2026-03-10T23:59:59.999Z',
      '2026-03-11T00:00:00.000Z',
      '2026-03-09T23:59:59.999Z',
    ];
    for (const [i, startsAt] of times.entries()) {
      const record = {
        ...system,
        id: `a0000000-0000-7000-8000-00000000000${i}`,
        state: 'requested',
        doctor: doctorId,
        patient: 'Ada',
        starts_at: startsAt,
      };
      expect((await store.records('Appointment').create(record, context)).ok).toBe(true);
    }
    const count = (q: Partial<CountQuery>) =>
      store.records('Appointment').count({
        entity: 'Appointment',
        equal: [{ column: 'doctor', value: doctorId }],
        states: ['requested'],
        within: { column: 'starts_at', from: '2026-03-10T00:00:00.000Z', to: '2026-03-11T00:00:00.000Z' },
        excludeId: null,
        ...q,
      });
    expect(count({})).toBe(2);
    expect(count({ excludeId: 'a0000000-0000-7000-8000-000000000000' })).toBe(1);
    expect(count({ states: ['confirmed'] })).toBe(0);
    expect(count({ within: null })).toBe(4);
    expect(count({ equal: [{ column: 'doctor', value: 'someone else' }] })).toBe(0);
    expect(() => count({ equal: [{ column: 'nope', value: 1 }] })).toThrow(/no column nope/);
    expect(() => count({ within: { column: 'patient', from: 'a', to: 'b' } })).toThrow(/not a date/);
  });
});
