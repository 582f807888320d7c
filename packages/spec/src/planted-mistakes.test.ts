import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import type { DiagnosticCode } from './diagnostic-codes.ts';

/** The design sketch, extended with a states table, a few more fields, rules and a screen. */
const correct = `# Specification: Lending desk

## 1. What the product does and for whom
Lets the staff of a small library lend books to members. Members see their own loans.

## 2. Screens and routes
| route | screen | shows | who |
|---|---|---|---|
| /books | list | Book | staff, member |
| /books/:id | detail | Book | staff, member |
| /loans | board | Loan | staff |
| /loans/:id | detail | Loan | staff |
| /my/loans | list | Loan where borrower = me | member |

## 3. Entities and their fields
### Book
| field | type | rules |
|---|---|---|
| title | text | required, 1..200 characters |
| isbn | text | required, unique, pattern ^97[89][0-9]{10}$ |
| copies | integer | required, 0..MAX_COPIES, default 1 |
| shelf | text | optional, pattern \`^[A-Z]{2,3}$\` |
| condition | choice of new, good, worn | default good |
| price | decimal(2) | at least 0, at most 1000 |
| pages | integer | 1..5000 |

### Loan
| field | type | rules |
|---|---|---|
| book | Book | required |
| borrower | User | required |
| due | date | required |
| note | long text | at most 500 characters |
| returned_on | date | optional |

## 4. States and transitions
### Loan
| state | meaning |
|---|---|
| out | lent and not yet due |
| overdue | past its due date |
| returned | back on the shelf |

| transition | from | to | who | when |
|---|---|---|---|---|
| lend | (new) | out | staff | book.copies > 0 |
| return | out, overdue | returned | staff | |
| mark overdue | out | overdue | staff | now > due |

## 5. Validation rules
| rule | applies to | condition | error |
|---|---|---|---|
| due in the future | Loan | due > today | DUE_IN_PAST |
| loan limit | Loan | at most MAX_LOANS Loan in state out per borrower | LOAN_LIMIT |
| title has a letter | Book | size(title) > 0 | VALIDATION_FAILED |
| fair price | Book | price >= 0.0 | OUT_OF_RANGE |
| short note | Loan.note | size(value) <= 500 | TOO_LONG |

## 6. Roles and permissions
| role | Book | Loan |
|---|---|---|
| staff | create, read, update, delete | create, read, update |
| member | read | read own |

## 7. The calls it makes
| method | path | payload | does |
|---|---|---|---|
| GET | /api/books | | list Book |
| POST | /api/books | Book | create Book |
| POST | /api/loans/:id/return | | Loan: return |

## 8. The error catalogue
| code | status | message |
|---|---|---|
| DUE_IN_PAST | 422 | The due date must be in the future. |
| LOAN_LIMIT | 409 | A member may hold at most {MAX_LOANS} books at once. |

## 9. Business constants and limits
| name | value | meaning |
|---|---|---|
| MAX_LOANS | 5 | books a member may hold at once |
| MAX_COPIES | 50 | copies of one title |
`;

/**
 * One planted mistake: `find` (unique in the correct spec) becomes `replace`, whose first
 * occurrence of `token` is where the diagnostic must point. `expected` is the did-you-mean list.
 */
interface Mistake {
  kind: string;
  code: DiagnosticCode;
  find: string;
  replace: string;
  token: string;
  expected?: string[];
}

