import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';
import Database from 'better-sqlite3';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_AVAILABLE, TEST_POSTGRES_URL, withSearchPath } from '../../../server/test/databases.ts';
import { piped, runIn, tempDir } from '../test-support.ts';

const PASSWORD = 'correct horse battery staple';

/** A small library's database as a team might have written it by hand, in SQLite's dialect. */
const LIBRARY_SQLITE = `
  CREATE TABLE authors (
    id INTEGER PRIMARY KEY, name VARCHAR(120) NOT NULL, email TEXT UNIQUE, born DATE,
    bio TEXT, nickname TEXT NOT NULL DEFAULT ''
  );
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
  CREATE TABLE genres (code TEXT PRIMARY KEY, label TEXT NOT NULL, parent_code TEXT REFERENCES genres);
  CREATE TABLE book_genres (
    book_id INTEGER NOT NULL REFERENCES books(id),
    genre_code TEXT NOT NULL REFERENCES genres(code),
    PRIMARY KEY (book_id, genre_code)
  );
  INSERT INTO authors VALUES
    (7, 'Ursula K. Le Guin', 'ursula@example.org', '1929-10-21', 'She wrote. ' || printf('%.1500c', 'x'), 'UKL'),
    (9, 'Italo Calvino', NULL, NULL, NULL, '');
  INSERT INTO books (id, title, author_id, price, copies, status, in_print, meta, added_at, isbn) VALUES
    (1, 'A Wizard of Earthsea', 7, 9.99, 3, 'published', 1, '{"shelf": "F"}', '2024-01-05 10:00:00', '9780547773742'),
    (2, 'Invisible Cities', 9, 12.5, 1, 'published', 0, NULL, '2024-02-01 09:30:00', NULL),
    (3, 'The Dispossessed', 7, NULL, 0, 'draft', 1, NULL, NULL, NULL);
  -- A child before its parent: the copy must take the parent first.
  INSERT INTO genres VALUES ('fantasy-hi', 'High fantasy', 'fantasy'), ('fantasy', 'Fantasy', NULL), ('lit', 'Literary', NULL);
  CREATE VIRTUAL TABLE search USING fts5(title);
  CREATE TABLE thumbnails (data BLOB);
  INSERT INTO thumbnails VALUES (x'89504e47');
  INSERT INTO book_genres VALUES (1, 'fantasy-hi'), (2, 'lit'), (3, 'fantasy');
`;

/** A SQLite file whose second row the import refuses: `label` is at most 5 characters (row 3 counting the header). */
function writeRefusedTags(path: string): void {
  const bad = new Database(path);
  bad.exec(`
    CREATE TABLE tags (id INTEGER PRIMARY KEY, label VARCHAR(5) NOT NULL);
    INSERT INTO tags (label) VALUES ('ok'), ('far too long');
  `);
  bad.close();
}

