import { blankSpec, type Model } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { insertRowBefore, LENDING_DESK, modelOf, replaceOnce } from '../../test/helpers.ts';
import { parseAppliedState } from './applied-state.ts';
import {
  type AppliedState,
  blockingSteps,
  type MigrationPlan,
  type MigrationProbe,
  type MigrationStep,
  type ProbedRow,
} from './migration-contract.ts';
import { planMigration } from './migration-planner.ts';
import { narrowings } from './migration-planners/narrowed-field.ts';
import { formatMigrationPlan, MigrationRefusedError } from './migration-report.ts';
import { compileSqlSchema, type SqlTable } from './sql-schema.ts';

const NOW = new Date('2026-03-01T12:00:00.000Z');

/** A database in memory: tables laid out as given, with rows. */
function fakeDatabase(tables: readonly SqlTable[], rows: Record<string, ProbedRow[]> = {}): MigrationProbe {
  return {
    async columns(name) {
      const table = tables.find((t) => t.name === name);
      return table ? table.columns.map((c) => ({ name: c.name, notNull: c.notNull })) : null;
    },
    async rowCount(name) {
      return rows[name]?.length ?? 0;
    },
    async *rows(name, columns) {
      for (const row of rows[name] ?? []) yield Object.fromEntries(columns.map((c) => [c.name, row[c.name] ?? null]));
    },
  };
}

let counter = 0;
function book(title: string, values: Record<string, string | number | boolean | null> = {}): ProbedRow {
  counter++;
  return {
    id: `00000000-0000-7000-8000-${String(counter).padStart(12, '0')}`,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    created_by: null,
    _version: 1,
    title,
    isbn: `97800000${String(counter).padStart(5, '0')}`,
    copies: 1,
    ...values,
  };
}

function appliedState(model: Model): AppliedState {
  return { model, tables: compileSqlSchema(model).tables };
}

/** Plans `next` against a database laid out for `before` (null: empty) holding `rows`. */
async function plan(before: Model | null, next: Model, rows: Record<string, ProbedRow[]> = {}): Promise<MigrationPlan> {
  const previous = before ? appliedState(before) : null;
  return planMigration({
    previous,
    model: next,
    schema: compileSqlSchema(next),
    probe: fakeDatabase(previous?.tables ?? [], rows),
    now: NOW,
  });
}

const summary = (step: MigrationStep) => ({
  kind: step.kind,
  safety: step.safety,
  table: step.table,
  column: step.column,
  rows: step.rows,
});

const BASE = modelOf(LENDING_DESK);
const withBookRow = (row: string) => modelOf(insertRowBefore(LENDING_DESK, ['copies', 'integer'], row));
const withTitleRules = (rules: string) =>
  modelOf(replaceOnce(LENDING_DESK, /^\|\s*title\s*\|.*$/m, () => `| title | text | ${rules} |`));
/** The blank spec with these entities (point 3) and state machines (point 4). */
function blankWith(entities: string, machines = 'Not shown.\n'): string {
  return blankSpec('Shelf')
    .replace('## 3. Entities and their fields\nNot shown.\n', `## 3. Entities and their fields\n${entities}`)
    .replace('## 4. States and transitions\nNot shown.\n', `## 4. States and transitions\n${machines}`);
}

const TWO_BOOKS = () => ({ books: [book('Dune'), book('Emma')] });

