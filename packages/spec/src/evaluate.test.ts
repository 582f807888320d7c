import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import {
  type CelUser,
  chainsOf,
  compileExpressions,
  LoadPending,
  type RecordLoader,
  type RecordValues,
} from './evaluate.ts';
import type { Model } from './model.ts';

/** A lending desk with optional fields, a duration constant, a field rule and guards about the user. */
const SPEC = `# Specification: Lending desk

## 3. Entities and their fields

### Book

| field  | type    | rules                              |
| ------ | ------- | ---------------------------------- |
| title  | text    | required, 1..200 characters        |
| copies | integer | required, 0..MAX_COPIES, default 1 |

### Loan

| field    | type    | rules    |
| -------- | ------- | -------- |
| book     | Book    | required |
| borrower | User    | required |
| due      | date    | required |
| note     | text    |          |
| fee      | decimal |          |
| renewals | integer |          |

## 4. States and transitions

### Loan

| transition   | from         | to       | who   | when                                      |
| ------------ | ------------ | -------- | ----- | ----------------------------------------- |
| lend         | (new)        | out      | staff | book.copies > 0                           |
| renew        | out          | out      | staff | renewals < MAX_RENEWALS                   |
| return       | out, overdue | returned | staff | "staff" in user.roles                     |
| mark overdue | out          | overdue  | staff | now > due                                 |
| forgive      | overdue      | returned | staff | created_by.id == user.id                  |

## 5. Validation rules

| rule              | applies to | condition                  | error        |
| ----------------- | ---------- | -------------------------- | ------------ |
| due in the future | Loan       | due > today                | DUE_IN_PAST  |
| short note        | Loan       | size(note) < 5             | DUE_IN_PAST  |
| fee rule          | Loan.fee   | value < 2.5                | DUE_IN_PAST  |
| soon              | Loan       | due - today < GRACE        | DUE_IN_PAST  |
| members only      | Loan       | "member" in borrower.roles | NOT_A_MEMBER |

## 6. Roles and permissions

| role   | Book | Loan                 |
| ------ | ---- | -------------------- |
| staff  | all  | create, read, update |
| member | read | read own             |

## 8. The error catalogue

| code         | status | message                             |
| ------------ | ------ | ----------------------------------- |
| DUE_IN_PAST  | 422    | The due date must be in the future. |
| NOT_A_MEMBER | 422    | Only members may borrow.            |

## 9. Business constants and limits

| name         | value  | meaning             |
| ------------ | ------ | ------------------- |
| MAX_COPIES   | 50     | copies of one title |
| MAX_RENEWALS | 2      | renewals of a loan  |
| GRACE        | 3 days | grace               |
`;

const BOOK_ID = '0190f3c4-7a2b-7c3d-8e4f-00000000000b';
const MEMBER_ID = '0190f3c4-7a2b-7c3d-8e4f-0000000000a1';
const VISITOR_ID = '0190f3c4-7a2b-7c3d-8e4f-0000000000a2';
const records: Record<string, Record<string, RecordValues>> = {
  Book: { [BOOK_ID]: { id: BOOK_ID, title: 'Dune', copies: 2 } },
  // Users load as the server's users table gives them: roles as JSON text.
  User: {
    [MEMBER_ID]: { id: MEMBER_ID, email: 'mo@example.com', name: 'Mo', roles: '["member"]' },
    [VISITOR_ID]: { id: VISITOR_ID, email: 'vi@example.com', name: 'Vi', roles: '[]' },
  },
};
const load: RecordLoader = (entity, id) => records[entity]?.[id];
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const loan = (extra: Record<string, RecordValues[string]> = {}): RecordValues => ({
  id: 'l1',
  state: 'out',
  created_by: MEMBER_ID,
  book: BOOK_ID,
  borrower: MEMBER_ID,
  due: day(2),
  note: null,
  fee: null,
  renewals: 0,
  ...extra,
});
const staff: CelUser = { id: 's1', email: 'sam@example.com', name: 'Sam', roles: ['staff'] };

function modelOf(source: string): Model {
  const { model, ok, diagnostics } = checkSpec(source);
  if (!ok) throw new Error(diagnostics.map((d) => `${d.line}: ${d.message}`).join('\n'));
  return model;
}