/** The spec's entities' records, as `{entity: [record…]}`, read through the app's store (a SQLite file, or a postgres:// URL). */
async function records(spec: string, database: string, entities: string[]) {
  const where = /^postgres:/.test(database) ? { databaseUrl: database } : { dbPath: database };
  const server = await createServer({ model: checkSpec(spec).model, ...where, logger: false });
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
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(
      'Wrote library.md from the SQLite file library.db: 5 entities (Author, BookGenre, Book, Genre, Thumbnail).',
    );
    expect(result.stdout).toContain('  Book: `cover`: blob (binary) has no field type: the column is left out.');
    expect(result.stdout).toContain(
      '  Thumbnail: No column could be translated; the entity has one text field, `note`, to be valid.',
    );
    expect(result.stdout).toContain('Not translated (6; each is noted in the spec under its entity):');
    const spec = readFileSync(join(dir, 'library.md'), 'utf8');
    for (const row of [
      /\| source_id +\| integer +\| unique +\| the row's `id` in the source: copied references are matched by it +\|/,
      /\| name +\| text +\| required, at most 120 characters +\|/,
      /\| email +\| email +\| unique +\|/,
      /\| born +\| date +\|/,
      // The rows decide what the declaration leaves open: a value of 1511 characters, a blank NOT NULL.
      /\| bio +\| long text +\|/,
      /\| nickname +\| text +\| +\|/,
      /- `nickname`: NOT NULL is not translated as required: a row holds a blank text, which required refuses\./,
      /\| author +\| Author +\| required +\| `author_id` in the source +\|/,
      /\| price +\| decimal\(2\) +\| at least 0 +\|/,
      /\| copies +\| integer +\| required, 0\.\.50, default 1 +\|/,
      /\| status +\| choice of draft, published, withdrawn +\| required, default draft +\|/,
      /\| in_print +\| boolean +\| required, default true +\|/,
      /\| meta +\| long text +\|/,
      /\| added_at +\| datetime +\| default now +\|/,
      /\| isbn +\| text +\| at most 13 characters, unique +\|/,
      /\| code +\| text +\| required, unique +\|/,
      /\| parent +\| Genre +\| +\| `parent_code` in the source +\|/,
      /A join table: it links Book and Genre, many to many/,
      // The composite key is a limit with its own error: point 5 and point 8 are shown.
      /\| one BookGenre per book and genre +\| BookGenre +\| at most 1 BookGenre per book, genre +\| DUPLICATE_BOOK_GENRE +\|/,
      /\| DUPLICATE_BOOK_GENRE +\| 409 +\| Another BookGenre has the same book and genre\. +\|/,
      /- The check `length\(title\) > 0` is not translated\./,
    ]) {
      expect(spec).toMatch(row);
    }
    // Book's own id is kept only because book_genres refers to it; nothing refers to a genre's pair.
    expect(spec).not.toContain('| cover');
    const check = await runIn(dir, ['check', 'library.md']);
    expect(check).toMatchObject({ code: 0 });
    expect(check.stdout).toContain('library.md: 4 of 9 points shown, 0 errors, 0 warnings');
  });

  it('copies the rows with --import-data, references matched by the kept keys, parents before children', async () => {
    const result = await runIn(
      dir,
      [
        'init',
        '--from',
        'library.db',
        'copied.md',
        '--import-data',
        '--as',
        'ada@example.org',
        '--password-stdin',
        '--db',
        'copied.db',
      ],
      { stdin: piped(`${PASSWORD}\n`) },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'Copied the rows into copied.db as ada@example.org:\n  Author: 2 rows\n  Genre: 3 rows\n  Book: 3 rows\n  BookGenre: 3 rows\n',
    );
    const spec = readFileSync(join(dir, 'copied.md'), 'utf8');
    const all = await records(spec, join(dir, 'copied.db'), ['Author', 'Book', 'Genre', 'BookGenre']);
    const byId = (entity: string) => new Map((all[entity] ?? []).map((r) => [r.id, r]));
    const authors = byId('Author');
    const books = byId('Book');
    const genres = byId('Genre');
    const earthsea = (all.Book ?? []).find((b) => b.title === 'A Wizard of Earthsea');
    expect(earthsea).toMatchObject({
      source_id: 1,
      price: 9.99,
      copies: 3,
      status: 'published',
      in_print: true,
      meta: '{"shelf": "F"}',
      added_at: '2024-01-05T10:00:00.000Z',
      isbn: '9780547773742',
    });
    expect(authors.get(earthsea?.author)).toMatchObject({
      name: 'Ursula K. Le Guin',
      source_id: 7,
      born: '1929-10-21',
    });
    expect(String(authors.get(earthsea?.author)?.bio)).toHaveLength(1511);
    expect((all.Book ?? []).map((b) => [b.title, authors.get(b.author)?.name, b.in_print]).sort()).toEqual([
      ['A Wizard of Earthsea', 'Ursula K. Le Guin', true],
      ['Invisible Cities', 'Italo Calvino', false],
      ['The Dispossessed', 'Ursula K. Le Guin', true],
    ]);
    expect((all.Genre ?? []).map((g) => [g.code, genres.get(g.parent)?.code ?? null]).sort()).toEqual([
      ['fantasy', null],
      ['fantasy-hi', 'fantasy'],
      ['lit', null],
    ]);
    expect((all.BookGenre ?? []).map((p) => [books.get(p.book)?.title, genres.get(p.genre)?.code]).sort()).toEqual([
      ['A Wizard of Earthsea', 'fantasy-hi'],
      ['Invisible Cities', 'lit'],
      ['The Dispossessed', 'fantasy'],
    ]);
  });

  it('copies nothing when a row is refused: the database is removed and the refusal listed', async () => {
    writeRefusedTags(join(dir, 'bad.db'));
    const result = await runIn(
      dir,
      [
        'init',
        '--from',
        'bad.db',
        'bad.md',
        '--import-data',
        '--as',
        'ada@example.org',
        '--password-stdin',
        '--db',
        'bad-app.db',
      ],
      { stdin: piped(`${PASSWORD}\n`), tty: true },
    );
    expect(result.code).toBe(1);
    // On a terminal the import's progress line is drawn, and cleared before the report.
    expect(result.stderr).toContain('Checking rows… 2');
    expect(result.stderr).toContain('\r\u001b[2Kerror: no rows were copied');
    expect(result.stdout).toMatch(/3 +label +TOO_LONG/);
    expect(result.stderr).toContain(
      'error: no rows were copied: a row of tags was refused (above), so bad-app.db was removed.',
    );
    expect(existsSync(join(dir, 'bad-app.db'))).toBe(false);
  });

  it('refuses a missing file, a file that is not SQLite, an empty database, an unknown scheme and an existing spec', async () => {
    writeFileSync(join(dir, 'kept.md'), 'my own spec\n');
    const cases: [string[], number, string][] = [
      [['--from', 'nowhere.db', 'a.md'], 2, 'cannot read nowhere.db: no such file'],
      [['--from', 'notes.txt', 'a.md'], 1, 'error: notes.txt is not a SQLite database. Nothing was written.'],
      [['--from', '.', 'a.md'], 2, 'cannot read .: it is a folder, not a SQLite file.'],
      [['--from', 'empty.db', 'a.md'], 1, 'error: empty.db has no tables: there is nothing to write a spec from.'],
      [['--from', 'mysql://root@localhost/shop', 'a.md'], 2, '--from mysql:// is not a database init can read'],
      [['--from', 'library.db', 'kept.md'], 2, 'kept.md already exists; pass --force to overwrite it'],
      [['--from', 'library.db', 'a.md', '--import-data'], 2, '--import-data needs --as <email>'],
    ];
    for (const [args, code, message] of cases) {
      const result = await runIn(dir, ['init', ...args]);
      expect({ args, code: result.code, stderr: result.stderr }).toMatchObject({
        code,
        stderr: expect.stringContaining(message),
      });
    }
    const weak = await runIn(
      dir,
      [
        'init',
        '--from',
        'library.db',
        'a.md',
        '--import-data',
        '--as',
        'ada@example.org',
        '--password-stdin',
        '--db',
        'a.db',
      ],
      { stdin: piped('short\n') },
    );
    expect(weak.code).toBe(1);
    expect(weak.stderr).toMatch(/^error: .*Nothing was written\.\n$/);
    const badEmail = await runIn(dir, ['init', '--from', 'library.db', 'a.md', '--import-data', '--as', 'ada']);
    expect(badEmail).toMatchObject({ code: 2, stderr: expect.stringContaining('--as: ') });
    expect(existsSync(join(dir, 'a.md'))).toBe(false);
    expect(existsSync(join(dir, 'a.db'))).toBe(false);
    expect(readFileSync(join(dir, 'kept.md'), 'utf8')).toBe('my own spec\n');
  });
});