describe('planMigration', () => {
  it('creates every table of an empty database, safely', async () => {
    const result = await plan(null, BASE);
    expect(result.steps.map(summary)).toEqual([
      { kind: 'create-table', safety: 'safe', table: 'books', column: null, rows: 0 },
      { kind: 'create-table', safety: 'safe', table: 'loans', column: null, rows: 0 },
    ]);
    expect(result.steps[0]?.changes).toEqual([{ kind: 'create-table', table: compileSqlSchema(BASE).tables[0] }]);
    expect(result.tables).toEqual(compileSqlSchema(BASE).tables);
  });

  it('has nothing to do for the model the database was laid out for', async () => {
    const result = await plan(BASE, BASE, TWO_BOOKS());
    expect(result.steps).toEqual([]);
    expect(result.tables).toEqual(compileSqlSchema(BASE).tables);
    expect(formatMigrationPlan(result, { allowDestructive: false, mode: 'plan' })).toBe(
      'Nothing to migrate: the database already matches the spec.\n',
    );
  });

  it('adds an optional field as a safe column that existing rows leave empty', async () => {
    const result = await plan(BASE, withBookRow('| note | long text | |'), TWO_BOOKS());
    expect(result.steps.map(summary)).toEqual([
      { kind: 'add-column', safety: 'safe', table: 'books', column: 'note', rows: 0 },
    ]);
    expect(result.steps[0]?.changes).toEqual([
      {
        kind: 'add-column',
        table: 'books',
        column: expect.objectContaining({ name: 'note', notNull: false }),
        fill: null,
      },
    ]);
  });

  it('fills a new field with its default in existing rows, a now default with the time of the migration', async () => {
    const literal = await plan(BASE, withBookRow('| shelf | text | required, default A1 |'), TWO_BOOKS());
    expect(literal.steps.map(summary)).toEqual([
      { kind: 'add-column', safety: 'safe', table: 'books', column: 'shelf', rows: 2 },
    ]);
    expect(literal.steps[0]?.summary).toBe(
      'Add column books.shelf for the new field Book.shelf. The 2 existing rows get "A1".',
    );
    const dynamic = await plan(BASE, withBookRow('| added | datetime | required, default now |'), TWO_BOOKS());
    expect(dynamic.steps[0]?.changes).toEqual([
      {
        kind: 'add-column',
        table: 'books',
        column: expect.objectContaining({ name: 'added', notNull: true, default: null }),
        fill: NOW.toISOString(),
      },
    ]);
  });

  it('asks for the flag to add a required field without a default to a table with rows, and adds it empty', async () => {
    const next = withBookRow('| shelf | text | required |');
    const result = await plan(BASE, next, TWO_BOOKS());
    expect(result.steps.map(summary)).toEqual([
      { kind: 'add-required-column', safety: 'needs-flag', table: 'books', column: 'shelf', rows: 2 },
    ]);
    expect(result.steps[0]?.summary).toContain('the 2 existing rows would have no value');
    const shelf = result.tables[0]?.columns.find((c) => c.name === 'shelf');
    expect(shelf?.notNull).toBe(false);
    // On an empty table nothing can lack a value.
    const empty = await plan(BASE, next);
    expect(empty.steps.map(summary)).toEqual([
      { kind: 'add-column', safety: 'safe', table: 'books', column: 'shelf', rows: 0 },
    ]);
    expect(empty.tables[0]?.columns.find((c) => c.name === 'shelf')?.notNull).toBe(true);
  });

  it('keeps a removed field’s column, asking for the flag when rows hold a value, and frees it from NOT NULL', async () => {
    const next = modelOf(replaceOnce(LENDING_DESK, /^\|\s*isbn\s*\|.*\n/m, () => ''));
    const result = await plan(BASE, next, { books: [book('Dune'), book('Emma', { isbn: null })] });
    expect(result.steps.map(summary)).toEqual([
      { kind: 'keep-column', safety: 'needs-flag', table: 'books', column: 'isbn', rows: 1 },
      { kind: 'drop-index', safety: 'safe', table: 'books', column: null, rows: 0 },
    ]);
    expect(result.steps[0]?.summary).toBe('Field Book.isbn was removed; 1 row holds a value in books.isbn.');
    expect(result.steps[0]?.changes).toEqual([{ kind: 'drop-not-null', table: 'books', column: 'isbn' }]);
    const isbn = result.tables[0]?.columns.at(-1);
    expect(isbn).toMatchObject({ name: 'isbn', field: 'isbn', notNull: false });

    const noValues = await plan(BASE, next, { books: [book('Dune', { isbn: null })] });
    expect(noValues.steps[0]).toMatchObject({ kind: 'keep-column', safety: 'safe', rows: 0 });
  });

  it('does not ask again about a column kept by an earlier migration, and serves its values when the field is back', async () => {
    const next = modelOf(replaceOnce(LENDING_DESK, /^\|\s*isbn\s*\|.*\n/m, () => ''));
    const first = await plan(BASE, next, TWO_BOOKS());
    const kept: AppliedState = { model: next, tables: first.tables };
    const rows = TWO_BOOKS();
    const again = await planMigration({
      previous: kept,
      model: next,
      schema: compileSqlSchema(next),
      probe: fakeDatabase(first.tables, rows),
    });
    expect(again.steps).toEqual([]);
    expect(again.tables).toEqual(first.tables);

    const back = await planMigration({
      previous: kept,
      model: BASE,
      schema: compileSqlSchema(BASE),
      probe: fakeDatabase(first.tables, rows),
    });
    expect(back.steps.map(summary)).toEqual([
      { kind: 'restore-column', safety: 'safe', table: 'books', column: 'isbn', rows: 2 },
      { kind: 'require-column', safety: 'safe', table: 'books', column: 'isbn', rows: 0 },
      { kind: 'make-unique', safety: 'safe', table: 'books', column: 'isbn', rows: 0 },
    ]);
    expect(back.steps[0]?.summary).toBe(
      'Field Book.isbn is back: the 2 values kept in books.isbn since it was removed are served again.',
    );
  });

  it('keeps a removed entity’s table, dropping its foreign keys so it blocks no delete', async () => {
    const before = modelOf(
      blankWith(
        '### Book\n| field | type | rules |\n|---|---|---|\n| title | text | required |\n\n' +
          '### Review\n| field | type | rules |\n|---|---|---|\n| book | Book | required |\n| text | text | |\n',
      ),
    );
    const after = modelOf(
      blankWith('### Book\n| field | type | rules |\n|---|---|---|\n| title | text | required |\n'),
    );
    const review = { id: 'r1', created_at: 'x', updated_at: 'x', book: 'b1', text: 'Great' };
    const result = await plan(before, after, { books: [book('Dune')], reviews: [review, { ...review, id: 'r2' }] });
    expect(result.steps.map(summary)).toEqual([
      { kind: 'keep-table', safety: 'needs-flag', table: 'reviews', column: null, rows: 2 },
    ]);
    expect(result.steps[0]?.summary).toBe(
      'Entity Review was removed; its table reviews holds 2 rows, kept and no longer served.',
    );
    expect(result.steps[0]?.changes).toEqual([{ kind: 'drop-reference', table: 'reviews', column: 'book' }]);
    expect(result.tables.map((t) => t.name)).toEqual(['books', 'reviews']);
    expect(result.tables[1]?.columns.find((c) => c.name === 'book')?.references).toBeNull();
    const empty = await plan(before, after);
    expect(empty.steps[0]).toMatchObject({ kind: 'keep-table', safety: 'safe', rows: 0 });

    // Back in the spec: the kept rows are served again, and the foreign key is not asked for again.
    const back = await planMigration({
      previous: { model: after, tables: result.tables },
      model: before,
      schema: compileSqlSchema(before),
      probe: fakeDatabase(result.tables, { books: [book('Dune')], reviews: [review] }),
    });
    expect(back.steps.map(summary)).toEqual([
      { kind: 'restore-table', safety: 'safe', table: 'reviews', column: null, rows: 1 },
    ]);
    expect(back.steps[0]?.summary).toBe(
      'Entity Review is back: the 1 row kept in table reviews since it was removed is served again.',
    );
  });

  it('refuses a type change of a column holding values even with the flag, and recreates an empty one', async () => {
    const next = modelOf(
      replaceOnce(LENDING_DESK, /^\|\s*copies\s*\|.*$/m, () => '| copies | decimal | required, default 1 |'),
    );
    const result = await plan(BASE, next, TWO_BOOKS());
    expect(result.steps.map(summary)).toEqual([
      { kind: 'change-type', safety: 'refused', table: 'books', column: 'copies', rows: 2 },
    ]);
    expect(result.steps[0]?.summary).toBe('Book.copies changes type from integer to decimal; 2 rows hold a value.');
    expect(result.steps[0]?.advice).toMatch(/add a new field of the new type, copy the values into it/);
    expect(blockingSteps(result, true)).toHaveLength(1);

    const empty = await plan(BASE, next, { books: [book('Dune', { copies: null })] });
    expect(empty.steps.map(summary)).toEqual([
      { kind: 'change-type', safety: 'safe', table: 'books', column: 'copies', rows: 1 },
    ]);
    expect(empty.steps[0]?.changes).toEqual([
      { kind: 'recreate-column', table: 'books', column: expect.objectContaining({ type: 'decimal' }), fill: 1 },
    ]);
  });

  it('counts the rows a narrowed field rule would break', async () => {
    const rows = { books: [book('Dune'), book('Middlemarch'), book('War and Peace')] };
    const result = await plan(BASE, withTitleRules('required, 1..6 characters'), rows);
    expect(result.steps.map(summary)).toEqual([
      { kind: 'tighten-field', safety: 'needs-flag', table: 'books', column: 'title', rows: 2 },
    ]);
    expect(result.steps[0]?.summary).toBe(
      'Book.title must now be at most 6 characters (was 200), but 2 rows break it.',
    );
    const loosened = await plan(BASE, withTitleRules('required, 1..500 characters'), rows);
    expect(loosened.steps).toEqual([]);
  });

  it('describes how field rules narrowed', () => {
    const field = (rules: string, type = 'text') =>
      modelOf(replaceOnce(LENDING_DESK, /^\|\s*title\s*\|.*$/m, () => `| title | ${type} | ${rules} |`)).entities[0]
        ?.fields[0] as Model['entities'][number]['fields'][number];
    expect(narrowings(field('required'), field('required, pattern ^[A-Z]'))).toEqual(['matching ^[A-Z]']);
    expect(narrowings(field(''), field('', 'email'))).toEqual(['an email address (was text)']);
    expect(narrowings(field('', 'choice of a, b, c'), field('', 'choice of a, b'))).toEqual([
      'one of a, b (c removed)',
    ]);
    expect(narrowings(field('', 'choice of a, b'), field('', 'choice of a, b, c'))).toEqual([]);
    expect(narrowings(field('', 'email'), field(''))).toEqual([]);
  });

  it('refuses to make a field unique over duplicates, even with the flag', async () => {
    const next = withTitleRules('required, unique, 1..200 characters');
    const result = await plan(BASE, next, { books: [book('Dune'), book('Dune'), book('Emma')] });
    expect(result.steps.map(summary)).toEqual([
      { kind: 'make-unique', safety: 'refused', table: 'books', column: 'title', rows: 2 },
    ]);
    const distinct = await plan(BASE, next, TWO_BOOKS());
    expect(distinct.steps[0]).toMatchObject({ kind: 'make-unique', safety: 'safe' });
    expect(distinct.steps[0]?.changes).toEqual([
      { kind: 'add-index', table: 'books', index: expect.objectContaining({ name: 'books_title_key', unique: true }) },
    ]);
  });

  it('makes a newly required field NOT NULL when no row lacks it, and asks for the flag when some do', async () => {
    const optional = modelOf(replaceOnce(LENDING_DESK, /^\|\s*copies\s*\|.*$/m, () => '| copies | integer | |'));
    const required = modelOf(
      replaceOnce(LENDING_DESK, /^\|\s*copies\s*\|.*$/m, () => '| copies | integer | required |'),
    );
    const full = await plan(optional, required, TWO_BOOKS());
    expect(full.steps.map(summary)).toEqual([
      { kind: 'require-column', safety: 'safe', table: 'books', column: 'copies', rows: 0 },
    ]);
    expect(full.steps[0]?.changes).toEqual([{ kind: 'set-not-null', table: 'books', column: 'copies' }]);
    const lacking = await plan(optional, required, { books: [book('Dune', { copies: null })] });
    expect(lacking.steps[0]).toMatchObject({ kind: 'require-column', safety: 'needs-flag', rows: 1, changes: [] });
    // A default fills the rows that lack a value.
    const filled = await plan(optional, BASE, { books: [book('Dune', { copies: null })] });
    expect(filled.steps[0]).toMatchObject({ kind: 'require-column', safety: 'safe', rows: 1 });
    expect(filled.steps[0]?.changes).toEqual([
      { kind: 'fill-nulls', table: 'books', column: 'copies', value: 1 },
      { kind: 'set-not-null', table: 'books', column: 'copies' },
    ]);
    const relaxed = await plan(required, optional, TWO_BOOKS());
    expect(relaxed.steps.map(summary)).toEqual([
      { kind: 'relax-column', safety: 'safe', table: 'books', column: 'copies', rows: 0 },
    ]);
  });

  it('checks a new rule against existing rows and counts those that break it', async () => {
    const ruled = insertRowBefore(
      insertRowBefore(LENDING_DESK, ['loan limit'], '| few copies | Book | copies <= 2 | TOO_MANY |'),
      ['LOAN_LIMIT'],
      '| TOO_MANY | 422 | Too many copies. |',
    );
    const rows = { books: [book('Dune', { copies: 1 }), book('Emma', { copies: 3 }), book('Ulysses', { copies: 9 })] };
    const result = await plan(BASE, modelOf(ruled), rows);
    expect(result.steps.map(summary)).toEqual([
      { kind: 'check-rule', safety: 'needs-flag', table: 'books', column: null, rows: 2 },
    ]);
    expect(result.steps[0]?.summary).toBe('Rule "few copies" (new) on Book: 2 rows break it.');
    // Unchanged on the next start: not checked again.
    expect((await plan(modelOf(ruled), modelOf(ruled), rows)).steps).toEqual([]);
  });

  it('says which rules it cannot check against stored rows, and why', async () => {
    const ruled = replaceOnce(
      LENDING_DESK,
      /^\|\s*due in the future\s*\|.*$/m,
      () => '| due in the future | Loan | due > today && book.copies > 0 | DUE_IN_PAST |',
    );
    const loan = {
      id: 'l1',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      state: 'out',
      book: 'b1',
      borrower: 'u1',
      due: '2020-01-01',
    };
    const result = await plan(BASE, modelOf(ruled), { loans: [loan] });
    expect(result.steps.map(summary)).toEqual([
      { kind: 'check-rule', safety: 'safe', table: 'loans', column: null, rows: 0 },
    ]);
    expect(result.steps[0]?.summary).toMatch(
      /^Rule "due in the future" \(changed\) on Loan is not checked against existing rows: it depends on the current time/,
    );
    const through = replaceOnce(
      LENDING_DESK,
      /^\|\s*due in the future\s*\|.*$/m,
      () => '| due in the future | Loan | book.copies > 0 | DUE_IN_PAST |',
    );
    const reached = await plan(BASE, modelOf(through), { loans: [loan] });
    expect(reached.steps[0]?.summary).toContain('it reaches through a reference (book.copies)');
  });

  it('counts the groups a lowered limit is already exceeded by', async () => {
    const lowered = modelOf(replaceOnce(LENDING_DESK, /^\|\s*MAX_LOANS\s*\|.*$/m, () => '| MAX_LOANS | 1 | books |'));
    const loan = (id: string, borrower: string, state: string) => ({
      id,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      state,
      book: 'b1',
      borrower,
      due: '2030-01-01',
    });
    const rows = {
      loans: [loan('1', 'ann', 'out'), loan('2', 'ann', 'out'), loan('3', 'bob', 'out'), loan('4', 'bob', 'returned')],
    };
    const result = await plan(BASE, lowered, rows);
    expect(result.steps.map(summary)).toEqual([
      { kind: 'check-rule', safety: 'needs-flag', table: 'loans', column: null, rows: 2 },
    ]);
    expect(result.steps[0]?.summary).toBe(
      'Rule "loan limit" (changed) on Loan: at most 1 Loan in state out per borrower, but 1 borrower value already exceeds it (2 rows).',
    );
  });

  describe('a new limit over several fields or per period', () => {
    const loan = (id: string, borrower: string, book: string, due: string, state = 'out') => ({
      id,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      state,
      book,
      borrower,
      due,
    });
    const withLimit = (condition: string) =>
      modelOf(insertRowBefore(LENDING_DESK, ['loan limit'], `| one each | Loan | ${condition} | LOAN_LIMIT |`));

    it('is refused without the flag when existing rows share all its fields more often than it allows', async () => {
      const rows = {
        loans: [
          loan('1', 'ann', 'b1', '2030-01-01'),
          loan('2', 'ann', 'b1', '2030-02-01'),
          loan('3', 'ann', 'b2', '2030-01-01'),
          loan('4', 'bob', 'b1', '2030-01-01'),
          loan('5', 'bob', 'b1', '2030-01-01', 'returned'),
          loan('6', 'cy', 'b1', '2030-01-01'),
          loan('7', 'cy', 'b1', '2030-01-01'),
          loan('8', 'cy', 'b1', '2030-01-01'),
        ],
      };
      const result = await plan(BASE, withLimit('at most 1 Loan in state out per borrower and book'), rows);
      expect(result.steps.map(summary)).toEqual([
        { kind: 'add-index', safety: 'safe', table: 'loans', column: null, rows: 0 },
        { kind: 'check-rule', safety: 'needs-flag', table: 'loans', column: null, rows: 5 },
      ]);
      // One index serves the count: the grouped fields, then the state.
      expect(result.steps[0]?.summary).toBe(
        'Add index loans_borrower_book_state_idx on loans (borrower, book, state).',
      );
      expect(result.steps[1]?.summary).toBe(
        'Rule "one each" (new) on Loan: at most 1 Loan in state out per borrower and book, but 2 groups with the same borrower and book already exceed it (5 rows).',
      );
      expect(blockingSteps(result, false)).toHaveLength(1);
      expect(blockingSteps(result, true)).toEqual([]);
      const fine = await plan(BASE, withLimit('at most 3 Loan in state out per borrower, book'), rows);
      expect(fine.steps[1]).toMatchObject({ safety: 'safe', rows: 0 });
      expect(fine.steps[1]?.summary).toBe(
        'Rule "one each" (new) on Loan: at most 3 Loan in state out per borrower and book; every row satisfies it.',
      );
    });

    it('counts existing rows per UTC calendar period of the date', async () => {
      const rows = {
        loans: [
          loan('1', 'ann', 'b1', '2030-01-05'),
          loan('2', 'ann', 'b2', '2030-01-31'),
          loan('3', 'ann', 'b3', '2030-02-01'),
          loan('4', 'bob', 'b1', '2030-01-05'),
        ],
      };
      const monthly = await plan(BASE, withLimit('at most 1 Loan per borrower per month of due'), rows);
      expect(monthly.steps[0]?.summary).toBe('Add index loans_borrower_due_idx on loans (borrower, due).');
      expect(monthly.steps[1]?.summary).toBe(
        'Rule "one each" (new) on Loan: at most 1 Loan per borrower per month of due, but 1 group with the same borrower and month of due already exceeds it (2 rows).',
      );
      // 2030-01-31 is a Thursday, 2030-02-01 the Friday of the same ISO week; 2030-01-05 a Saturday before.
      const weekly = await plan(BASE, withLimit('at most 1 Loan per week of due'), rows);
      const check = weekly.steps.find((step) => step.kind === 'check-rule');
      expect(check).toMatchObject({ safety: 'needs-flag', rows: 4 });
      expect(check?.summary).toContain('2 groups with the same week of due already exceed it (4 rows)');
    });

    it('reads a limit recorded before limits had several fields as the same limit', async () => {
      const recorded = JSON.parse(JSON.stringify(BASE)) as { rules: { condition: Record<string, unknown> }[] };
      for (const rule of recorded.rules) {
        if (rule.condition.kind !== 'limit') continue;
        rule.condition.per = (rule.condition.per as string[])[0];
        delete rule.condition.period;
      }
      const state = parseAppliedState(JSON.stringify(recorded), JSON.stringify(compileSqlSchema(BASE).tables));
      expect(state.model?.rules.find((r) => r.name === 'loan limit')?.condition).toMatchObject({
        per: ['borrower'],
        period: null,
      });
      const result = await planMigration({
        previous: state,
        model: BASE,
        schema: compileSqlSchema(BASE),
        probe: fakeDatabase(state.tables, { loans: [loan('1', 'ann', 'b1', '2030-01-01')] }),
        now: NOW,
      });
      expect(result.steps).toEqual([]);
    });
  });

  it('gives existing rows the initial state when an entity gets a state machine', async () => {
    const task = '### Task\n| field | type | rules |\n|---|---|---|\n| title | text | required |\n';
    const machine =
      '### Task\n| transition | from | to | who | when |\n|---|---|---|---|---|\n' +
      '| open | (new) | open | | |\n| close | open | done | | |\n';
    const before = modelOf(blankWith(task));
    const after = modelOf(blankWith(task, machine));
    const row = { id: 't1', created_at: 'x', updated_at: 'x', title: 'Write' };
    const result = await plan(before, after, { tasks: [row] });
    const state = result.steps.find((s) => s.column === 'state');
    expect(state).toMatchObject({ kind: 'add-column', safety: 'safe', rows: 1 });
    expect(state?.summary).toBe('Add column tasks.state for the system column state. The 1 existing row gets "open".');
    expect(state?.changes).toEqual([
      {
        kind: 'add-column',
        table: 'tasks',
        column: expect.objectContaining({ name: 'state', notNull: true }),
        fill: 'open',
      },
    ]);
    const removed = await plan(after, before, { tasks: [{ ...row, state: 'done' }] });
    expect(removed.steps.map(summary)).toContainEqual({
      kind: 'keep-column',
      safety: 'needs-flag',
      table: 'tasks',
      column: 'state',
      rows: 1,
    });
    expect(removed.steps.find((s) => s.kind === 'keep-column')?.summary).toBe(
      'Task no longer has states; 1 row holds a value in tasks.state.',
    );
  });
});