describe('compiled expressions', () => {
  const compiled = compileExpressions(modelOf(SPEC));
  const evaluator = compiled.entities.get('Loan');
  if (!evaluator) throw new Error('no Loan');
  const guard = (name: string) => {
    const found = compiled.guards.get('Loan')?.get(name);
    if (!found) throw new Error(`no guard ${name}`);
    return found;
  };
  const rule = (name: string) => {
    const found = compiled.rules.get(name);
    if (!found) throw new Error(`no rule ${name}`);
    return found;
  };

  it('compiles every guard and expression rule once, with the field chains they mention', () => {
    expect([...(compiled.guards.get('Loan')?.keys() ?? [])]).toEqual([
      'lend',
      'renew',
      'return',
      'mark overdue',
      'forgive',
    ]);
    expect(guard('lend').chains).toEqual([['book', 'copies']]);
    expect(rule('due in the future').chains).toEqual([['due']]);
    expect(rule('fee rule').chains).toEqual([['value']]);
    expect(rule('members only').chains).toEqual([['borrower', 'roles']]);
  });

  it('holds or fails on the record, loading references, with integers as ints and dates as timestamps', () => {
    expect(evaluator.evaluate(guard('lend'), loan(), load, 'guard')).toBe('holds');
    const withoutCopies: RecordLoader = (entity, id) =>
      entity === 'Book' ? { ...records.Book?.[id], copies: 0 } : load(entity, id);
    expect(evaluator.evaluate(guard('lend'), loan(), withoutCopies, 'guard')).toBe('fails');
    expect(evaluator.evaluate(rule('due in the future'), loan(), load, 'rule')).toBe('holds');
    expect(evaluator.evaluate(rule('due in the future'), loan({ due: day(0) }), load, 'rule')).toBe('fails');
    expect(evaluator.evaluate(guard('renew'), loan({ renewals: 1 }), load, 'guard')).toBe('holds');
    expect(evaluator.evaluate(guard('renew'), loan({ renewals: 2 }), load, 'guard')).toBe('fails');
  });

  it('skips a rule that mentions an empty field or a missing record', () => {
    expect(evaluator.evaluate(rule('short note'), loan(), load, 'rule')).toBe('skipped');
    expect(evaluator.evaluate(rule('short note'), loan({ note: 'ok' }), load, 'rule')).toBe('holds');
    expect(evaluator.evaluate(rule('short note'), loan({ note: 'too long' }), load, 'rule')).toBe('fails');
    expect(evaluator.evaluate(rule('fee rule'), loan(), load, 'rule')).toBe('skipped');
    expect(evaluator.evaluate(rule('fee rule'), loan({ fee: 1.25 }), load, 'rule')).toBe('holds');
    expect(evaluator.evaluate(rule('fee rule'), loan({ fee: 3 }), load, 'rule')).toBe('fails');
    expect(evaluator.evaluate(rule('members only'), loan({ borrower: 'gone' }), load, 'rule')).toBe('skipped');
  });

  it('fails a guard that mentions an empty field or a missing record', () => {
    expect(evaluator.evaluate(guard('renew'), loan({ renewals: null }), load, 'guard')).toBe('fails');
    expect(evaluator.evaluate(guard('lend'), loan({ book: 'gone' }), load, 'guard')).toBe('fails');
    expect(evaluator.evaluate(guard('lend'), loan({ book: null }), load, 'guard')).toBe('fails');
  });

  it("sees the acting user's roles, a referenced user's roles and the record's creator", () => {
    expect(evaluator.evaluate(guard('return'), loan(), load, 'guard', staff)).toBe('holds');
    expect(evaluator.evaluate(guard('return'), loan(), load, 'guard')).toBe('fails');
    expect(evaluator.evaluate(rule('members only'), loan(), load, 'rule')).toBe('holds');
    expect(evaluator.evaluate(rule('members only'), loan({ borrower: VISITOR_ID }), load, 'rule')).toBe('fails');
    const member: CelUser = { id: MEMBER_ID, email: '', name: '', roles: [] };
    expect(evaluator.evaluate(guard('forgive'), loan(), load, 'guard', member)).toBe('holds');
    expect(evaluator.evaluate(guard('forgive'), loan(), load, 'guard', staff)).toBe('fails');
  });

  it('gives duration constants as CEL durations', () => {
    expect(evaluator.evaluate(rule('soon'), loan({ due: day(2) }), load, 'rule')).toBe('holds');
    expect(evaluator.evaluate(rule('soon'), loan({ due: day(9) }), load, 'rule')).toBe('fails');
  });

  it('fails closed when evaluation throws or a loader throws an error', () => {
    const broken: RecordLoader = () => {
      throw new Error('database gone');
    };
    expect(evaluator.evaluate(guard('lend'), loan(), broken, 'guard')).toBe('fails');
    // A value of the wrong type reaches CEL: an error, so the rule is violated.
    expect(evaluator.evaluate(rule('due in the future'), loan({ due: 'not a date' }), load, 'rule')).toBe('fails');
  });

  it("lets a loader's LoadPending through, so the caller can load and evaluate again", () => {
    class NotYet extends LoadPending {}
    const pending: RecordLoader = () => {
      throw new NotYet();
    };
    expect(() => evaluator.evaluate(guard('lend'), loan(), pending, 'guard')).toThrow(NotYet);
    expect(() => evaluator.evaluate(rule('members only'), loan(), pending, 'rule')).toThrow(NotYet);
    // An expression that loads nothing never asks.
    expect(evaluator.evaluate(rule('due in the future'), loan(), pending, 'rule')).toBe('holds');
  });
});