/**
 * PostgreSQL: a library in its dialect (serials, identities, enums, arrays, jsonb, timestamptz),
 * and the tables pg-boss's own migrations create. Skipped when no server answers, except under
 * CI=true, where connecting fails the suite.
 */
describe.runIf(POSTGRES_AVAILABLE || process.env.CI === 'true')('ninepoint init --from a PostgreSQL URL', () => {
  const suffix = randomBytes(5).toString('hex');
  const library = `np_init_${suffix}`;
  const boss = `np_init_boss_${suffix}`;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir();
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    try {
      await admin.query(`
        CREATE SCHEMA ${library};
        SET search_path = ${library};
        CREATE TYPE loan_state AS ENUM ('out', 'returned', 'lost');
        CREATE TABLE members (
          id serial PRIMARY KEY, full_name varchar(80) NOT NULL, email text NOT NULL UNIQUE,
          joined date NOT NULL DEFAULT CURRENT_DATE, active boolean NOT NULL DEFAULT true, profile jsonb
        );
        CREATE TABLE books (
          isbn char(13) PRIMARY KEY, title text NOT NULL, price numeric(6,2) CHECK (price >= 0),
          pages integer CHECK (pages > 0 AND pages < 5000),
          format varchar(10) NOT NULL CHECK (format IN ('hardback', 'paperback', 'ebook')), tags text[]
        );
        CREATE TABLE loans (
          id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          member_id integer NOT NULL REFERENCES members(id),
          book_isbn char(13) NOT NULL REFERENCES books(isbn),
          state loan_state NOT NULL DEFAULT 'out', lent_at timestamptz NOT NULL DEFAULT now(),
          due date NOT NULL, fine numeric(5,2) DEFAULT 0, UNIQUE (member_id, book_isbn, lent_at)
        );
        INSERT INTO members (id, full_name, email, joined, active, profile) VALUES
          (10, 'Ada Lovelace', 'ada@example.org', '2024-03-01', true, '{"card": 1}'),
          (11, 'Alan Turing', 'alan@example.org', '2024-03-02', false, NULL);
        INSERT INTO books VALUES
          ('9780141439600', 'A Tale of Two Cities', 8.50, 480, 'paperback', '{classic,london}'),
          ('9780262510875', 'SICP', 55.00, 657, 'hardback', NULL);
        INSERT INTO loans (member_id, book_isbn, state, lent_at, due, fine) VALUES
          (10, '9780262510875', 'out', '2024-04-01 09:00:00+02', '2024-04-15', 0),
          (11, '9780141439600', 'returned', '2024-04-02 12:30:00+00', '2024-04-16', 1.25);
      `);
    } finally {
      await admin.end();
    }
    // pg-boss creates its tables (a partitioned job table, an enum, self-references) through its own migrations.
    const queue = new PgBoss({ connectionString: TEST_POSTGRES_URL, schema: boss, supervise: false, schedule: false });
    queue.on('error', () => {});
    await queue.start();
    await queue.createQueue('emails');
    await queue.send('emails', { to: 'ada@example.org' });
    await queue.stop({ graceful: false });
  });
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    try {
      await admin.query(`DROP SCHEMA IF EXISTS ${library} CASCADE; DROP SCHEMA IF EXISTS ${boss} CASCADE`);
    } finally {
      await admin.end();
    }
  });

  it('writes a spec from a schema that checks clean, and copies its rows with references intact', async () => {
    const result = await runIn(
      dir,
      ['init', '--from', TEST_POSTGRES_URL, '--schema', library, '--name', 'Library', 'library.md', '--import-data'],
      { stdin: piped(`${PASSWORD}\n`) },
    );
    expect(result.stderr).toContain('--import-data needs --as');
    const done = await runIn(
      dir,
      [
        'init',
        '--from',
        TEST_POSTGRES_URL,
        '--schema',
        library,
        '--name',
        'Library',
        'library.md',
        '--import-data',
        '--as',
        'ada@example.org',
        '--password-stdin',
      ],
      { stdin: piped(`${PASSWORD}\n`) },
    );
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(
      'Copied the rows into ninepoint.db as ada@example.org:\n  Book: 2 rows\n  Member: 2 rows\n  Loan: 2 rows\n',
    );
    const spec = readFileSync(join(dir, 'library.md'), 'utf8');
    for (const row of [
      /\| source_id +\| integer +\| unique +\|/,
      /\| full_name +\| text +\| required, at most 80 characters +\|/,
      /\| email +\| email +\| required, unique +\|/,
      /\| joined +\| date +\| required, default today +\|/,
      /\| active +\| boolean +\| required, default true +\|/,
      /\| profile +\| long text +\|/,
      /\| isbn +\| text +\| required, at most 13 characters, unique +\|/,
      /\| price +\| decimal\(2\) +\| at least 0 +\|/,
      /\| pages +\| integer +\| 1\.\.4999 +\|/,
      /\| format +\| choice of hardback, paperback, ebook +\| required +\|/,
      /\| member +\| Member +\| required +\| +\| `member_id` in the source +\|/,
      /\| book +\| Book +\| required +\| +\| `book_isbn` in the source +\|/,
      /\| status +\| choice of out, returned, lost +\| required, default out +\| State +\| `state` in the source +\|/,
      /\| lent_at +\| datetime +\| required, default now +\|/,
      /\| fine +\| decimal\(2\) +\| default 0 +\|/,
      /- `tags`: text\[\] \(a list\) is kept as its text/,
      /\| one Loan per member, book and lent_at +\| Loan +\| at most 1 Loan per member, book, lent_at +\| DUPLICATE_LOAN +\|/,
    ]) {
      expect(spec).toMatch(row);
    }
    expect(await runIn(dir, ['check', 'library.md'])).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('0 errors'),
    });
    const all = await records(spec, join(dir, 'ninepoint.db'), ['Member', 'Book', 'Loan']);
    const members = new Map((all.Member ?? []).map((m) => [m.id, m]));
    const books = new Map((all.Book ?? []).map((b) => [b.id, b]));
    expect(
      (all.Loan ?? [])
        .map((l) => [members.get(l.member)?.full_name, books.get(l.book)?.title, l.status, l.lent_at, l.due, l.fine])
        .sort(),
    ).toEqual([
      ['Ada Lovelace', 'SICP', 'out', '2024-04-01T07:00:00.000Z', '2024-04-15', 0],
      ['Alan Turing', 'A Tale of Two Cities', 'returned', '2024-04-02T12:30:00.000Z', '2024-04-16', 1.25],
    ]);
    expect((all.Book ?? []).find((b) => b.isbn === '9780141439600')).toMatchObject({
      tags: '{classic,london}',
      price: 8.5,
    });
  });

  it("writes a spec from pg-boss's own tables that checks clean, and copies its queue and job", async () => {
    const result = await runIn(
      dir,
      [
        'init',
        '--from',
        TEST_POSTGRES_URL,
        '--schema',
        boss,
        'boss.md',
        '--import-data',
        '--as',
        'ops@example.org',
        '--password-stdin',
        '--db',
        'boss.db',
      ],
      { stdin: piped(`${PASSWORD}\n`) },
    );
    expect(result.stderr).toBe('');
    expect(result).toMatchObject({ code: 0 });
    // The partitioned job table is one entity; its partitions are not entities of their own.
    expect(result.stdout).toMatch(
      /: \d+ entities \(Bam, Instance, Job, JobDependency, Queue, QueueStat, Schedule, Subscription, Version, Warning\)\.\n/,
    );
    expect(result.stdout).toContain('  Queue: The check `(dead_letter IS DISTINCT FROM name)` is not translated.');
    const spec = readFileSync(join(dir, 'boss.md'), 'utf8');
    expect(spec).toMatch(
      /\| status +\| choice of created, retry, active, completed, cancelled, failed +\| required, default created +\| State +\| `state` in the source +\|/,
    );
    expect(spec).toMatch(/\| dead_letter +\| Queue +\| +\|/);
    expect(await runIn(dir, ['check', 'boss.md'])).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('0 errors'),
    });
    const all = await records(spec, join(dir, 'boss.db'), ['Queue', 'Job']);
    expect(all.Queue?.map((q) => q.name)).toEqual(['emails']);
    expect(all.Job?.map((j) => [j.name, JSON.parse(String(j.data)), j.status])).toEqual([
      ['emails', { to: 'ada@example.org' }, 'created'],
    ]);
  });

  it('copies into PostgreSQL with --database, only into an empty schema, and drops what it made when a row is refused', async () => {
    const target = `${library}_into`;
    const url = withSearchPath(TEST_POSTGRES_URL, target);
    // A folder of its own: no SQLite file is made beside the spec.
    const own = tempDir();
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    const tablesOfTarget = async () =>
      (await admin.query<{ n: string }>('SELECT count(*) AS n FROM pg_tables WHERE schemaname = $1', [target])).rows[0]
        ?.n;
    try {
      await admin.query(`CREATE SCHEMA ${target}`);
      const init = (spec: string, from: string[]) =>
        runIn(
          own,
          ['init', ...from, spec, '--import-data', '--as', 'ada@example.org', '--password-stdin', '--database', url],
          { stdin: piped(`${PASSWORD}\n`) },
        );
      const done = await init('into.md', ['--from', TEST_POSTGRES_URL, '--schema', library]);
      expect(done.stderr).toBe('');
      expect(done.code).toBe(0);
      expect(done.stdout).toContain(
        `Copied the rows into PostgreSQL at 127.0.0.1:5432/test (schema ${target}) as ada@example.org:\n  Book: 2 rows\n  Member: 2 rows\n  Loan: 2 rows\n`,
      );
      expect(done.stdout).toContain(
        'Next: serve it with DATABASE_URL set to the --database URL: npx ninepoint serve into.md',
      );
      expect(existsSync(join(own, 'ninepoint.db'))).toBe(false);
      const spec = readFileSync(join(own, 'into.md'), 'utf8');
      const all = await records(spec, url, ['Member', 'Book', 'Loan']);
      const members = new Map((all.Member ?? []).map((m) => [m.id, m]));
      expect((all.Loan ?? []).map((l) => [members.get(l.member)?.full_name, l.status]).sort()).toEqual([
        ['Ada Lovelace', 'out'],
        ['Alan Turing', 'returned'],
      ]);

      // Not into a schema that holds tables: nothing is written, the tables are left alone.
      const made = await tablesOfTarget();
      const again = await init('again.md', ['--from', TEST_POSTGRES_URL, '--schema', library]);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(
        new RegExp(
          `^error: the schema ${target} of PostgreSQL at 127\\.0\\.0\\.1:5432/test holds \\d+ tables \\(.+\\); init --import-data fills a new database`,
        ),
      );
      expect(again.stderr).toContain('Nothing was written.');
      expect(existsSync(join(own, 'again.md'))).toBe(false);
      expect(await tablesOfTarget()).toBe(made);

      // A refused row: every table init made is dropped, the schema is empty again.
      await admin.query(`DROP SCHEMA ${target} CASCADE; CREATE SCHEMA ${target}`);
      writeRefusedTags(join(own, 'bad.db'));
      const refused = await init('bad.md', ['--from', 'bad.db']);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toMatch(/3 +label +TOO_LONG/);
      expect(refused.stderr).toContain(
        `error: no rows were copied: a row of tags was refused (above), so the tables init made in PostgreSQL at 127.0.0.1:5432/test (schema ${target}) were dropped.`,
      );
      expect(await tablesOfTarget()).toBe('0');
      // As it was: not only no table, nothing else init made either (the identity trigger's function).
      const functions = await admin.query<{ name: string }>(
        'SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1',
        [target],
      );
      expect(functions.rows.map((r) => r.name)).toEqual([]);

      // --database is a PostgreSQL URL, and only with --import-data.
      const sqliteUrl = await runIn(own, [
        'init',
        '--from',
        'bad.db',
        'x.md',
        '--import-data',
        '--as',
        'a@example.org',
        '--database',
        'app.db',
      ]);
      expect(sqliteUrl).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('--database takes a postgres:// (or postgresql://) URL'),
      });
      const alone = await runIn(own, ['init', '--from', 'bad.db', 'x.md', '--database', url]);
      expect(alone).toMatchObject({ code: 2, stderr: expect.stringContaining('--database go with --import-data') });
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS ${target} CASCADE`);
      await admin.end();
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('says so when the server does not answer or the schema has no tables, writing nothing', async () => {
    const unreachable = await runIn(dir, ['init', '--from', 'postgres://nobody@127.0.0.1:1/none', 'x.md']);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(
      /^error: cannot connect to PostgreSQL at 127\.0\.0\.1:1\/none: .+\. Nothing was written\.\n$/,
    );
    const missing = await runIn(dir, ['init', '--from', TEST_POSTGRES_URL, '--schema', `${library}_none`, 'x.md']);
    expect(missing.stderr).toContain(`has no schema "${library}_none"`);
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${library}_empty`);
    await admin.end();
    try {
      const empty = await runIn(dir, ['init', '--from', TEST_POSTGRES_URL, '--schema', `${library}_empty`, 'x.md']);
      expect(empty.code).toBe(1);
      expect(empty.stderr).toContain(`has no tables: there is nothing to write a spec from. Nothing was written.`);
    } finally {
      const again = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await again.connect();
      await again.query(`DROP SCHEMA ${library}_empty`);
      await again.end();
    }
    expect(existsSync(join(dir, 'x.md'))).toBe(false);
  });
});