describe('formatMigrationPlan', () => {
  it('marks each step and says what would happen, with advice under the steps that are not safe', async () => {
    const next = modelOf(
      insertRowBefore(
        replaceOnce(LENDING_DESK, /^\|\s*isbn\s*\|.*\n/m, () => ''),
        ['copies', 'integer'],
        '| note | long text | |',
      ),
    );
    const result = await plan(BASE, next, TWO_BOOKS());
    expect(formatMigrationPlan(result, { allowDestructive: false, mode: 'plan' })).toBe(
      [
        '  + Add column books.note for the new field Book.note.',
        '  ! Field Book.isbn was removed; 2 rows hold a value in books.isbn.',
        '      With --allow-destructive the column and its values are kept in the database (never dropped) but no longer served; putting the field back in the spec serves them again.',
        '  + Drop index books_isbn_key: the spec no longer needs it (an index holds no data).',
        '',
        'Nothing was changed (plan only); applying it would be refused. 1 step marked ! could hide or invalidate stored data: pass --allow-destructive to apply it (removed fields and entities keep their data in the database).',
        '',
      ].join('\n'),
    );
    expect(formatMigrationPlan(result, { allowDestructive: true, mode: 'plan' })).toMatch(
      /\nNothing was changed \(plan only\)\. Applying it takes 3 steps in one transaction; no data is dropped\.\n$/,
    );
    expect(formatMigrationPlan(result, { allowDestructive: true, mode: 'applied' })).toMatch(
      /\nApplied 3 steps in one transaction \(1 allowed by --allow-destructive\); no data was dropped\.\n$/,
    );
    const error = new MigrationRefusedError(result, { allowDestructive: false, location: 'data/x.db' });
    expect(error.message).toMatch(
      /^the database "data\/x\.db" cannot be migrated to this spec without losing or invalidating data, so nothing was changed:\n/,
    );
    expect(error.message).toContain('Refused: nothing was changed. 1 step marked !');
    expect(error.blocking.map((s) => s.kind)).toEqual(['keep-column']);
  });
});
