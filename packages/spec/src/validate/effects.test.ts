import { describe, expect, it } from 'vitest';
import { checkSpec } from '../check.ts';

/** A lending desk whose transitions set what `sets` gives; `calls` is point 7. */
function desk(sets: { renew?: string; ret?: string; lend?: string } = {}, calls = 'Not shown.'): string {
  return `# Specification: Lending desk

## 3. Entities and their fields

### Book

| field  | type    | rules    |
| ------ | ------- | -------- |
| title  | text    | required |

### Loan

| field       | type                  | rules                      |
| ----------- | --------------------- | -------------------------- |
| book        | Book                  | required                   |
| due         | date                  | required                   |
| renewals    | integer               | 0..MAX_RENEWALS, default 0 |
| returned_by | User                  |                            |
| returned_at | datetime              |                            |
| shelf       | choice of main, annex |                            |
| note        | text                  |                            |

## 4. States and transitions

### Loan

| transition | from  | to       | when                     | sets |
| ---------- | ----- | -------- | ------------------------ | ---- |
| lend       | (new) | out      |                          | ${sets.lend ?? ''} |
| renew      | out   | out      | renewals < MAX_RENEWALS  | ${sets.renew ?? ''} |
| return     | out   | returned |                          | ${sets.ret ?? ''} |

## 7. The calls it makes

${calls}

## 9. Business constants and limits

| name         | value   |
| ------------ | ------- |
| MAX_RENEWALS | 2       |
| LOAN_PERIOD  | 21 days |
`;
}

const problems = (source: string) =>
  checkSpec(source)
    .diagnostics.filter((d) => d.code !== 'missing-section' && d.code !== 'unused-constant')
    .map((d) => ({ code: d.code, severity: d.severity, message: d.message, hint: d.hint, expected: d.expected }));

/** The text a diagnostic points at. */
function marked(source: string, code: string): string[] {
  return checkSpec(source)
    .diagnostics.filter((d) => d.code === code)
    .map((d) => {
      const lines = source.split('\n');
      return (lines[d.line - 1] ?? '').slice(d.column - 1, d.endColumn - 1);
    });
}

