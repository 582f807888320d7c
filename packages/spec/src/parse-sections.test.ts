import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';

const sketch = readFileSync(new URL('../test/fixtures/sketch.md', import.meta.url), 'utf8');

/** The sketch with one line replaced. */
function edited(line: string, replacement: string): string {
  if (!sketch.includes(line)) throw new Error(`the sketch has no line ${line}`);
  return sketch.replace(line, () => replacement);
}

const lineOf = (source: string, text: string) => source.split('\n').findIndex((l) => l.includes(text)) + 1;

describe('a row with more cells than its header', () => {
  it('is an error at the first extra pipe when a guard in point 4 writes a bare ||', () => {
    const row = '| mark overdue | out | overdue | staff | now > due || book.copies == 0 |';
    const source = edited('| mark overdue | out | overdue | staff | now > due |', row);
    const { diagnostics, ok } = checkSpec(source);
    expect(ok).toBe(false);
    expect(diagnostics.map((d) => d.code)).toEqual(['extra-cell']);
    const [d] = diagnostics;
    expect(d?.line).toBe(lineOf(source, row));
    // The pipe that ends the guard's cell opens the first cell beyond the header's five: the first of `||`.
    expect(d?.column).toBe(row.indexOf('||') + 1);
    expect(row.slice((d?.column ?? 0) - 1, (d?.endColumn ?? 0) - 1)).toBe('|| book.copies == 0');
    expect(d?.hint).toContain('\\|\\|');
    expect(d?.hint).toContain('\\|');
  });

  it('is an error at the first extra pipe when a rule in point 5 writes a bare ||', () => {
    const row = '| due in the future | Loan | due > today || borrower.id == user.id | DUE_IN_PAST |';
    const source = edited('| due in the future | Loan | due > today | DUE_IN_PAST |', row);
    const { diagnostics } = checkSpec(source);
    const extra = diagnostics.filter((d) => d.code === 'extra-cell');
    expect(extra).toHaveLength(1);
    expect(extra[0]?.line).toBe(lineOf(source, row));
    // `||` ends the condition and makes an empty fourth (error) cell: the fifth opens at its second pipe.
    expect(extra[0]?.column).toBe(row.indexOf('||') + 2);
    expect(extra[0]?.severity).toBe('error');
  });

  it('is an error in every point’s tables, a constant’s row included', () => {
    const source = edited('| MAX_COPIES | 50 | copies of one title |', '| MAX_COPIES | 50 | copies | of one title |');
    expect(checkSpec(source).diagnostics.map((d) => d.code)).toEqual(['extra-cell']);
  });

  it('is not reported for an escaped \\|\\| or a stray empty cell at the end of a row', () => {
    const escaped = edited(
      '| mark overdue | out | overdue | staff | now > due |',
      '| mark overdue | out | overdue | staff | now > due \\|\\| book.copies == 0 |',
    );
    expect(checkSpec(escaped).diagnostics).toEqual([]);
    expect(checkSpec(escaped).model.machines[0]?.transitions.at(-1)?.guard).toBe('now > due || book.copies == 0');
    const stray = edited('| MAX_COPIES | 50 | copies of one title |', '| MAX_COPIES | 50 | copies of one title | |');
    expect(checkSpec(stray).diagnostics).toEqual([]);
  });
});
