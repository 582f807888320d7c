import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { blankModel, LENDING_DESK, LENDING_DESK_DERIVED, modelOf, tempDir } from '../../../test/helpers.ts';
import { compileSqlSchema, HISTORY_TABLE, SCHEMA_TABLE } from '../../compile/sql-schema.ts';
import { SqliteStore } from './sqlite-store.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function openTemp(path?: string): { store: SqliteStore; dbPath: string } {
  const temp = tempDir();
  const dbPath = path ?? temp.dbPath;
  const store = SqliteStore.open(dbPath);
  cleanups.push(() => {
    if (store.db.open) store.db.close();
    temp.remove();
  });
  return { store, dbPath };
}

function objects(store: SqliteStore, type: 'table' | 'index'): string[] {
  return store.db
    .prepare<[string], { name: string }>(
      "SELECT name FROM sqlite_master WHERE type = ? AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .all(type)
    .map((r) => r.name);
}

describe('SqliteStore', () => {
  it('opens a WAL database, creating its folder', async () => {
    const { store, dbPath } = openTemp();
    expect(existsSync(dbPath)).toBe(true);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
    await store.ping();
  });

  it('creates only its own bookkeeping tables for the blank spec', async () => {
    const { store } = openTemp();
    const model = blankModel();
    const applied = await store.applySchema(compileSqlSchema(model), model);
    expect(applied).toEqual({ plan: { steps: [], tables: [] }, applied: true, recorded: true });
    expect(objects(store, 'table')).toEqual([HISTORY_TABLE, SCHEMA_TABLE]);
  });

  it('creates the tables and indexes of a spec, with typed columns', async () => {
    const { store } = openTemp();
    const model = modelOf(LENDING_DESK);
    const applied = await store.applySchema(compileSqlSchema(model), model);
    expect(applied.plan.steps.map((s) => `${s.kind} ${s.table}`)).toEqual(['create-table books', 'create-table loans']);
    expect(objects(store, 'table')).toEqual([HISTORY_TABLE, SCHEMA_TABLE, 'books', 'loans']);
    expect(objects(store, 'index')).toEqual([
      `${HISTORY_TABLE}_record_idx`,
      'books_created_at_id_idx',
      'books_created_by_created_at_id_idx',
      'books_isbn_key',
      'loans_book_created_at_id_idx',
      'loans_borrower_created_at_id_idx',
      'loans_borrower_state_idx',
      'loans_created_at_id_idx',
      'loans_created_by_created_at_id_idx',
      'loans_state_created_at_id_idx',
    ]);
    const columns = store.db
      .prepare<[], { name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(
        'SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(\'books\')',
      )
      .all();
    expect(columns).toEqual([
      { name: 'id', type: 'TEXT', notnull: 1, dflt_value: null, pk: 1 },
      { name: 'created_at', type: 'TEXT', notnull: 1, dflt_value: null, pk: 0 },
      { name: 'updated_at', type: 'TEXT', notnull: 1, dflt_value: null, pk: 0 },
      { name: 'created_by', type: 'TEXT', notnull: 0, dflt_value: null, pk: 0 },
      { name: '_version', type: 'INTEGER', notnull: 1, dflt_value: '1', pk: 0 },
      { name: 'title', type: 'TEXT', notnull: 1, dflt_value: null, pk: 0 },
      { name: 'isbn', type: 'TEXT', notnull: 1, dflt_value: null, pk: 0 },
      { name: 'copies', type: 'INTEGER', notnull: 1, dflt_value: '1', pk: 0 },
    ]);
    const uniqueIsbn = store.db
      .prepare<[], { unique: number }>(
        "SELECT \"unique\" FROM pragma_index_list('books') WHERE name = 'books_isbn_key'",
      )
      .get();
    expect(uniqueIsbn?.unique).toBe(1);
    const foreignKeys = store.db
      .prepare<[], { table: string; from: string; to: string }>(
        'SELECT "table", "from", "to" FROM pragma_foreign_key_list(\'loans\')',
      )
      .all();
    expect(foreignKeys).toEqual([{ table: 'books', from: 'book', to: 'id' }]);

    // The schema is enforced by the database too: unique isbn, known book, defaults.
    const insertBook = store.db.prepare(
      "INSERT INTO books (id, created_at, updated_at, title, isbn) VALUES (?, '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', 'Dune', ?)",
    );
    insertBook.run('b1', '9780441013593');
    expect(store.db.prepare("SELECT copies FROM books WHERE id = 'b1'").get()).toEqual({ copies: 1 });
    expect(() => insertBook.run('b2', '9780441013593')).toThrow(/UNIQUE/);
    expect(() =>
      store.db
        .prepare(
          "INSERT INTO loans (id, created_at, updated_at, state, book, borrower, due) VALUES ('l1', 'x', 'x', 'out', 'missing', 'u1', '2030-01-01')",
        )
        .run(),
    ).toThrow(/FOREIGN KEY/);
  });

  it('is idempotent and records each distinct model once', async () => {
    const { store, dbPath } = openTemp();
    const model = modelOf(LENDING_DESK);
    const schema = compileSqlSchema(model);
    await store.applySchema(schema, model);
    const again = await store.applySchema(schema, model);
    expect(again).toEqual({ plan: { steps: [], tables: schema.tables }, applied: true, recorded: false });
    await store.close();

    // A new start on the same file with another model records it, and keeps the old tables.
    const reopened = SqliteStore.open(dbPath);
    const other = modelOf(LENDING_DESK_DERIVED);
    expect((await reopened.applySchema(compileSqlSchema(other), other)).recorded).toBe(true);
    const rows = reopened.db
      .prepare<[], { product: string; model: string; tables: string }>(
        `SELECT product, model, tables FROM ${SCHEMA_TABLE} ORDER BY id`,
      )
      .all();
    expect(rows.map((r) => r.product)).toEqual(['Lending desk', 'Lending desk']);
    expect(JSON.parse(rows[0]?.model ?? '{}')).toEqual(model);
    expect(JSON.parse(rows[1]?.tables ?? '[]')).toEqual(compileSqlSchema(other).tables);
    await reopened.close();
  });

  it('applies everything or nothing', async () => {
    const { store } = openTemp();
    const model = modelOf(LENDING_DESK);
    const schema = compileSqlSchema(model);
    const broken = {
      tables: [
        ...schema.tables,
        {
          ...schema.tables[0],
          name: 'broken',
          indexes: [{ name: 'x', columns: ['nope'], unique: false, reason: 'sort' as const }],
        },
      ],
    } as typeof schema;
    await expect(store.applySchema(broken, model)).rejects.toThrow(/nope/);
    expect(objects(store, 'table')).toEqual([]);
  });

  it('can make every commit durable', () => {
    const temp = tempDir();
    const store = SqliteStore.open(temp.dbPath, { synchronous: 'full' });
    expect(store.db.pragma('synchronous', { simple: true })).toBe(2);
    store.db.close();
    temp.remove();
  });

  it('hears another process’s commit through the runner’s data_version, both as changedElsewhere and in the change stamp', async () => {
    const { store, dbPath } = openTemp();
    store.db.exec('CREATE TABLE t (x INTEGER)');
    const stamp = store.sql.changeStamp();
    // Its own commits are not another's: changedElsewhere stays quiet, the stamp moves (countWrites).
    store.db.exec('INSERT INTO t VALUES (1)');
    expect(store.changedElsewhere()).toBe(false);
    const own = store.sql.changeStamp();
    expect(own).not.toBe(stamp);
    const other = SqliteStore.open(dbPath);
    try {
      other.db.exec('INSERT INTO t VALUES (2)');
    } finally {
      other.db.close();
    }
    expect(store.sql.changeStamp()).not.toBe(own);
    expect(store.changedElsewhere()).toBe(true);
    // Told once per commit.
    expect(store.changedElsewhere()).toBe(false);
  });
});