const mistakes: Mistake[] = [
  {
    kind: 'a screen showing an unknown entity',
    code: 'unknown-entity',
    find: '| /books/:id | detail | Book |',
    replace: '| /books/:id | detail | Bok |',
    token: 'Bok',
    expected: ['Book'],
  },
  {
    kind: 'a field rule targeting an unknown field',
    code: 'unknown-field',
    find: '| short note | Loan.note |',
    replace: '| short note | Loan.note_text |',
    token: 'note_text',
  },
  {
    kind: 'an unknown role in who',
    code: 'unknown-role',
    find: '| /loans | board | Loan | staff |',
    replace: '| /loans | board | Loan | staf |',
    token: 'staf',
    expected: ['staff'],
  },
  {
    kind: 'an unknown state in a limit',
    code: 'unknown-state',
    find: 'in state out per borrower',
    replace: 'in state lent per borrower',
    token: 'lent',
  },
  {
    kind: 'an unknown constant in a range',
    code: 'unknown-constant',
    find: 'at least 0, at most 1000',
    replace: 'at least 0, at most MAX_PRICE',
    token: 'MAX_PRICE',
  },
  {
    kind: 'an uncatalogued error code',
    code: 'unknown-error-code',
    find: '| OUT_OF_RANGE |',
    replace: '| OUT_OF_RANG |',
    token: 'OUT_OF_RANG',
    expected: ['OUT_OF_RANGE'],
  },
  {
    kind: 'a duplicate field',
    code: 'duplicate-name',
    find: '| shelf | text |',
    replace: '| isbn | text | optional |\n| shelf | text |',
    token: 'isbn',
  },
  {
    kind: 'a duplicate entity',
    code: 'duplicate-name',
    find: '### Loan\n| field',
    replace: '### Book\n| field | type |\n|---|---|\n| name | text |\n\n### Loan\n| field',
    token: 'Book',
  },
  {
    kind: 'an unreachable state',
    code: 'unreachable-state',
    find: '| returned | back on the shelf |',
    replace: '| returned | back on the shelf |\n| lost | never came back |',
    token: 'lost',
  },
  {
    kind: 'a bad screen kind',
    code: 'invalid-screen',
    find: '| /books | list |',
    replace: '| /books | lists |',
    token: 'lists',
    expected: ['list'],
  },
  {
    kind: 'a detail route without :id',
    code: 'invalid-route',
    find: '| /loans/:id | detail |',
    replace: '| /loans/latest | detail |',
    token: '/loans/latest',
  },
  {
    kind: 'an invalid field type',
    code: 'unknown-type',
    find: '| returned_on | date |',
    replace: '| returned_on | dat |',
    token: 'dat',
    expected: ['date'],
  },
  {
    kind: 'a pattern that is not a valid regex',
    code: 'invalid-pattern',
    find: 'pattern `^[A-Z]{2,3}$`',
    replace: 'pattern `^[A-Z{2,3}$`',
    token: 'pattern',
  },
  {
    kind: 'a default that is not one of the choices',
    code: 'invalid-default',
    find: 'default good',
    replace: 'default mint',
    token: 'mint',
  },
  {
    kind: 'a CEL syntax error in a guard',
    code: 'expression-syntax',
    find: 'now > due',
    replace: 'now > > due',
    token: '> due',
  },
  {
    kind: 'a CEL type error (a string compared with an int)',
    code: 'expression-type',
    find: 'size(title) > 0',
    replace: 'title > 0',
    token: 'title > 0',
  },
  {
    kind: 'an unknown field inside a CEL expression',
    code: 'unknown-field',
    find: 'book.copies > 0',
    replace: 'book.copis > 0',
    token: 'copis',
    expected: ['copies'],
  },
  {
    kind: 'an invalid status code',
    code: 'invalid-status',
    find: '| DUE_IN_PAST | 422 |',
    replace: '| DUE_IN_PAST | 309 |',
    token: '309',
  },
  {
    kind: 'an unknown constant placeholder in a message',
    code: 'unknown-constant',
    find: '{MAX_LOANS} books',
    replace: '{MAX_LONS} books',
    token: '{MAX_LONS}',
    expected: ['MAX_LOANS'],
  },
  {
    kind: 'an invalid permission word',
    code: 'invalid-permission',
    find: '| member | read | read own |',
    replace: '| member | read | read owned |',
    token: 'read owned',
    expected: ['read own'],
  },
];

/** Replaces the unique `find` (a function replacer, so `$` in the text is taken literally). */
function plant(source: string, mistake: Mistake): string {
  const at = source.indexOf(mistake.find);
  if (at < 0 || source.indexOf(mistake.find, at + 1) >= 0) {
    throw new Error(`"${mistake.find}" must occur exactly once (${mistake.kind})`);
  }
  return source.replace(mistake.find, () => mistake.replace);
}

