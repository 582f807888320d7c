import { afterEach, describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, TEST_DATABASES } from '../../../test/databases.ts';
import { LENDING_DESK_DERIVED, modelOf } from '../../../test/helpers.ts';
import { compileSqlSchema } from '../../compile/sql-schema.ts';
import type { ListQuery } from '../store.ts';
import { pgName } from './pg-ddl.ts';
import { PgStore, redact } from './pg-store.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const postgres = TEST_DATABASES.find((d) => d.name === 'postgres');

/** A PostgreSQL store in a schema of its own, for a spec. */
async function open(source: string): Promise<PgStore> {
  if (!postgres) throw new Error('PostgreSQL is not in TEST_DATABASES');
  const fresh = await postgres.fresh();
  const store = await PgStore.open(fresh.env.DATABASE_URL ?? '');
  cleanups.push(async () => {
    await store.close();
    await fresh.remove();
  });
  const model = modelOf(source);
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

const context = { at: '2026-01-02T03:04:05.678Z', by: null };

describe('names PostgreSQL would cut', () => {
  it('keeps names up to 63 bytes and shortens longer ones to distinct names', () => {
    expect(pgName('books_created_at_id_idx')).toBe('books_created_at_id_idx');
    const a = pgName(`${'x'.repeat(70)}_a_idx`);
    const b = pgName(`${'x'.repeat(70)}_b_idx`);
    expect(Buffer.byteLength(a)).toBeLessThanOrEqual(63);
    expect(a).not.toBe(b);
  });

  it('shows a database URL without its password', () => {
    expect(redact('postgres://app:s3cret@db.example:5432/prod')).toBe('postgres://app:***@db.example:5432/prod');
    expect(redact('postgres://app@db.example/prod')).toBe('postgres://app@db.example/prod');
  });
});

describe.skipIf(!POSTGRES_AVAILABLE)('the PostgreSQL store', () => {
  it('gives values back exactly as the API wrote them, as SQLite does', async () => {
    const store = await open(TYPES);
    const record = {
      id: '0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f',
      created_at: context.at,
      updated_at: context.at,
      created_by: null,
      name: 'Widget',
      count: 9_007_199_254_740_991,
      price: 12.5,
      done: true,
      due: '2026-02-28',
      at: '2026-03-01T00:00:00.001Z',
    };
    const created = await store.records('Thing').create(record, context);
    expect(created.ok).toBe(true);
    const read = await store.records('Thing').get(record.id);
    expect(read).toEqual({ record, version: 1 });
    const history = await store.records('Thing').history(record.id);
    expect(history).toEqual([
      {
        at: context.at,
        by: null,
        action: 'create',
        transition: null,
        from: null,
        to: null,
        changes: {
          name: 'Widget',
          count: 9_007_199_254_740_991,
          price: 12.5,
          done: true,
          due: '2026-02-28',
          at: record.at,
        },
        before: {},
      },
    ]);
  });

  it('pages a boolean sort with cursors that carry 0 and 1, as SQLite does', async () => {
    const store = await open(TYPES);
    const things = store.records('Thing');
    for (let i = 0; i < 5; i++) {
      const id = `0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0${i}`;
      const at = `2026-01-0${i + 1}T00:00:00.000Z`;
      await things.create(
        { id, created_at: at, updated_at: at, created_by: null, name: `n${i}`, done: i % 2 === 0 ? true : null },
        context,
      );
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

  it('reads a page of a large table from an index, with no sort step, for every sort direction', async () => {
    const store = await open(LENDING_DESK_DERIVED);
    await store.pool.query(
      `INSERT INTO "books" ("id", "created_at", "updated_at", "title", "isbn", "copies", "_version")
       SELECT lpad(to_hex(i), 8, '0') || '-0000-7000-8000-000000000000', now() - i * interval '1 second', now(),
              'Book ' || i, '978' || lpad(i::text, 10, '0'), 1 + i % 7, 1
       FROM generate_series(1, 20000) AS i`,
    );
    await store.pool.query('ANALYZE "books"');
    const after = { value: '2025-01-01T00:00:00.000Z', id: '0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f' };
    for (const descending of [false, true]) {
      for (const position of [null, after]) {
        const { sql, params } = store
          .records('Book')
          .listSql(query({ sort: { column: 'created_at', descending }, after: position }));
        const { rows } = await store.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
        const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        expect(plan).toMatch(/Index Scan( Backward)? using books_created_at_id_idx/);
        expect(plan).not.toMatch(/Sort/);
      }
    }
  });

  it('lets two servers apply the same schema at once', async () => {
    if (!postgres) throw new Error('PostgreSQL is not in TEST_DATABASES');
    const fresh = await postgres.fresh();
    const url = fresh.env.DATABASE_URL ?? '';
    const [a, b] = await Promise.all([PgStore.open(url), PgStore.open(url)]);
    cleanups.push(async () => {
      await a.close();
      await b.close();
      await fresh.remove();
    });
    const model = modelOf(LENDING_DESK_DERIVED);
    const schema = compileSqlSchema(model);
    const [first, second] = await Promise.all([a.applySchema(schema, model), b.applySchema(schema, model)]);
    const created = (applied: typeof first) => applied.plan.steps.filter((s) => s.kind === 'create-table').length;
    expect([created(first), created(second)].sort()).toEqual([0, schema.tables.length]);
    expect([first.recorded, second.recorded].sort()).toEqual([false, true]);
  });
});
