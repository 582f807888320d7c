import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';

const sketch = readFileSync(new URL('../test/fixtures/sketch.md', import.meta.url), 'utf8');

/** The sketch with its Loan transitions table and error catalogue replaced. */
function withGuards(transitions: string, catalogue: string): string {
  const machine = sketch.slice(sketch.indexOf('| transition | from |'), sketch.indexOf('\n\n## 5.'));
  const errors = sketch.slice(sketch.indexOf('| code | status |'), sketch.indexOf('\n\n## 9.'));
  return sketch.replace(machine, () => transitions.trim()).replace(errors, () => catalogue.trim());
}

const CATALOGUE = `
| code | status | message |
|---|---|---|
| DUE_IN_PAST | 422 | The due date must be in the future. |
| LOAN_LIMIT | 409 | A member may hold at most {MAX_LOANS} books at once. |
| NO_COPIES | 409 | No copies of this book are left to lend ({transition}, due {due}). |
`;

describe('a guard’s own error code', () => {
  it('is read from the error column, and its code counts as used', () => {
    const { model, diagnostics } = checkSpec(
      withGuards(
        `
| transition | from | to | who | when | error code |
|---|---|---|---|---|---|
| lend | (new) | out | staff | book.copies > 0 | NO_COPIES |
| return | out, overdue | returned | staff | | |
| mark overdue | out | overdue | staff | now > due | FORBIDDEN |
`,
        CATALOGUE,
      ),
    );
    expect(diagnostics).toEqual([]);
    expect(model.machines[0]?.transitions.map((t) => [t.name, t.error])).toEqual([
      ['lend', 'NO_COPIES'],
      ['return', null],
      ['mark overdue', 'FORBIDDEN'],
    ]);
  });

  it('is an unknown-error-code when point 8 does not catalogue it, and an unused code is still reported', () => {
    const { model, diagnostics } = checkSpec(
      withGuards(
        `
| transition | from | to | who | when | error |
|---|---|---|---|---|---|
| lend | (new) | out | staff | book.copies > 0 | NO_COPIS |
| return | out, overdue | returned | staff | | |
| mark overdue | out | overdue | staff | now > due | |
`,
        CATALOGUE,
      ),
    );
    expect(diagnostics.map((d) => [d.code, d.expected])).toEqual([
      ['unknown-error-code', ['NO_COPIES']],
      ['unused-error-code', []],
    ]);
    expect(model.machines[0]?.transitions[0]?.error).toBeNull();
  });

  it('lets its message name the fields of the guarded entity', () => {
    const { diagnostics } = checkSpec(
      withGuards(
        `
| transition | from | to | who | when | code |
|---|---|---|---|---|---|
| lend | (new) | out | staff | book.copies > 0 | NO_COPIES |
| return | out, overdue | returned | staff | | |
| mark overdue | out | overdue | staff | now > due | |
`,
        CATALOGUE.replace('due {due}', 'due {due}, for {borrower} {copies}'),
      ),
    );
    // `copies` is Book's, not Loan's: a guard on Loan cannot fill it.
    expect(diagnostics.map((d) => [d.code, d.message])).toEqual([
      [
        'unknown-placeholder',
        'The message of NO_COPIES uses {copies}, which names no constant or field it could be filled from.',
      ],
    ]);
  });
});