describe('date and date-time constants', () => {
  const model = modelOf(`# Specification: Deadlines

## 3. Entities and their fields

### Claim

| field     | type     | rules    |
| --------- | -------- | -------- |
| spent_on  | date     | required |
| filed_at  | datetime |          |

## 4. States and transitions

### Claim

| transition | from  | to        | when                                  |
| ---------- | ----- | --------- | ------------------------------------- |
| open       | (new) | draft     |                                       |
| submit     | draft | submitted | today <= DEADLINE                     |
| backdate   | draft | submitted | spent_on < timestamp(DEADLINE)        |
| file       | draft | submitted | filed_at < CUTOFF && today > LAUNCHED |

## 9. Business constants and limits

| name     | value                     |
| -------- | ------------------------- |
| DEADLINE | 2999-12-31                |
| LAUNCHED | 2001-02-03                |
| CUTOFF   | 2026-03-01T10:00:00+01:00 |
`);
  const compiled = compileExpressions(model);
  const evaluator = compiled.entities.get('Claim');
  if (!evaluator) throw new Error('no Claim');
  const guard = (name: string) => {
    const found = compiled.guards.get('Claim')?.get(name);
    if (!found) throw new Error(`no guard ${name}`);
    return found;
  };
  const claim = (extra: Record<string, RecordValues[string]> = {}): RecordValues => ({
    id: 'c1',
    state: 'draft',
    spent_on: '2026-02-01',
    filed_at: '2026-03-01T08:59:59.000Z',
    ...extra,
  });

  it('reads a date as a date and a date-time with its zone as the instant, in UTC', () => {
    expect(model.constants.map((c) => [c.name, c.type, c.value])).toEqual([
      ['DEADLINE', 'date', '2999-12-31'],
      ['LAUNCHED', 'date', '2001-02-03'],
      ['CUTOFF', 'datetime', '2026-03-01T09:00:00.000Z'],
    ]);
  });

  it('compares them with today, date fields and date-time fields as timestamps (a date is midnight UTC)', () => {
    expect(evaluator.evaluate(guard('submit'), claim(), load, 'guard')).toBe('holds');
    expect(evaluator.evaluate(guard('backdate'), claim(), load, 'guard')).toBe('holds');
    expect(evaluator.evaluate(guard('backdate'), claim({ spent_on: '2999-12-31' }), load, 'guard')).toBe('fails');
    expect(evaluator.evaluate(guard('file'), claim(), load, 'guard')).toBe('holds');
    expect(evaluator.evaluate(guard('file'), claim({ filed_at: '2026-03-01T09:00:00.000Z' }), load, 'guard')).toBe(
      'fails',
    );
  });

  it('passes a deadline that has gone by', () => {
    const past = compileExpressions({
      ...model,
      constants: model.constants.map((c) => (c.name === 'DEADLINE' ? { ...c, value: '2001-01-01' } : c)),
    });
    const submit = past.guards.get('Claim')?.get('submit');
    if (!submit) throw new Error('no guard submit');
    expect(past.entities.get('Claim')?.evaluate(submit, claim(), load, 'guard')).toBe('fails');
  });
});

describe('chainsOf', () => {
  it('finds field chains outside strings and leaves method names out', () => {
    const heads = new Set(['book', 'note', 'due']);
    expect(chainsOf('book.copies > 0 && note.size() < 3 && "due" != note', heads)).toEqual([
      ['book', 'copies'],
      ['note'],
    ]);
    expect(chainsOf('size(note) > 0', heads)).toEqual([['note']]);
  });
});