describe("a transition's sets", () => {
  it('reads each "field = expression" into the model, separated by ";"', () => {
    const source = desk({
      renew: 'due = due + LOAN_PERIOD; renewals = renewals + 1',
      ret: '`returned_by = user`; returned_at = now; note = "back; on time"; shelf = "annex"',
    });
    const { model, diagnostics, ok } = checkSpec(source);
    expect(diagnostics.filter((d) => d.code !== 'missing-section')).toEqual([]);
    expect(ok).toBe(true);
    const transitions = model.machines[0]?.transitions ?? [];
    expect(transitions.find((t) => t.name === 'renew')?.sets?.map((a) => [a.field, a.source])).toEqual([
      ['due', 'due + LOAN_PERIOD'],
      ['renewals', 'renewals + 1'],
    ]);
    expect(transitions.find((t) => t.name === 'return')?.sets?.map((a) => [a.field, a.source])).toEqual([
      ['returned_by', 'user'],
      ['returned_at', 'now'],
      ['note', '"back; on time"'],
      ['shelf', '"annex"'],
    ]);
    expect(transitions.find((t) => t.name === 'lend')?.sets).toBeUndefined();
  });

  it('points at each part of the cell exactly', () => {
    const source = desk({ renew: 'due = due + LOAN_PERIOD; renewals = renewals + 1' });
    const renew = checkSpec(source).model.machines[0]?.transitions.find((t) => t.name === 'renew');
    const line = source.split('\n')[(renew?.sets?.[1]?.span.line ?? 0) - 1] ?? '';
    const text = (span: { column: number; endColumn: number }) => line.slice(span.column - 1, span.endColumn - 1);
    expect(renew?.sets?.map((a) => [text(a.span), text(a.fieldSpan), text(a.sourceSpan)])).toEqual([
      ['due = due + LOAN_PERIOD', 'due', 'due + LOAN_PERIOD'],
      ['renewals = renewals + 1', 'renewals', 'renewals + 1'],
    ]);
  });

  it('refuses an entry that is not "field = expression", with the grammar as hint', () => {
    const source = desk({ renew: 'renewals + 1; due == today; = today; renewals =' });
    expect(problems(source).map((p) => [p.code, p.message])).toEqual([
      ['invalid-assignment', 'Transition "renew" sets "renewals + 1", which is not "field = expression".'],
      ['invalid-assignment', 'Transition "renew" sets "due == today", which is not "field = expression".'],
      ['invalid-assignment', 'Transition "renew" sets "", which is not a field name.'],
      ['invalid-assignment', 'Transition "renew" sets renewals to nothing.'],
    ]);
    expect(problems(source)[0]?.hint).toMatch(/field = expression.*decided_by = user; decided_on = today/);
  });

  it('refuses setting a field twice, and any sets on the creating transition', () => {
    const source = desk({ renew: 'renewals = 1; renewals = 2', lend: 'renewals = 0' });
    expect(problems(source).map((p) => [p.code, p.message, p.hint])).toEqual([
      [
        'invalid-assignment',
        '"lend" creates the Loan, so it cannot set fields as it is taken.',
        'Give the field a default in point 3 ("default today", "default now", "default me"), or set it in a later transition.',
      ],
      ['invalid-assignment', 'Transition "renew" sets renewals twice.', 'Keep one assignment per field.'],
    ]);
  });

  it('refuses system fields, at the field', () => {
    const source = desk({ renew: 'state = "out"; updated_at = now; created_by = user; id = "x"' });
    expect(problems(source).map((p) => [p.code, p.message])).toEqual([
      ['system-field-assignment', 'Transition "renew" sets state, which Ninepoint keeps itself.'],
      ['system-field-assignment', 'Transition "renew" sets updated_at, which Ninepoint keeps itself.'],
      ['system-field-assignment', 'Transition "renew" sets created_by, which Ninepoint keeps itself.'],
      ['system-field-assignment', 'Transition "renew" sets id, which Ninepoint keeps itself.'],
    ]);
    expect(problems(source)[0]?.hint).toBe('The state changes through the transition\'s "to" column.');
    expect(marked(source, 'system-field-assignment')).toEqual(['state', 'updated_at', 'created_by', 'id']);
  });

  it('refuses an unknown field with a suggestion, and an unknown name in the expression', () => {
    const source = desk({ renew: 'renewal = renewals + 1; due = due + LOAN_PERIODS' });
    const found = problems(source);
    expect(found.map((p) => [p.code, p.message, p.expected])).toEqual([
      ['unknown-field', 'Transition "renew" sets renewal, which Loan does not have.', ['renewals']],
      [
        'unknown-constant',
        '"due = …" of "renew" uses "LOAN_PERIODS", which is not a constant in point 9.',
        ['LOAN_PERIOD'],
      ],
    ]);
    expect(marked(source, 'unknown-field')).toEqual(['renewal']);
  });

  it('refuses a value of the wrong type, at the expression, with a hint for the field type', () => {
    const source = desk({
      renew: 'due = user; renewals = renewals + 0.5; returned_by = book; returned_at = "now"',
      ret: 'shelf = "attic"; due = null; note = null',
    });
    const found = problems(source);
    expect(found.map((p) => [p.code, p.message])).toEqual([
      ['assignment-type', 'Transition "renew" sets due (date) to "user", which is User.'],
      ['expression-type', expect.stringContaining('"renewals = …" of "renew" does not type-check')],
      ['assignment-type', 'Transition "renew" sets returned_by (User) to "book", which is Book.'],
      ['assignment-type', 'Transition "renew" sets returned_at (datetime) to ""now"", which is a string.'],
      ['assignment-type', 'Transition "return" sets shelf to "attic", which is not one of its choices.'],
      ['assignment-type', 'Transition "return" sets due (date) to "null", which is null.'],
    ]);
    expect(found.map((p) => p.hint)).toEqual([
      'A date or date-time takes today, now, another date field, or a date plus a duration constant (due + LOAN_PERIOD).',
      expect.any(String),
      'returned_by refers to a User: set it to user (who takes the transition), created_by, or another User field.',
      'A date or date-time takes today, now, another date field, or a date plus a duration constant (due + LOAN_PERIOD).',
      'shelf is one of main, annex.',
      'due is required, so it cannot be emptied.',
    ]);
    expect(marked(source, 'assignment-type')).toEqual(['user', 'book', '"now"', '"attic"', 'null']);
  });

  it("warns when the transition's call carries a field it sets", () => {
    const calls = `| method | path | payload | does |
| ------ | ---- | ------- | ---- |
| POST   | /api/loans | Loan | create Loan |
| POST   | /api/loans/:id/renew | Loan (due, note) | Loan: renew |
| POST   | /api/loans/:id/return | | Loan: return |`;
    const found = problems(desk({ renew: 'due = due + LOAN_PERIOD' }, calls));
    expect(found.map((p) => [p.code, p.severity, p.message])).toEqual([
      [
        'set-field-in-payload',
        'warning',
        'The call of "renew" carries due in its payload, but the transition sets it: the value sent is replaced.',
      ],
    ]);
  });

  it('counts a field a transition sets as set, so a guard needing it is not "never set"', () => {
    const roles = `## 6. Roles and permissions

| role  | Book | Loan                     |
| ----- | ---- | ------------------------ |
| staff | all  | create (book, due), read |

## 7. The calls it makes`;
    const guarded = (sets: string) =>
      desk({ ret: sets })
        .replace(
          '| renew      | out   | out      | renewals < MAX_RENEWALS  |',
          '| renew      | out   | out      | returned_by == user      |',
        )
        .replace('## 7. The calls it makes', roles);
    const neverSet = (source: string) =>
      checkSpec(source)
        .diagnostics.filter((d) => d.code === 'guard-field-never-set')
        .map((d) => d.message);
    expect(neverSet(guarded(''))).toEqual([
      'The guard of "renew" needs Loan.returned_by, which nothing ever sets, so it can never hold.',
    ]);
    expect(neverSet(guarded('returned_by = user'))).toEqual([]);
  });
});
