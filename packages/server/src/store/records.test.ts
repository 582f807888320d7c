import { afterEach, describe, expect, it } from 'vitest';
import { TEST_DATABASES } from '../../test/databases.ts';
import { LENDING_DESK_DERIVED, modelOf, REVIEWS_AND_APPOINTMENTS } from '../../test/helpers.ts';
import { openSpecStore, listQuery as query } from '../../test/stores.ts';
import type { ApiRecord, CountQuery } from '../compile/record-types.ts';
import { compileSqlSchema } from '../compile/sql-schema.ts';
import { escapeLike } from './record-logic.ts';
import type { Records } from './records-core.ts';
import type { ListQuery, Store, WriteCheck } from './store.ts';

/** The records core's contract, on every database of `TEST_DATABASES`. */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const TYPES = `# Types

## 1. What it does and for whom
Keeps one kind of record with every type of field.

## 3. Entities and fields
### Thing
| field | type | required |
|---|---|---|
| name | text | yes |
| count | integer | no |
| price | decimal(2) | no |
| done | boolean | no |
| due | date | no |
| at | datetime | no |
`;

const at = '2026-01-02T03:04:05.678Z';
const context = { at, by: null };
const system = { created_at: at, updated_at: at, created_by: null };
const BOOK = { id: '0190f3c4-7a2b-7c3d-8e4f-000000000001', ...system, title: 'A', isbn: '9780000000001', copies: 1 };

async function countRows(store: Store, table: string): Promise<number> {
  const [row] = await store.sql.all<{ n: number }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(row?.n);
}

