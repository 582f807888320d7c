import type { Model } from '@ninepoint/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { insertRowBefore, LENDING_DESK, modelOf, replaceOnce, tempDir } from '../../../test/helpers.ts';
import { MigrationRefusedError } from '../../compile/migration-report.ts';
import type { ApiRecord } from '../../compile/record-types.ts';
import { compileSqlSchema, SCHEMA_TABLE, type SqlSchema } from '../../compile/sql-schema.ts';
import { AuthStore } from '../../people/auth-store.ts';
import { SqliteStore } from './sqlite-store.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const BASE = modelOf(LENDING_DESK);
const WITH_NOTE = modelOf(insertRowBefore(LENDING_DESK, ['copies', 'integer'], '| note | long text | |'));
const WITHOUT_ISBN = modelOf(replaceOnce(LENDING_DESK, /^\|\s*isbn\s*\|.*\n/m, () => ''));
const TITLE_AS_INTEGER = modelOf(replaceOnce(LENDING_DESK, /^\|\s*title\s*\|.*$/m, () => '| title | integer | |'));
const WITH_SHELF = modelOf(insertRowBefore(LENDING_DESK, ['copies', 'integer'], '| shelf | text | required |'));
const WITHOUT_DUE = modelOf(
  replaceOnce(LENDING_DESK, /^\|\s*due\s*\|.*\n/m, () => '')
    .replace('now > due', '        ')
    .replace(/\| due in the future .*\n/, '')
    .replace(/\| DUE_IN_PAST .*\n/, ''),
);
const WITH_AUTHOR = modelOf(
  replaceOnce(
    LENDING_DESK,
    /^### Loan$/m,
    (loan) => `### Author\n\n| field | type | rules |\n| --- | --- | --- |\n| name | text | required |\n\n${loan}`,
  ),
);
const SHORT_TITLES = modelOf(
  replaceOnce(LENDING_DESK, /^\|\s*title\s*\|.*$/m, () => '| title | text | required, 1..5 characters |'),
);

/** A store on a fresh file, laid out for `model`, holding books with these titles. */
async function storeWith(model: Model, titles: string[] = []): Promise<{ store: SqliteStore; dbPath: string }> {
  const temp = tempDir();
  const store = SqliteStore.open(temp.dbPath);
  cleanups.push(() => {
    if (store.db.open) store.db.close();
    temp.remove();
  });
  await store.applySchema(compileSqlSchema(model), model);
  for (const [i, title] of titles.entries()) await addBook(store, title, `978000000000${i}`);
  return { store, dbPath: temp.dbPath };
}

async function addBook(store: SqliteStore, title: string, isbn: string | null, extra: ApiRecord = {}) {
  const at = '2026-01-01T00:00:00.000Z';
  const id = `00000000-0000-7000-8000-${String(Math.floor(Math.random() * 1e12)).padStart(12, '0')}`;
  const record: ApiRecord = { id, created_at: at, updated_at: at, created_by: null, title, copies: 1, ...extra };
  if (isbn !== null) record.isbn = isbn;
  const outcome = await store.records('Book').create(record, { at, by: null });
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.refusal));
  return id;
}

function apply(store: SqliteStore, model: Model, allowDestructive = false) {
  return store.applySchema(compileSqlSchema(model), model, { allowDestructive });
}

function column(store: SqliteStore, table: string, name: string) {
  return store.db
    .prepare<[string, string], { name: string; type: string; notnull: number }>(
      'SELECT name, type, "notnull" FROM pragma_table_info(?) WHERE name = ?',
    )
    .get(table, name);
}

function indexes(store: SqliteStore, table: string): string[] {
  return store.db
    .prepare<[string], { name: string }>('SELECT name FROM pragma_index_list(?) ORDER BY name')
    .all(table)
    .map((r) => r.name)
    .filter((n) => !n.startsWith('sqlite_'));
}

function titles(store: SqliteStore): string[] {
  return store.db
    .prepare<[], { title: string }>('SELECT title FROM books ORDER BY title')
    .all()
    .map((r) => r.title);
}

