import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { dashboardText, formatScreensTable } from './derive-screens.ts';
import { explainModel } from './explain.ts';

const base = readFileSync(new URL('../test/fixtures/docs-base.md', import.meta.url), 'utf8');

/** The docs' base spec with point 2 holding these rows; Book gains a choice, a flag and a decimal. */
function withScreens(...rows: string[]): string {
  return base
    .replace(
      '## 2. Screens and routes\n\nNot shown.',
      `## 2. Screens and routes\n\n| route | screen | shows | who |\n|---|---|---|---|\n${rows.join('\n')}`,
    )
    .replace(
      '| copies | integer | required, at least 0, default 1 |',
      '| copies | integer | required, at least 0, default 1 |\n| genre | choice of novel, poetry, essay | |\n| rare | boolean | |\n| price | decimal | |',
    );
}

describe('a dashboard screen', () => {
  it('reads counts and sums of several entities, in order, and writes them back as point 2 does', () => {
    const { model, diagnostics } = checkSpec(
      withScreens(
        '| /overview | dashboard | Book: count, count by genre, sum of copies by rare, sum price per genre; Loan | staff |',
      ),
    );
    expect(diagnostics).toEqual([]);
    const screen = model.screens[0];
    expect(screen).toMatchObject({ route: '/overview', kind: 'dashboard', entity: null, who: ['staff'] });
    expect(screen?.tiles).toEqual([
      { entity: 'Book', measure: 'count', field: null, by: null },
      { entity: 'Book', measure: 'count', field: null, by: 'genre' },
      { entity: 'Book', measure: 'sum', field: 'copies', by: 'rare' },
      { entity: 'Book', measure: 'sum', field: 'price', by: 'genre' },
      // An entity alone: its records per state.
      { entity: 'Loan', measure: 'count', field: null, by: 'state' },
    ]);
    expect(dashboardText(screen?.tiles ?? [])).toBe(
      'Book: count, count by genre, sum of copies by rare, sum of price by genre; Loan: count by state',
    );
    expect(explainModel(model)).toContain(
      '/overview: dashboard of Book: count, count by genre, sum of copies by rare, sum of price by genre; Loan: count by state, open to staff',
    );
    const again = checkSpec(withScreens(formatScreensTable(model.screens).split('\n')[2] ?? ''));
    expect(again.diagnostics).toEqual([]);
    expect(again.model.screens[0]?.tiles).toEqual(screen?.tiles);
  });

  it.each([
    [
      'sum of title',
      'invalid-dashboard',
      'sums Book.title, which is not a number',
      'Sum a number field of Book: copies, price',
    ],
    ['count by state', 'invalid-dashboard', 'goes by state, but Book has no states', 'genre, rare'],
    ['count by title', 'invalid-dashboard', 'goes by Book.title, which has too many values', 'genre, rare'],
    ['count by genra', 'unknown-field', 'names field "genra"', undefined],
    ['sum of copes', 'unknown-field', 'names field "copes"', 'The number fields of Book: copies, price'],
    ['average of copies', 'invalid-dashboard', 'is not understood', 'count by a field'],
  ])('refuses "Book: %s" with %s, pointing at the word', (figure, code, message, hint) => {
    const { diagnostics } = checkSpec(withScreens(`| /overview | dashboard | Book: ${figure} | staff |`));
    expect(diagnostics).toHaveLength(1);
    const [found] = diagnostics;
    expect(found?.code).toBe(code);
    expect(found?.message).toContain(message);
    if (hint) expect(found?.hint).toContain(hint);
    if (code === 'unknown-field') expect(found?.expected).toEqual([figure.endsWith('genra') ? 'genre' : 'copies']);
    // The span is the word at fault (or the whole figure when it is not understood).
    const source = withScreens(`| /overview | dashboard | Book: ${figure} | staff |`);
    const line = source.split('\n')[(found?.line ?? 0) - 1] ?? '';
    const marked = line.slice((found?.column ?? 0) - 1, (found?.endColumn ?? 0) - 1);
    expect(marked).toBe(message === 'is not understood' ? figure : figure.split(' ').at(-1));
  });

  it('refuses an unknown entity with a suggestion, and a route with a parameter', () => {
    const unknown = checkSpec(withScreens('| /overview | dashboard | Boook: count | staff |')).diagnostics;
    expect(unknown.map((d) => [d.code, d.expected])).toEqual([['unknown-entity', ['Book']]]);
    const param = checkSpec(withScreens('| /overview/:id | dashboard | Book | staff |')).diagnostics;
    expect(param.map((d) => d.code)).toEqual(['invalid-route']);
    const empty = checkSpec(withScreens('| /overview | dashboard | | staff |')).diagnostics;
    expect(empty.map((d) => d.code)).toEqual(['empty-cell']);
  });
});