/** 1-based line and column of the mistake's token: its first occurrence in the (unique) replaced text. */
function position(source: string, mistake: Mistake): { line: number; column: number } {
  const start = source.indexOf(mistake.replace);
  if (start < 0 || source.indexOf(mistake.replace, start + 1) >= 0) {
    throw new Error(`"${mistake.replace}" must occur exactly once (${mistake.kind})`);
  }
  const at = start + mistake.replace.indexOf(mistake.token);
  const lines = source.slice(0, at).split('\n');
  const lineText = source.split('\n')[lines.length - 1] ?? '';
  const column = (lines.at(-1) ?? '').length + 1;
  // The same position found the other way round: the line by content, the column by indexOf.
  expect(lineText.indexOf(mistake.token, column - 1)).toBe(column - 1);
  return { line: lines.length, column };
}

const expectation = (source: string, m: Mistake) => ({
  code: m.code,
  ...position(source, m),
  ...(m.expected ? { expected: m.expected } : {}),
});

const byPosition = (a: { line: number; column: number }, b: { line: number; column: number }) =>
  a.line - b.line || a.column - b.column;

describe('a spec with planted mistakes', () => {
  it('starts from a correct spec with no diagnostics at all', () => {
    const { diagnostics, ok } = checkSpec(correct);
    expect(diagnostics).toEqual([]);
    expect(ok).toBe(true);
  });

  it('plants twenty mistakes of twenty different kinds', () => {
    expect(mistakes).toHaveLength(20);
    expect(new Set(mistakes.map((m) => m.kind)).size).toBe(20);
  });

  it.each(mistakes)('reports $kind alone, with $code at the offending token', (mistake) => {
    const source = plant(correct, mistake);
    const { diagnostics, ok } = checkSpec(source);
    expect(ok).toBe(false);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject(expectation(source, mistake));
  });

  it('reports all twenty mistakes together, exactly one diagnostic each, at the offending tokens', () => {
    const mistaken = mistakes.reduce(plant, correct);
    const { diagnostics } = checkSpec(mistaken);
    const expected = mistakes.map((m) => expectation(mistaken, m)).sort(byPosition);
    expect(diagnostics).toHaveLength(20);
    expect(diagnostics.every((d) => d.severity === 'error')).toBe(true);
    diagnostics.forEach((d, i) => {
      expect(d, `diagnostic ${i + 1} of 20`).toMatchObject(expected[i] ?? {});
    });
  });
});

/** Mistakes the checker once reported imprecisely (or not at all): each is pinned to its token. */
describe('planted mistakes that need the exact item within a cell', () => {
  const imprecise: Mistake[] = [
    {
      kind: 'a range whose minimum is above its maximum, after another rule',
      code: 'invalid-range',
      find: '| pages | integer | 1..5000 |',
      replace: '| pages | integer | optional, 5000..1 |',
      token: '5000..1',
    },
    {
      // The guard (book.copies), the calls and the limit per borrower still use book: one diagnostic, not three.
      kind: 'a misspelt entity as a field type, the field used later',
      code: 'unknown-entity',
      find: '| book | Book | required |',
      replace: '| book | Bok | required |',
      token: 'Bok',
      expected: ['Book'],
    },
    {
      kind: 'a misspelt type of a field that a guard and a call use',
      code: 'unknown-type',
      find: '| copies | integer |',
      replace: '| copies | integr |',
      token: 'integr',
      expected: ['integer'],
    },
    {
      kind: 'a call whose method does not fit its action',
      code: 'call-mismatch',
      find: '| POST | /api/books | Book |',
      replace: '| PUT | /api/books | Book |',
      token: 'PUT',
    },
    {
      kind: 'a screen filter whose value is a bare word (only me, states, choices, numbers, booleans, "text")',
      code: 'invalid-filter',
      find: 'where borrower = me',
      replace: 'where borrower = you',
      token: 'you',
    },
  ];

  it('can plant each of them exactly once, with only diagnostics of its kind', () => {
    for (const mistake of imprecise) {
      const source = plant(correct, mistake);
      expect(position(source, mistake).line).toBeGreaterThan(1);
      expect(checkSpec(source).diagnostics.every((d) => d.code === mistake.code)).toBe(true);
    }
  });

  it.each(imprecise)('reports $kind with $code at the offending token', (mistake) => {
    const source = plant(correct, mistake);
    const { diagnostics } = checkSpec(source);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject(expectation(source, mistake));
  });
});
