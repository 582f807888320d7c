import { afterEach, describe, expect, it } from 'vitest';
import { LENDING_DESK_DERIVED, modelOf, REVIEWS_AND_APPOINTMENTS } from '../../../test/helpers.ts';
import { listQuery as query, specStoreOpener } from '../../../test/stores.ts';
import type { CountQuery } from '../../compile/record-types.ts';
import { compileSqlSchema } from '../../compile/sql-schema.ts';
import { recordsOf } from '../records-core.ts';
import type { ListQuery } from '../store.ts';
import { SqliteDialect, type TransactionRunner } from './sqlite-dialect.ts';
import { SqliteStore } from './sqlite-store.ts';
import { StatementCache } from './statement-cache.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const open = specStoreOpener('sqlite', (store) => store instanceof SqliteStore, cleanups);

/** How SQLite runs a statement: the `detail` lines of its plan. */
function explain(store: SqliteStore, { sql, params }: { sql: string; params: unknown[] }): string {
  return store.db
    .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
    .all(...params)
    .map((r) => r.detail)
    .join(' | ');
}

const plan = (store: SqliteStore, entity: string, q: ListQuery) => explain(store, store.records(entity).listSql(q));

describe('SQLite list queries', () => {
  it('walk the default sort by its index, forwards and backwards, with no sort step and no OFFSET', async () => {
    const store = await open(LENDING_DESK_DERIVED);
    const after = { value: '2025-01-01T00:00:00.000Z', id: '0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f' };
    for (const descending of [false, true]) {
      for (const position of [null, after]) {
        const q = query({ sort: { column: 'created_at', descending }, after: position });
        const steps = plan(store, 'Book', q);
        expect(steps).toMatch(/USING INDEX books_created_at_id_idx/);
        expect(steps).not.toMatch(/TEMP B-TREE|SCAN books$/);
        expect(store.records('Book').listSql(q).sql).not.toMatch(/OFFSET/i);
      }
    }
  });

  it('read the records referring to one record, or in one state, in order from an index', async () => {
    const store = await open(LENDING_DESK_DERIVED);
    const after = { value: '2025-01-01T00:00:00.000Z', id: '0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f' };
    for (const [column, index] of [
      ['book', 'loans_book_created_at_id_idx'],
      ['state', 'loans_state_created_at_id_idx'],
    ] as const) {
      for (const position of [null, after]) {
        const steps = plan(store, 'Loan', query({ filters: [{ column, value: 'x' }], after: position }));
        expect(steps).toContain(`USING INDEX ${index}`);
        expect(steps).not.toContain('TEMP B-TREE');
      }
    }
  });
});

describe('SQLite limit counts', () => {
  it("seek a limit's group through the index of its fields, states and date", async () => {
    const store = await open(REVIEWS_AND_APPOINTMENTS);
    const perDay: CountQuery = {
      entity: 'Appointment',
      equal: [{ column: 'doctor', value: 'd1' }],
      states: ['requested', 'confirmed'],
      within: { column: 'starts_at', from: '2026-03-10T00:00:00.000Z', to: '2026-03-11T00:00:00.000Z' },
      excludeId: 'a1',
    };
    expect(explain(store, store.records('Appointment').countSql(perDay))).toMatch(
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
    expect(explain(store, store.records('Review').countSql(pair))).toMatch(
      /USING (COVERING )?INDEX reviews_talk_reviewer_idx \(talk=\? AND reviewer=\?\)/,
    );
  });
});

describe('SQLite writes', () => {
  it('go through the one transaction runner the dialect is given, which may answer later', async () => {
    const store = await open(LENDING_DESK_DERIVED);
    const runs: string[] = [];
    const immediate = store.db.transaction((work: () => unknown) => work());
    const later: TransactionRunner = <T>(work: () => T) => {
      runs.push('transaction');
      const result = immediate.immediate(work) as T;
      return new Promise<T>((resolve) => setTimeout(() => resolve(result), 1));
    };
    const model = modelOf(LENDING_DESK_DERIVED);
    const books = recordsOf(new SqliteDialect(store.db, later), compileSqlSchema(model).tables).get('Book');
    const at = '2026-01-01T00:00:00.000Z';
    const book = { id: '0190f3c4-7a2b-7c3d-8e4f-000000000001', created_at: at, updated_at: at, created_by: null };
    const created = await books?.create({ ...book, title: 'A', isbn: '9780000000001', copies: 1 }, { at, by: null });
    expect(created?.ok).toBe(true);
    expect(runs).toEqual(['transaction']);
    expect((await store.records('Book').get(book.id))?.record.title).toBe('A');
  });
});

describe('StatementCache', () => {
  it('prepares each SQL text once and keeps only the most recently used', async () => {
    const store = await open(LENDING_DESK_DERIVED);
    const cache = new StatementCache((sql) => store.db.prepare(sql), 2);
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
