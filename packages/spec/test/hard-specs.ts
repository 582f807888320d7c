import { readFileSync } from 'node:fs';
import { MAX_SPEC_BYTES } from '../src/check.ts';

/**
 * Specs that are hard to check: huge tables and pathological inputs. The fuzz suite checks that
 * the checker survives them (without hanging); `npm run bench -- check` measures how long they take.
 */

/** The sketch from the design document's section "The spec format" (it checks with no diagnostics). */
export const sketch = readFileSync(new URL('./fixtures/sketch.md', import.meta.url), 'utf8');

// ---------------------------------------------------------------------------------------------
// Huge tables: 5,000 rows of each kind, appended to the sketch
// ---------------------------------------------------------------------------------------------

const HUGE_ROWS = 5000;
const rows = (f: (i: number) => string) => Array.from({ length: HUGE_ROWS }, (_, i) => f(i)).join('\n');
const after = (anchor: string, added: string) => sketch.replace(anchor, () => `${anchor}\n${added}`);
const before = (anchor: string, added: string) => sketch.replace(anchor, () => `${added}\n${anchor}`);
const COPIES = '| copies | integer | required, 0..MAX_COPIES, default 1 |';

/** The sketch with 5,000 rows added to one of its tables, per table. */
export const HUGE_TABLE_SPECS: [string, () => string][] = [
  [
    'screens',
    () =>
      after(
        '| /my/loans | list | Loan where borrower = me | member |',
        rows((i) => `| /s${i}/:id | detail | Book | staff |`),
      ),
  ],
  [
    'fields',
    () =>
      after(
        COPIES,
        rows((i) => `| f${i} | integer | required, 0..MAX_COPIES |`),
      ),
  ],
  [
    'field rules',
    () =>
      after(
        COPIES,
        rows((i) => `| f${i} | integer | required, 0..MAX_COPIES |`),
      ).replace('| loan limit |', (m) =>
        [rows((i) => `| r${i} | Book.f${i} | value > 0 | LOAN_LIMIT |`), m].join('\n'),
      ),
  ],
  [
    'entities',
    () =>
      before(
        '### Loan\n',
        rows((i) => `### E${i}\n| field | type |\n|---|---|\n| link | ${i ? `E${i - 1}` : 'Book'} |\n`),
      ),
  ],
  [
    'transitions',
    () =>
      after(
        '| mark overdue | out | overdue | staff | now > due |',
        rows((i) => `| t${i} | ${i ? `s${i - 1}` : 'out'} | s${i} | staff | now > due |`),
      ),
  ],
  [
    'rules',
    () =>
      before(
        '| loan limit |',
        rows((i) => `| r${i} | Loan | due > today && book.copies > ${i} | LOAN_LIMIT |`),
      ),
  ],
  [
    'roles',
    () =>
      after(
        '| member | read | read own |',
        rows((i) => `| r${i} | read | read own |`),
      ),
  ],
  [
    'calls',
    () =>
      after(
        '| POST | /api/loans/:id/return | | Loan: return |',
        rows((i) => `| GET | /api/c${i}/:id | | get Book |`),
      ),
  ],
  [
    'errors',
    () =>
      before(
        '| LOAN_LIMIT | 409 |',
        rows((i) => `| E_${i} | 422 | {MAX_LOANS} {title} {x${i}} |`),
      ),
  ],
  [
    'constants',
    () =>
      before(
        '| MAX_COPIES | 50 |',
        rows((i) => `| C_${i} | ${i} days | |`),
      ),
  ],
  ['a table outside any point', () => `${sketch}\n${rows((i) => `| ${'|'.repeat(i % 50)} ${i} |`)}`],
  [
    // Every entity with an expression gets its own environment; each must not hold every constant anew.
    'constants, and 2,000 entities that each have a rule',
    () =>
      before(
        '| MAX_COPIES | 50 |',
        rows((i) => `| C_${i} | ${i} | |`),
      )
        .replace('### Loan\n', (m) =>
          [
            Array.from({ length: 2000 }, (_, i) => `### E${i}\n| field | type |\n|---|---|\n| n | integer |\n`).join(
              '\n',
            ),
            m,
          ].join('\n'),
        )
        .replace('| loan limit |', (m) =>
          [Array.from({ length: 2000 }, (_, i) => `| e${i} | E${i} | n > C_${i} | LOAN_LIMIT |`).join('\n'), m].join(
            '\n',
          ),
        ),
  ],
];

const guard = (expression: string) => sketch.replace('book.copies > 0', () => expression);
/** Inputs that once made the checker slow or crash (docs/benchmarks.md), as builders. */
export const PATHOLOGICAL_SPECS: [string, () => string][] = [
  ['100,000 nested parentheses in a guard', () => guard(`${'('.repeat(100_000)}1${')'.repeat(100_000)}`)],
  ['100,000 unclosed brackets in a guard', () => guard('['.repeat(100_000))],
  ['a 10,000-term && chain in a guard', () => guard(Array(10_000).fill('book.copies > 0').join(' && '))],
  [
    '200,000 backticks around a type',
    () => sketch.replace('| book | Book |', () => `| book | ${'`'.repeat(200_000)}x |`),
  ],
  ['a 500,000-deep blockquote', () => `${'>'.repeat(500_000)}\n${sketch}`],
  [
    'a line of 1,000,000 pipes',
    () => sketch.replace('| title | text |', () => `${'|'.repeat(1_000_000)} title | text |`),
  ],
  [
    'a 1.9 MB spec just under the size limit',
    () => `${sketch}\n${'x '.repeat(Math.floor((MAX_SPEC_BYTES - sketch.length) / 2) - 10)}`,
  ],
  ['a spec just over the size limit', () => `${sketch}${'x'.repeat(MAX_SPEC_BYTES)}`],
  [
    'a field name with 50,000 underscores inside it',
    () => sketch.replace('| title | text |', () => `| t${'_'.repeat(50_000)}x | text |`),
  ],
  [
    'a pattern with a lookahead and a default',
    () =>
      sketch.replace(
        '| title | text |',
        () => '| title | text | default a1, pattern `^(?=.*[0-9]).+$` |\n| x | text |',
      ),
  ],
  [
    'a pattern with a backreference and a default',
    () => sketch.replace('| title | text |', () => '| title | text | default aa, pattern `^(a)\\1$` |\n| x | text |'),
  ],
  [
    // Exponential backtracking: checking the default against the pattern must not run it unboundedly.
    'a catastrophic-backtracking pattern with a default',
    () =>
      sketch.replace(
        '| isbn | text | required, unique, pattern ^97[89][0-9]{10}$ |',
        () => `| isbn | text | default ${'a'.repeat(29)}!, pattern ^(a+)+$ |`,
      ),
  ],
];
