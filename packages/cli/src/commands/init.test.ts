import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { piped, runIn, tempDir } from '../test-support.ts';

const PASSWORD = 'correct horse battery staple';

/** A small library's database as a team might have written it by hand, in SQLite's dialect. */
const LIBRARY_SQLITE = `
  CREATE TABLE authors (id INTEGER PRIMARY KEY, name VARCHAR(120) NOT NULL, email TEXT UNIQUE, born DATE);
  CREATE TABLE books (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    title TEXT NOT NULL,
    author_id INTEGER NOT NULL REFERENCES authors(id),
    price NUMERIC(8,2) CHECK (price >= 0),
    copies INTEGER NOT NULL DEFAULT 1 CHECK (copies BETWEEN 0 AND 50),
    status TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'withdrawn')),
    in_print BOOLEAN NOT NULL DEFAULT 1,
    meta JSON,
    added_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    isbn CHAR(13) UNIQUE,
    cover BLOB,
    CHECK (length(title) > 0)
  );
  CREATE TABLE genres (code TEXT PRIMARY KEY, label TEXT NOT NULL, parent_code TEXT REFERENCES genres(code));
  CREATE TABLE book_genres (
    book_id INTEGER NOT NULL REFERENCES books(id),
    genre_code TEXT NOT NULL REFERENCES genres(code),
    PRIMARY KEY (book_id, genre_code)
  );
  INSERT INTO authors VALUES (7, 'Ursula K. Le Guin', 'ursula@example.org', '1929-10-21'), (9, 'Italo Calvino', NULL, NULL);
  INSERT INTO books (id, title, author_id, price, copies, status, in_print, meta, added_at, isbn) VALUES
    (1, 'A Wizard of Earthsea', 7, 9.99, 3, 'published', 1, '{"shelf": "F"}', '2024-01-05 10:00:00', '9780547773742'),
    (2, 'Invisible Cities', 9, 12.5, 1, 'published', 0, NULL, '2024-02-01 09:30:00', NULL),
    (3, 'The Dispossessed', 7, NULL, 0, 'draft', 1, NULL, NULL, NULL);
  -- A child before its parent: the copy must take the parent first.
  INSERT INTO genres VALUES ('fantasy-hi', 'High fantasy', 'fantasy'), ('fantasy', 'Fantasy', NULL), ('lit', 'Literary', NULL);
  INSERT INTO book_genres VALUES (1, 'fantasy-hi'), (2, 'lit'), (3, 'fantasy');
`;

/** The spec's entities' records, as `{entity: [record…]}`, read through the app's store. */
async function records(spec: string, dbPath: string, entities: string[]) {
  const server = await createServer({ model: checkSpec(spec).model, dbPath, logger: false });
  try {
    const all: Record<string, Record<string, unknown>[]> = {};
    for (const entity of entities) {
      const page = await server.store.records(entity).list({
        sort: { column: 'id', descending: false },
        filters: [],
        search: null,
        owner: null,
        after: null,
        limit: 100,
        count: false,
      });
      all[entity] = page.records;
    }
    return all;
  } finally {
    await server.close();
  }
}

describe('ninepoint init --from a SQLite file', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir({ 'notes.txt': 'not a database, just words\n'.repeat(10) });
    const db = new Database(join(dir, 'library.db'));
    db.exec(LIBRARY_SQLITE);
    db.close();
    new Database(join(dir, 'empty.db')).close();
  });

  it('writes a spec with an entity per table that checks clean, noting what it could not translate', async () => {
    const result = await runIn(dir, ['init', '--from', 'library.db', 'library.md']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const spec = readFileSync(join(dir, 'library.md'), 'utf8');
    console.log(spec);
    console.log(result.stdout);
    const check = await runIn(dir, ['check', 'library.md']);
    expect(check).toMatchObject({ code: 0 });
  });
});
