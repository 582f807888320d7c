import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { readRow } from './parse-tables.ts';
import { offsetAt } from './quick-fixes.ts';
import { indexWithin, subSpan } from './spans.ts';

const ROW = '| a \\| b \\| c | x |';

describe('spans inside a cell with escaped pipes', () => {
  const cell = readRow(ROW, 1, 0).cells[0];
  if (!cell) throw new Error('no cell');
  const written = (span: { offset: number; endColumn: number; column: number }) =>
    ROW.slice(span.offset, span.offset + span.endColumn - span.column);

  it('map the text the checker reads back to the source, `\\|` counting twice', () => {
    expect(cell.text).toBe('a | b | c');
    expect(written(cell.span)).toBe('a \\| b \\| c');
    expect(written(subSpan(cell.span, cell.text.indexOf('c'), 1))).toBe('c');
    expect(written(subSpan(cell.span, cell.text.indexOf('b'), 1))).toBe('b');
    expect(written(subSpan(cell.span, 2, 1))).toBe('\\|');
    const middle = subSpan(cell.span, 2, 5);
    expect(written(middle)).toBe('\\| b \\|');
    expect(written(subSpan(middle, 2, 1))).toBe('b');
    expect(indexWithin(cell.span, subSpan(cell.span, 8, 1))).toBe(8);
  });

  it('underline the misspelt name after `\\|\\|` in a rule, not two characters before it', () => {
    const expenses = readFileSync(new URL('../../../examples/expenses.md', import.meta.url), 'utf8');
    const broken = expenses.replace('\\|\\| category ==', '\\|\\| ctegory ==');
    const diagnostic = checkSpec(broken).diagnostics.find((d) => d.expected.includes('category'));
    if (!diagnostic) throw new Error('no diagnostic for "ctegory"');
    const from = offsetAt(broken, diagnostic.line, diagnostic.column) ?? -1;
    const to = offsetAt(broken, diagnostic.endLine, diagnostic.endColumn) ?? -1;
    expect(broken.slice(from, to)).toBe('ctegory');
  });
});