/** An expense whose receipt and category are optional, with `||` and `&&` over them. */
const EXPENSES = `# Specification: Expenses

## 3. Entities and their fields

### Expense

| field    | type       | rules    |
| -------- | ---------- | -------- |
| amount   | decimal(2) | required |
| receipt  | text       |          |
| approved | boolean    |          |

## 4. States and transitions

### Expense

| transition | from      | to        | when                                      |
| ---------- | --------- | --------- | ----------------------------------------- |
| submit     | (new)     | submitted |                                           |
| pay        | submitted | paid      | receipt != "" \\|\\| amount <= LIMIT        |
| close      | submitted | closed    | approved && amount > LIMIT                |

## 5. Validation rules

| rule            | applies to | condition                            | error            |
| --------------- | ---------- | ------------------------------------ | ---------------- |
| receipt or less | Expense    | receipt != "" \\|\\| amount <= LIMIT   | RECEIPT_REQUIRED |
| small unless ok | Expense    | !(amount > LIMIT) \\|\\| approved      | RECEIPT_REQUIRED |

## 8. The error catalogue

| code             | status | message               |
| ---------------- | ------ | --------------------- |
| RECEIPT_REQUIRED | 422    | A receipt is required. |

## 9. Business constants and limits

| name  | value |
| ----- | ----- |
| LIMIT | 25.0  |
`;

describe("CEL's error-absorbing || and && over empty fields", () => {
  const compiled = compileExpressions(modelOf(EXPENSES));
  const evaluator = compiled.entities.get('Expense');
  if (!evaluator) throw new Error('no Expense');
  const expense = (extra: Record<string, RecordValues[string]>): RecordValues => ({
    id: 'e1',
    state: 'submitted',
    amount: 10,
    receipt: null,
    approved: null,
    ...extra,
  });
  const pay = compiled.guards.get('Expense')?.get('pay');
  const close = compiled.guards.get('Expense')?.get('close');
  const receiptRule = compiled.rules.get('receipt or less');
  const approvalRule = compiled.rules.get('small unless ok');
  if (!pay || !close || !receiptRule || !approvalRule) throw new Error('missing expressions');
  const noLoads: RecordLoader = () => undefined;

  it('takes a guard whose other side of || holds when one side needs an empty field', () => {
    expect(evaluator.evaluate(pay, expense({ amount: 10 }), noLoads, 'guard')).toBe('holds');
    expect(evaluator.evaluate(pay, expense({ amount: 90, receipt: 'scan.pdf' }), noLoads, 'guard')).toBe('holds');
  });

  it('refuses a guard whose outcome still depends on the empty field', () => {
    expect(evaluator.evaluate(pay, expense({ amount: 90 }), noLoads, 'guard')).toBe('fails');
  });

  it('decides && by its false side, empty field or not', () => {
    expect(evaluator.evaluate(close, expense({ amount: 10 }), noLoads, 'guard')).toBe('fails');
    expect(evaluator.evaluate(close, expense({ amount: 90, approved: true }), noLoads, 'guard')).toBe('holds');
  });

  it('passes a rule whose other side of || holds, and evaluates it fully when the fields are set', () => {
    expect(evaluator.evaluate(receiptRule, expense({ amount: 10 }), noLoads, 'rule')).toBe('holds');
    expect(evaluator.evaluate(approvalRule, expense({ amount: 10 }), noLoads, 'rule')).toBe('holds');
    expect(evaluator.evaluate(approvalRule, expense({ amount: 90, approved: false }), noLoads, 'rule')).toBe('fails');
    expect(evaluator.evaluate(receiptRule, expense({ amount: 90, receipt: '' }), noLoads, 'rule')).toBe('fails');
  });

  it('does not evaluate a rule whose outcome depends on an empty field', () => {
    expect(evaluator.evaluate(approvalRule, expense({ amount: 90 }), noLoads, 'rule')).toBe('skipped');
  });
});

