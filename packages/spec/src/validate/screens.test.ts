import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSpec } from '../check.ts';

const base = readFileSync(new URL('../../test/fixtures/docs-base.md', import.meta.url), 'utf8');

/** The docs' base spec (Book without states, Loan with them) with point 2 holding these rows. */
function withScreens(...rows: string[]): string {
  return base.replace(
    '## 2. Screens and routes\n\nNot shown.',
    `## 2. Screens and routes\n\n| route | screen | shows | who |\n|---|---|---|---|\n${rows.join('\n')}`,
  );
}

describe('point 2 checked against points 3 and 4', () => {
  it('refuses a board over an entity without states, at its shows cell, and leaves the screen out', () => {
    const { model, diagnostics } = checkSpec(
      withScreens('| /shelf | board | Book | staff |', '| /loans | board | Loan | staff |'),
    );
    expect(diagnostics.map((d) => [d.code, d.message, d.hint])).toEqual([
      [
        'invalid-screen',
        'Board /shelf shows Book, which has no states to make columns of.',
        'Give Book a state machine in point 4, or make this a list screen.',
      ],
    ]);
    expect(diagnostics[0]?.column).toBe('| /shelf | board | '.length + 1);
    expect(model.screens.map((s) => s.route)).toEqual(['/loans']);
  });

  it('judges a figure that links even when another figure of the dashboard does not, and leaves the dashboard out', () => {
    const { model, diagnostics } = checkSpec(
      withScreens('| /overview | dashboard | Book: sum of titel, sum of title, count by state | staff |'),
    );
    expect(diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['unknown-field', 'Dashboard /overview names field "titel", which Book does not have.'],
      ['invalid-dashboard', 'Dashboard /overview sums Book.title, which is not a number.'],
      ['invalid-dashboard', 'Dashboard /overview goes by state, but Book has no states.'],
    ]);
    expect(model.screens).toEqual([]);
  });

  it('reads a filter value as its field holds it, and refuses one that does not fit, at the value', () => {
    const good = checkSpec(
      withScreens(
        '| /mine | list | Loan where borrower = me and state = out | staff |',
        '| /few | list | Book where copies = 0 and title = "Dune" | staff |',
      ),
    );
    expect(good.diagnostics).toEqual([]);
    expect(good.model.screens.map((s) => s.filters)).toEqual([
      [
        { field: 'borrower', value: { me: true } },
        { field: 'state', value: { literal: 'out' } },
      ],
      [
        { field: 'copies', value: { literal: 0 } },
        { field: 'title', value: { literal: 'Dune' } },
      ],
    ]);
    const bad = checkSpec(
      withScreens(
        '| /a | list | Book where copies = many | staff |',
        '| /b | list | Loan where book = me | staff |',
        '| /c | list | Loan where book.title = me | staff |',
        '| /d | list | Book where title = Dune | staff |',
      ),
    );
    expect(bad.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['invalid-filter', '"many" cannot be compared with Book.copies, which needs a number.'],
      ['invalid-filter', '"me" is the signed-in user, but Loan.book does not reference User.'],
      [
        'invalid-filter',
        'A filter through references compares with me, so Loan.book.title must end at a field referring to User.',
      ],
      ['invalid-filter', '"Dune" cannot be compared with Book.title, which needs a "quoted" text.'],
    ]);
    expect(bad.model.screens).toEqual([]);
  });
});
