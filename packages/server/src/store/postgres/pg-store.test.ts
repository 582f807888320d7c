import { blankSpec } from '@ninepoint/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, TEST_DATABASES } from '../../../test/databases.ts';
import { LENDING_DESK_DERIVED, modelOf } from '../../../test/helpers.ts';
import { listQuery as query, specStoreOpener } from '../../../test/stores.ts';
import { compileSqlSchema } from '../../compile/sql-schema.ts';
import { pgName } from './pg-ddl.ts';
import { PgStore, redact } from './pg-store.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const postgres = TEST_DATABASES.find((d) => d.name === 'postgres');

/** A PostgreSQL store in a schema of its own, for a spec. */
const open = specStoreOpener('postgres', (store) => store instanceof PgStore, cleanups);

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

/** Loan refers to Member, written after it; Member and Team refer to each other. */
const FORWARD_REFERENCES = blankSpec('Forward').replace(
  '## 3. Entities and their fields\nNot shown.\n',
  [
    '## 3. Entities and their fields',
    '### Loan\n| field | type | rules |\n|---|---|---|\n| member | Member | required |',
    '### Member\n| field | type | rules |\n|---|---|---|\n| name | text | required |\n| team | Team | |',
    '### Team\n| field | type | rules |\n|---|---|---|\n| captain | Member | |\n',
  ].join('\n\n'),
);

describe.runIf(postgres)('PostgreSQL tables made in one plan', () => {
  it('creates a table that refers to one written after it, and two that refer to each other, with every foreign key', async () => {
    if (!postgres) return;
    const fresh = await postgres.fresh();
    const store = await PgStore.open(fresh.env.DATABASE_URL ?? '');
    cleanups.push(async () => {
      await store.close();
      await fresh.remove();
    });
    const model = modelOf(FORWARD_REFERENCES);
    const applied = await store.applySchema(compileSqlSchema(model), model);
    expect(applied.applied).toBe(true);
    const keys = await store.sql.all<{ name: string; target: string }>(
      `SELECT t.relname AS "name", r.relname AS "target" FROM pg_constraint c
       JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = current_schema()
       WHERE c.contype = 'f' ORDER BY 1, 2`,
    );
    expect(keys.map((k) => `${k.name} → ${k.target}`)).toEqual([
      'loans → members',
      'members → teams',
      'teams → members',
    ]);
  });
});