describe('has(field): whether the record gives a value', () => {
  const spec = EXPENSES.replace(
    '| receipt or less | Expense    | receipt != "" \\|\\| amount <= LIMIT   | RECEIPT_REQUIRED |',
    '| receipt or less | Expense    | has(receipt) \\|\\| amount <= LIMIT    | RECEIPT_REQUIRED |',
  );
  const model = modelOf(spec);
  const compiled = compileExpressions(model);
  const evaluator = compiled.entities.get('Expense');
  const rule = compiled.rules.get('receipt or less');
  if (!evaluator || !rule) throw new Error('fixture changed');
  const expense = (extra: Record<string, RecordValues[string]>): RecordValues => ({
    id: 'e1',
    state: 'submitted',
    amount: 10,
    receipt: null,
    approved: null,
    ...extra,
  });
  const noLoads: RecordLoader = () => undefined;

  it('refuses a large amount without a receipt, which a comparison with "" cannot', () => {
    expect(evaluator.evaluate(rule, expense({ amount: 90 }), noLoads, 'rule')).toBe('fails');
    expect(evaluator.evaluate(rule, expense({ amount: 90, receipt: 'scan.pdf' }), noLoads, 'rule')).toBe('holds');
    expect(evaluator.evaluate(rule, expense({ amount: 10 }), noLoads, 'rule')).toBe('holds');
  });

  it('counts the tested field as mentioned, so an update that empties it runs the rule again', () => {
    expect(rule.chains).toContainEqual(['receipt']);
  });

  it('reports has() of a field the entity does not have', () => {
    const { diagnostics } = checkSpec(spec.replace('has(receipt)', 'has(recipt)'));
    const errors = diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => [d.code, d.expected])).toEqual([['unknown-field', ['receipt']]]);
  });
});

describe('errors that are not an empty field', () => {
  const spec = EXPENSES.replace(
    '| small unless ok | Expense    | !(amount > LIMIT) \\|\\| approved      | RECEIPT_REQUIRED |',
    '| small unless ok | Expense    | approved \\|\\| 10 / int(amount) >= 1  | RECEIPT_REQUIRED |',
  );
  const compiled = compileExpressions(modelOf(spec));
  const evaluator = compiled.entities.get('Expense');
  const rule = compiled.rules.get('small unless ok');
  if (!evaluator || !rule) throw new Error('fixture changed');

  it('fails a rule closed on an error an empty field did not cause', () => {
    const record: RecordValues = { id: 'e1', state: 'submitted', amount: 0, receipt: null, approved: null };
    // An empty field on one side, a division by zero on the other: the rule is broken, not skipped.
    expect(evaluator.evaluate(rule, record, () => undefined, 'rule')).toBe('fails');
    expect(evaluator.evaluate(rule, { ...record, approved: false }, () => undefined, 'rule')).toBe('fails');
    expect(evaluator.evaluate(rule, { ...record, amount: 5 }, () => undefined, 'rule')).toBe('holds');
  });
});

describe('the clock and the product time zone', () => {
  /** The spec with a rule on the hour of the day, in a zone (or UTC). */
  const zoned = (zone: string | null) =>
    modelOf(
      SPEC.replace(
        '| soon              | Loan       | due - today < GRACE        | DUE_IN_PAST  |',
        (row) => `${row}\n| desk hours        | Loan       | now.getHours() >= 9        | DUE_IN_PAST  |`,
      ).replace('| GRACE        | 3 days | grace               |', (row) =>
        zone === null ? row : `${row}\n| TIME_ZONE    | ${zone} | the desk’s calendar |`,
      ),
    );
  const outcome = (zone: string | null, at: string, name: string, record: RecordValues) => {
    const compiled = compileExpressions(zoned(zone), { clock: () => Date.parse(at) });
    const expression = compiled.rules.get(name);
    if (!expression) throw new Error(`no rule ${name}`);
    return compiled.entities.get('Loan')?.evaluate(expression, record, load, 'rule');
  };

  it('reads now and today from the injected clock, today as the local date of the product', () => {
    // 23:30 UTC on 28 March is already 29 March in Berlin.
    const at = '2026-03-28T23:30:00Z';
    expect(outcome(null, at, 'due in the future', loan({ due: '2026-03-29' }))).toBe('holds');
    expect(outcome('Europe/Berlin', at, 'due in the future', loan({ due: '2026-03-29' }))).toBe('fails');
    expect(outcome('Europe/Berlin', at, 'due in the future', loan({ due: '2026-03-30' }))).toBe('holds');
  });

  it('reads getHours() on the local clock, across the switch to summer time', () => {
    // 07:30 UTC is 08:30 in Berlin the day before the switch and 09:30 on the day itself.
    expect(outcome('Europe/Berlin', '2026-03-28T07:30:00Z', 'desk hours', loan())).toBe('fails');
    expect(outcome('Europe/Berlin', '2026-03-29T07:30:00Z', 'desk hours', loan())).toBe('holds');
    expect(outcome(null, '2026-03-29T07:30:00Z', 'desk hours', loan())).toBe('fails');
  });
});
