import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { offsetAt, quickFixes } from './quick-fixes.ts';

const source = readFileSync(new URL('../../../examples/lending-desk.md', import.meta.url), 'utf8');

/** The spec with one misspelling planted, its first quick fix applied, and what the check says then. */
function plantAndFix(find: string | RegExp, replace: string) {
  const broken = source.replace(find, replace);
  expect(broken).not.toBe(source);
  const { diagnostics } = checkSpec(broken);
  const withFix = diagnostics.find((d) => quickFixes(broken, d).length > 0);
  if (!withFix) throw new Error(`no quick fix among ${diagnostics.map((d) => d.code).join(', ')}`);
  const [fix] = quickFixes(broken, withFix);
  if (!fix) throw new Error('no fix');
  const fixed = broken.slice(0, fix.from) + fix.insert + broken.slice(fix.to);
  return { fix, fixed, check: checkSpec(fixed) };
}

describe('quickFixes', () => {
  it.each([
    ['a reference type', '| book           | Book ', '| book           | Bok '],
    ['a screen filter field', 'Loan where borrower = me', 'Loan where borower = me'],
    ['a role in a screen', '| staff, member |', '| staf, member |'],
    ['a state in a transition', '| out, overdue | returned |', '| out, overdu | returned |'],
  ])('puts the expected name in place of a misspelt %s', (_what, find, replace) => {
    const { fix, fixed, check } = plantAndFix(find, replace);
    expect(fix.title).toMatch(/^Change ".+" to ".+"$/);
    expect(check.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(fixed.length).toBeGreaterThan(0);
  });

  it('offers nothing for a diagnostic without a "did you mean"', () => {
    const broken = source.replace('# Specification: Lending desk', '# Specification: Lending desk\n\n## 12. Extra');
    for (const d of checkSpec(broken).diagnostics) {
      if (d.expected.length === 0) expect(quickFixes(broken, d)).toEqual([]);
    }
  });

  it('finds offsets by line and column, and null past the end of a line', () => {
    expect(offsetAt('ab\ncd', 2, 2)).toBe(4);
    expect(offsetAt('ab\ncd', 1, 3)).toBe(2);
    expect(offsetAt('ab\ncd', 1, 9)).toBeNull();
    expect(offsetAt('ab', 3, 1)).toBeNull();
  });
  it('replaces the whole misspelt word in a cell with escaped pipes before it', () => {
    const expenses = readFileSync(new URL('../../../examples/expenses.md', import.meta.url), 'utf8');
    const broken = expenses.replace('\\|\\| category ==', '\\|\\| ctegory ==');
    expect(broken).not.toBe(expenses);
    const diagnostic = checkSpec(broken).diagnostics.find((d) => d.expected.includes('category'));
    if (!diagnostic) throw new Error('no diagnostic for "ctegory"');
    const [fix] = quickFixes(broken, diagnostic);
    expect(fix).toMatchObject({ title: 'Change "ctegory" to "category"', insert: 'category' });
    if (!fix) throw new Error('no fix');
    expect(broken.slice(0, fix.from) + fix.insert + broken.slice(fix.to)).toBe(expenses);
  });
});