describe.each(TEST_DATABASES)('records on $name', (db) => {
  async function open(source: string): Promise<Store> {
    const { store, close } = await openSpecStore(db, source);
    cleanups.push(close);
    return store;
  }

  it('give values back exactly as the API wrote them, with their history', async () => {
    const store = await open(TYPES);
    const record = {
      id: '0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f',
      ...system,
      name: 'Widget',
      count: 9_007_199_254_740_991,
      price: 12.5,
      done: true,
      due: '2026-02-28',
      at: '2026-03-01T00:00:00.001Z',
    };
    expect((await store.records('Thing').create(record, context)).ok).toBe(true);
    expect(await store.records('Thing').get(record.id)).toEqual({ record, version: 1 });
    const { id: _, created_at: _c, updated_at: _u, created_by: _b, ...changes } = record;
    expect(await store.records('Thing').history(record.id)).toEqual([
      { at, by: null, action: 'create', transition: null, from: null, to: null, changes, before: {} },
    ]);
  });

  it('keep a field whose name is longer than PostgreSQL keeps a column name, in every read', async () => {
    const long = `note_${'x'.repeat(70)}`;
    const flag = `flag_${'y'.repeat(70)}`;
    const source = `# Long names

## 1. What it does and for whom
Keeps records with long field names.

## 3. Entities and fields
### Thing
| field | type | required |
|---|---|---|
| name | text | yes |
| ${long} | text | no |
| ${flag} | boolean | no |
`;
    const store = await open(source);
    const things = store.records('Thing');
    const record = { id: '0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f', ...system, name: 'a', [long]: 'kept', [flag]: true };
    expect((await things.create(record, context)).ok).toBe(true);
    expect(await things.get(record.id)).toEqual({ record, version: 1 });
    const page = await things.list(query({ sort: { column: long, descending: false } }));
    expect(page.records).toEqual([record]);
    const byFlag = await things.summary({ filters: [], owner: null, by: flag, sums: [] });
    expect(byFlag.groups).toEqual([{ value: true, count: 1, sums: {} }]);
    const later = { at: '2026-01-03T00:00:00.000Z', by: null, ifVersions: [1] };
    const updated = await things.update(record.id, { name: 'b' }, later);
    const after = { ...record, name: 'b', updated_at: later.at };
    expect(updated).toMatchObject({ ok: true, stored: { record: after, version: 2 }, changed: true });
    expect((await things.history(record.id)).at(-1)).toMatchObject({ changes: { name: 'b' }, before: { name: 'a' } });
    // Started again on the same database, as every server start applies its schema: nothing to migrate.
    const model = modelOf(source);
    await store.applySchema(compileSqlSchema(model), model);
    expect((await things.get(record.id))?.record).toEqual(after);
  });

  it('sum a decimal field to its places, alone, per group and over the groups, as it was written', async () => {
    const store = await open(TYPES);
    const things = store.records('Thing');
    // Added in floating point, 0.1 + 0.2 is 0.30000000000000004 and 0.3 + 0.6 is 0.8999999999999999.
    const rows = [
      { price: 0.1, done: true, count: 1 },
      { price: 0.2, done: true, count: 2 },
      { price: 0.3, done: false, count: 3 },
      { price: 0.3, done: false, count: 4 },
    ];
    for (const [i, row] of rows.entries()) {
      const id = `0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0${i}`;
      expect((await things.create({ id, ...system, name: `n${i}`, ...row }, context)).ok).toBe(true);
    }
    const all = await things.summary({ filters: [], owner: null, by: null, sums: ['price', 'count'] });
    expect(all).toEqual({ count: 4, sums: { price: 0.9, count: 10 }, groups: null });
    const byDone = await things.summary({ filters: [], owner: null, by: 'done', sums: ['price', 'count'] });
    expect(byDone.sums).toEqual({ price: 0.9, count: 10 });
    expect(byDone.groups).toEqual([
      { value: false, count: 2, sums: { price: 0.6, count: 7 } },
      { value: true, count: 2, sums: { price: 0.3, count: 3 } },
    ]);
  });

  it('page a boolean sort with cursors that carry 0 and 1', async () => {
    const store = await open(TYPES);
    const things = store.records('Thing');
    for (let i = 0; i < 5; i++) {
      const id = `0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0${i}`;
      const when = `2026-01-0${i + 1}T00:00:00.000Z`;
      const done = i % 2 === 0 ? true : null;
      await things.create({ id, created_at: when, updated_at: when, created_by: null, name: `n${i}`, done }, context);
    }
    const seen: string[] = [];
    let after: ListQuery['after'] = null;
    for (;;) {
      const page = await things.list(query({ sort: { column: 'done', descending: true }, after, limit: 2 }));
      seen.push(...page.records.map((r) => String(r.name)));
      if (page.next) expect(typeof page.next.value === 'number' || page.next.value === null).toBe(true);
      if (!page.next) break;
      after = page.next;
    }
    // Descending: true first (by id descending), then the nulls last.
    expect(seen).toEqual(['n4', 'n2', 'n0', 'n3', 'n1']);
  });

  it('page a list without conditions as one with a condition every record meets, in every sort', async () => {
    const store = await open(TYPES);
    const things = store.records('Thing');
    for (let i = 0; i < 7; i++) {
      const id = `0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0${i}`;
      const when = `2026-01-0${i + 1}T00:00:00.000Z`;
      const done = i % 3 === 0 ? null : i % 2 === 0;
      const count = i % 3 === 1 ? null : 7 - i;
      await things.create(
        { id, created_at: when, updated_at: when, created_by: null, name: `n${i}`, done, count },
        context,
      );
    }
    // A list without conditions runs a page statement built once per sort; any filter takes the other path.
    const pages = async (sort: ListQuery['sort'], filters: ListQuery['filters']) => {
      const seen: ApiRecord[] = [];
      let after: ListQuery['after'] = null;
      for (;;) {
        const page = await things.list(query({ sort, filters, after, limit: 2, count: true }));
        expect(page.total).toBe(7);
        seen.push(...page.records);
        if (!page.next) return seen;
        after = page.next;
      }
    };
    for (const column of ['created_at', 'id', 'done', 'count', 'name']) {
      for (const descending of [false, true]) {
        const plain = await pages({ column, descending }, []);
        expect(plain).toHaveLength(7);
        expect(plain).toEqual(await pages({ column, descending }, [{ op: 'contains', column: 'name', text: 'n' }]));
        // Twice: the second time from the statement kept the first.
        expect(await pages({ column, descending }, [])).toEqual(plain);
      }
    }
    expect((await things.list(query({ sort: { column: 'done', descending: false } }))).records[0]?.done).toBeNull();
  });

  it('bind every value of a list query, so a value can never change the SQL', async () => {
    const store = await open(LENDING_DESK_DERIVED);
    const books = store.records('Book') as Records<unknown>;
    const hostile = "x' OR 1=1; DROP TABLE books; --";
    const { sql, params } = books.listSql(
      query({
        filters: [{ column: 'title', value: hostile }],
        search: { columns: ['title', 'isbn'], text: hostile },
        after: { value: hostile, id: hostile },
      }),
    );
    expect(sql).not.toContain(hostile);
    expect(sql).not.toContain('DROP');
    expect(params).toContain(hostile);
    expect(await books.list(query({ filters: [{ column: 'title', value: hostile }] }))).toEqual({
      records: [],
      next: null,
    });
  });

  it('refuse a column the table does not have, and the version column', async () => {
    const store = await open(LENDING_DESK_DERIVED);
    const books = store.records('Book');
    await expect(books.list(query({ sort: { column: 'title; --', descending: false } }))).rejects.toThrow(/no column/);
    await expect(books.list(query({ filters: [{ column: '_version', value: 1 }] }))).rejects.toThrow(/no column/);
    await expect(books.list(query({ search: { columns: ['nope'], text: 'x' } }))).rejects.toThrow(/no column/);
  });

  it('leave nothing behind when a write is refused: no row and no history entry', async () => {
    const store = await open(LENDING_DESK_DERIVED);
    const books = store.records('Book');
    const first = BOOK;
    expect((await books.create(first, context)).ok).toBe(true);
    const clash = { ...first, id: '0190f3c4-7a2b-7c3d-8e4f-000000000002' };
    expect(await books.create(clash, context)).toEqual({ ok: false, refusal: { kind: 'not-unique', field: 'isbn' } });
    const loan = {
      id: '0190f3c4-7a2b-7c3d-8e4f-000000000003',
      ...system,
      state: 'out',
      book: '0190f3c4-7a2b-7c3d-8e4f-00000000ffff',
      borrower: '0190f3c4-7a2b-7c3d-8e4f-00000000aaaa',
      due: '2030-01-01',
    };
    expect(await store.records('Loan').create(loan, context)).toEqual({
      ok: false,
      refusal: { kind: 'unknown-reference', fields: ['book', 'borrower'] },
    });
    const refused = () => {
      throw new Error('refused by the check');
    };
    const second = { ...first, id: '0190f3c4-7a2b-7c3d-8e4f-000000000004', isbn: '9780000000004' };
    await expect(books.create(second, context, refused)).rejects.toThrow('refused by the check');
    expect(await countRows(store, 'books')).toBe(1);
    expect(await countRows(store, 'loans')).toBe(0);
    expect(await countRows(store, '_ninepoint_history')).toBe(1);
  });

  it('run checks that read other records and counts inside the write, each read made once per answer', async () => {
    const store = await open(REVIEWS_AND_APPOINTMENTS);
    const doctorId = 'd0000000-0000-7000-8000-000000000001';
    expect((await store.records('Doctor').create({ ...system, id: doctorId, name: 'Who' }, context)).ok).toBe(true);
    const perDoctor = (excludeId: string): CountQuery => ({
      entity: 'Appointment',
      equal: [{ column: 'doctor', value: doctorId }],
      states: null,
      within: null,
      excludeId,
    });
    const seen: string[] = [];
    const atMostOne: WriteCheck = (next, _current, reader) => {
      const doctor = reader.get('Doctor', String(next.doctor));
      if (reader.count(perDoctor(String(next.id))) >= 1) throw new Error(`${doctor?.name} is fully booked`);
      seen.push(String(doctor?.name));
    };
    const appointment = (n: number) => ({
      ...system,
      id: `a0000000-0000-7000-8000-00000000000${n}`,
      state: 'requested',
      doctor: doctorId,
      patient: 'Ada',
      starts_at: '2026-03-10T09:00:00.000Z',
    });
    expect((await store.records('Appointment').create(appointment(1), context, atMostOne)).ok).toBe(true);
    await expect(store.records('Appointment').create(appointment(2), context, atMostOne)).rejects.toThrow(
      'Who is fully booked',
    );
    expect(seen).toEqual(['Who']);
    expect(await countRows(store, 'appointments')).toBe(1);
  });

  it('update only what changed, refuse a stale version, and delete a record once', async () => {
    const store = await open(LENDING_DESK_DERIVED);
    const books = store.records('Book');
    const book = BOOK;
    await books.create(book, context);
    const later = { at: '2026-01-03T00:00:00.000Z', by: null, ifVersions: null };
    const same = await books.update(book.id, { title: 'A' }, later);
    expect(same).toEqual({ ok: true, stored: { record: book, version: 1 }, changed: false });
    const changed = await books.update(book.id, { title: 'B' }, { ...later, ifVersions: [1] });
    expect(changed).toMatchObject({ ok: true, stored: { record: { title: 'B', updated_at: later.at }, version: 2 } });
    expect(await books.update(book.id, { title: 'C' }, { ...later, ifVersions: [1] })).toEqual({
      ok: false,
      refusal: { kind: 'stale' },
    });
    const history = await books.history(book.id);
    expect(history.at(-1)).toMatchObject({ action: 'update', changes: { title: 'B' }, before: { title: 'A' } });
    expect(await books.delete(book.id, { ...later, ifVersions: [2] })).toEqual({ ok: true });
    expect(await books.get(book.id)).toBeUndefined();
    expect(await books.delete(book.id, later)).toEqual({ ok: false, refusal: { kind: 'not-found' } });
  });

  it('count only the records in a group, the range including its start and leaving out its end', async () => {
    const store = await open(REVIEWS_AND_APPOINTMENTS);
    const doctorId = 'd0000000-0000-7000-8000-000000000001';
    expect((await store.records('Doctor').create({ ...system, id: doctorId, name: 'Who' }, context)).ok).toBe(true);
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
    const records = store.records('Appointment') as Records<unknown>;
    const count = (q: Partial<CountQuery>) =>
      records.count({
        entity: 'Appointment',
        equal: [{ column: 'doctor', value: doctorId }],
        states: ['requested'],
        within: { column: 'starts_at', from: '2026-03-10T00:00:00.000Z', to: '2026-03-11T00:00:00.000Z' },
        excludeId: null,
        ...q,
      });
    expect(await count({})).toBe(2);
    expect(await count({ excludeId: 'a0000000-0000-7000-8000-000000000000' })).toBe(1);
    expect(await count({ states: ['confirmed'] })).toBe(0);
    expect(await count({ within: null })).toBe(4);
    expect(await count({ equal: [{ column: 'doctor', value: 'someone else' }] })).toBe(0);
    await expect(count({ equal: [{ column: 'nope', value: 1 }] })).rejects.toThrow(/no column nope/);
    await expect(count({ within: { column: 'patient', from: 'a', to: 'b' } })).rejects.toThrow(/not a date/);
  });
});

describe('escapeLike', () => {
  it('makes LIKE wildcards and the escape character match themselves', () => {
    expect(escapeLike('100% of_a\\b')).toBe('100\\% of\\_a\\\\b');
  });
});