function recordedModels(store: SqliteStore): number {
  return Number(store.db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${SCHEMA_TABLE}`).get()?.n);
}

async function refusal(promise: Promise<unknown>): Promise<MigrationRefusedError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof MigrationRefusedError)) throw new Error(`Expected a refusal, got ${String(error)}`);
  return error;
}

describe('SqliteStore migrations', () => {
  it('adds a field to a table with rows: the rows are kept and read it as empty', async () => {
    const { store } = await storeWith(BASE, ['Dune', 'Emma']);
    const applied = await apply(store, WITH_NOTE);
    expect(applied.plan.steps.map((s) => `${s.kind} ${s.safety}`)).toEqual(['add-column safe']);
    expect(column(store, 'books', 'note')).toEqual({ name: 'note', type: 'TEXT', notnull: 0 });
    expect(titles(store)).toEqual(['Dune', 'Emma']);
    const page = await store.records('Book').list({
      sort: { column: 'title', descending: false },
      filters: [],
      search: null,
      owner: null,
      after: null,
      limit: 10,
      count: true,
    });
    expect(page.records.map((r) => [r.title, r.note])).toEqual([
      ['Dune', null],
      ['Emma', null],
    ]);
    await addBook(store, 'Ulysses', '9780000000009', { note: 'signed' });
    expect(recordedModels(store)).toBe(2);
  });

  it('adds an entity: a new table, the others untouched', async () => {
    const { store } = await storeWith(BASE, ['Dune']);
    const applied = await apply(store, WITH_AUTHOR);
    expect(applied.plan.steps.map((s) => `${s.kind} ${s.table}`)).toEqual(['create-table authors']);
    expect(column(store, 'authors', 'name')).toEqual({ name: 'name', type: 'TEXT', notnull: 1 });
    expect(titles(store)).toEqual(['Dune']);
  });

  it('refuses to remove a field holding values, changing nothing; with the flag keeps its column and values', async () => {
    const { store } = await storeWith(BASE, ['Dune', 'Emma']);
    const refused = await refusal(apply(store, WITHOUT_ISBN));
    expect(refused.blocking.map((s) => [s.kind, s.column, s.rows])).toEqual([['keep-column', 'isbn', 2]]);
    expect(refused.message).toContain('! Field Book.isbn was removed; 2 rows hold a value in books.isbn.');
    expect(column(store, 'books', 'isbn')?.notnull).toBe(1);
    expect(indexes(store, 'books')).toContain('books_isbn_key');
    expect(recordedModels(store)).toBe(1);
    // Nothing changed, so the store still serves the old spec.
    await addBook(store, 'Ulysses', '9780000000007');

    const applied = await apply(store, WITHOUT_ISBN, true);
    expect(applied.plan.steps.map((s) => `${s.kind} ${s.safety}`)).toEqual([
      'keep-column needs-flag',
      'drop-index safe',
    ]);
    // Kept, and no longer blocking new rows that cannot give it a value.
    expect(column(store, 'books', 'isbn')).toEqual({ name: 'isbn', type: 'TEXT', notnull: 0 });
    expect(store.db.prepare('SELECT isbn FROM books ORDER BY isbn').pluck().all()).toEqual([
      '9780000000000',
      '9780000000001',
      '9780000000007',
    ]);
    await addBook(store, 'Middlemarch', null);
    expect(titles(store)).toEqual(['Dune', 'Emma', 'Middlemarch', 'Ulysses']);
    // The other indexes survived the rebuild.
    expect(indexes(store, 'books')).toEqual(['books_created_at_id_idx', 'books_created_by_created_at_id_idx']);
    const last = store.db
      .prepare<[], { tables: string }>(`SELECT tables FROM ${SCHEMA_TABLE} ORDER BY id DESC LIMIT 1`)
      .get();
    const books = (JSON.parse(last?.tables ?? '[]') as SqlSchema['tables'])[0];
    expect(books?.columns.at(-1)).toMatchObject({ name: 'isbn', field: 'isbn', notNull: false });

    // The next start with the same spec has nothing to ask.
    expect((await apply(store, WITHOUT_ISBN)).plan.steps).toEqual([]);
    // Putting the field back serves the kept values again; the row added meanwhile lacks one.
    const back = await store.applySchema(compileSqlSchema(BASE), BASE, { dryRun: true });
    expect(back.plan.steps.map((s) => [s.kind, s.safety, s.rows])).toEqual([
      ['restore-column', 'safe', 3],
      ['require-column', 'needs-flag', 1],
      ['make-unique', 'safe', 0],
    ]);
  });

  it('refuses a type change of a column holding values, even with the flag, and changes nothing', async () => {
    const { store } = await storeWith(BASE, ['Dune', 'Emma']);
    for (const allowDestructive of [false, true]) {
      const refused = await refusal(apply(store, TITLE_AS_INTEGER, allowDestructive));
      expect(refused.blocking.map((s) => [s.kind, s.safety, s.rows])).toEqual([['change-type', 'refused', 2]]);
      expect(refused.message).toContain('x Book.title changes type from text to integer; 2 rows hold a value.');
      expect(refused.message).toContain('add a new field of the new type, copy the values into it');
    }
    expect(column(store, 'books', 'title')).toEqual({ name: 'title', type: 'TEXT', notnull: 1 });
    expect(titles(store)).toEqual(['Dune', 'Emma']);
    expect(recordedModels(store)).toBe(1);
  });

  it('recreates a column whose type changed when no row holds a value', async () => {
    const { store } = await storeWith(BASE);
    const applied = await apply(store, TITLE_AS_INTEGER);
    expect(applied.plan.steps.map((s) => `${s.kind} ${s.safety}`)).toEqual(['change-type safe']);
    expect(column(store, 'books', 'title')).toEqual({ name: 'title', type: 'INTEGER', notnull: 0 });
  });

  it('refuses a required field without a default on a table with rows; with the flag adds it empty', async () => {
    const { store } = await storeWith(BASE, ['Dune', 'Emma', 'Ulysses']);
    const refused = await refusal(apply(store, WITH_SHELF));
    expect(refused.blocking.map((s) => [s.kind, s.rows])).toEqual([['add-required-column', 3]]);
    expect(column(store, 'books', 'shelf')).toBeUndefined();

    const applied = await apply(store, WITH_SHELF, true);
    expect(applied.plan.steps.map((s) => [s.kind, s.rows])).toEqual([['add-required-column', 3]]);
    expect(column(store, 'books', 'shelf')).toEqual({ name: 'shelf', type: 'TEXT', notnull: 0 });
    expect(titles(store)).toEqual(['Dune', 'Emma', 'Ulysses']);

    // Allowed once, not asked again; once every row has a value, the column refuses empty ones again.
    expect((await apply(store, WITH_SHELF)).plan.steps).toEqual([]);
    store.db.prepare("UPDATE books SET shelf = 'A1'").run();
    const tightened = await apply(store, WITH_SHELF);
    expect(tightened.plan.steps.map((s) => [s.kind, s.safety, s.summary])).toEqual([
      [
        'require-column',
        'safe',
        'Every row has a value for Book.shelf now, so column books.shelf refuses empty values again.',
      ],
    ]);
    expect(column(store, 'books', 'shelf')?.notnull).toBe(1);
  });

  it('refuses a tightened rule, counting the rows that break it', async () => {
    const { store } = await storeWith(BASE, ['Dune', 'Emma', 'Middlemarch']);
    const refused = await refusal(apply(store, SHORT_TITLES));
    expect(refused.blocking.map((s) => [s.kind, s.rows])).toEqual([['tighten-field', 1]]);
    expect(refused.message).toContain('! Book.title must now be at most 5 characters (was 200), but 1 row breaks it.');
    const applied = await apply(store, SHORT_TITLES, true);
    expect(applied.applied).toBe(true);
    expect(titles(store)).toEqual(['Dune', 'Emma', 'Middlemarch']);
  });

  it('applies additive changes in one transaction: a failure rolls every one of them back', async () => {
    const { store } = await storeWith(BASE, ['Dune']);
    const grown = modelOf(
      insertRowBefore(
        replaceOnce(
          LENDING_DESK,
          /^### Loan$/m,
          (loan) =>
            `### Author\n\n| field | type | rules |\n| --- | --- | --- |\n| name | text | required |\n\n${loan}`,
        ),
        ['copies', 'integer'],
        '| note | long text | |',
      ),
    );
    const schema = compileSqlSchema(grown);
    const books = schema.tables[0];
    if (!books) throw new Error('no books table');
    // The last change fails: an index on a column that does not exist.
    const broken: SqlSchema = {
      tables: [
        {
          ...books,
          indexes: [...books.indexes, { name: 'broken_idx', columns: ['nope'], unique: false, reason: 'sort' }],
        },
        ...schema.tables.slice(1),
      ],
    };
    await expect(store.applySchema(broken, grown)).rejects.toThrow(/nope/);
    expect(column(store, 'books', 'note')).toBeUndefined();
    expect(column(store, 'authors', 'name')).toBeUndefined();
    expect(recordedModels(store)).toBe(1);
    expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);

    const applied = await store.applySchema(schema, grown);
    expect(applied.plan.steps.map((s) => s.kind)).toEqual(['add-column', 'create-table']);
    expect(titles(store)).toEqual(['Dune']);
  });

  it('rebuilds a table to free a removed required field, keeping its rows, indexes and foreign keys', async () => {
    const { store } = await storeWith(BASE, ['Dune']);
    const bookId = String(store.db.prepare('SELECT id FROM books').pluck().get());
    const at = '2026-01-01T00:00:00.000Z';
    // The borrower must be a user: references to users are checked like any other.
    const auth = new AuthStore(store.sql);
    await auth.setUp();
    await auth.users.add({
      id: 'u1',
      email: 'u1@example.test',
      name: 'U1',
      roles: [],
      passwordHash: 'x',
      createdAt: at,
    });
    const loan = { id: '00000000-0000-7000-8000-000000000001', created_at: at, updated_at: at, created_by: null };
    const created = await store
      .records('Loan')
      .create({ ...loan, state: 'out', book: bookId, borrower: 'u1', due: '2030-01-01' }, { at, by: null });
    expect(created.ok).toBe(true);
    const before = indexes(store, 'loans');

    const applied = await apply(store, WITHOUT_DUE, true);
    expect(applied.plan.steps.map((s) => [s.kind, s.column, s.rows])).toEqual([['keep-column', 'due', 1]]);
    expect(column(store, 'loans', 'due')).toEqual({ name: 'due', type: 'TEXT', notnull: 0 });
    expect(store.db.prepare('SELECT due FROM loans').pluck().all()).toEqual(['2030-01-01']);
    expect(indexes(store, 'loans')).toEqual(before);
    expect(store.db.prepare('SELECT "table", "from" FROM pragma_foreign_key_list(\'loans\')').all()).toEqual([
      { table: 'books', from: 'book' },
    ]);
    // The foreign key still holds, and is enforced again once the migration is over.
    expect(() =>
      store.db
        .prepare(
          `INSERT INTO loans (id, created_at, updated_at, state, book, borrower) VALUES ('l2', 'x', 'x', 'out', 'missing', 'u1')`,
        )
        .run(),
    ).toThrow(/FOREIGN KEY/);
    const second = await store.records('Loan').create(
      { ...loan, id: '00000000-0000-7000-8000-000000000002', state: 'out', book: bookId, borrower: 'u1' },
      {
        at,
        by: null,
      },
    );
    expect(second.ok).toBe(true);
  });

  it('plans without changing anything in a dry run, even a plan it would refuse', async () => {
    const { store } = await storeWith(BASE, ['Dune']);
    const planned = await store.applySchema(compileSqlSchema(WITHOUT_ISBN), WITHOUT_ISBN, { dryRun: true });
    expect(planned.applied).toBe(false);
    expect(planned.plan.steps.map((s) => s.kind)).toEqual(['keep-column', 'drop-index']);
    expect(column(store, 'books', 'isbn')?.notnull).toBe(1);
    expect(recordedModels(store)).toBe(1);

    const fresh = SqliteStore.open(':memory:');
    const empty = await fresh.applySchema(compileSqlSchema(BASE), BASE, { dryRun: true });
    expect(empty.plan.steps.map((s) => s.kind)).toEqual(['create-table', 'create-table']);
    expect(fresh.db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'").pluck().get()).toBe(0);
    await fresh.close();
  });
});
