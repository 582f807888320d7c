import { readFileSync } from 'node:fs';
import { checkSpec, type Model, type RecordValues } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import type { User } from '../api/session.ts';
import { checkBeforeSending, type RecordFetcher, userRecord, type Write, writeInput } from './record-rules.ts';

const modelOf = (name: string): Model => {
  const { model, ok } = checkSpec(readFileSync(new URL(`../../../../examples/${name}`, import.meta.url), 'utf8'));
  if (!ok) throw new Error(`${name} has errors`);
  return model;
};
const lending = modelOf('lending-desk.md');
const expenses = modelOf('expenses.md');

const id = (n: number) => `0190f3c4-7a2b-7c3d-8e4f-${String(n).padStart(12, '0')}`;
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const user = (n: number, roles: string[]): User => ({
  id: id(n),
  email: `u${n}@example.com`,
  name: `U${n}`,
  roles,
  createdAt: '2026-01-01T00:00:00.000Z',
});

const STAFF = user(1, ['staff']);
const MEMBER = user(2, ['member']);
const VISITOR = user(3, []);
const BOOK = id(10);
const EMPTY_SHELF = id(11);

/** The API as a map of records; every fetch is counted, and a record it lacks cannot be fetched (403/404). */
function api(records: Record<string, RecordValues>) {
  const asked: string[] = [];
  const fetch: RecordFetcher = async (entity, key) => {
    asked.push(`${entity} ${key}`);
    const found = records[key];
    if (!found) throw new Error('404');
    return found;
  };
  return { fetch, asked, records };
}

const library = api({
  [BOOK]: { id: BOOK, title: 'Dune', copies: 2 },
  [EMPTY_SHELF]: { id: EMPTY_SHELF, title: 'Gone', copies: 0 },
  [MEMBER.id]: userRecord(MEMBER),
  [VISITOR.id]: userRecord(VISITOR),
});

async function problemOf(model: Model, write: Write, fetch: RecordFetcher = library.fetch) {
  const input = writeInput(model, write);
  if (!input) throw new Error('no such entity');
  return (await checkBeforeSending(model, input, fetch)).problem;
}

const lend = (body: Record<string, unknown>): Write => ({
  kind: 'create',
  entity: 'Loan',
  user: STAFF,
  body: { book: BOOK, borrower: MEMBER.id, lent_on: day(0), due: day(14), ...body },
});

/** A problem without its spec lines (checked on their own below): the rest as the server answers. */
function withoutLines<T>(value: T): T {
  return JSON.parse(JSON.stringify(value ?? null, (key, v: unknown) => (key === 'spec' ? undefined : v))) as T;
}

describe('the rules of lending-desk.md checked before sending', () => {
  it("names the rule's spec line, as the server's answer does", async () => {
    const problem = await problemOf(lending, lend({ lent_on: '2026-05-10', due: '2026-05-05' }));
    const line = lending.lines?.[String(lending.rules.find((r) => r.error === 'DUE_BEFORE_LENT')?.span.line)];
    expect(line).toMatch(/^\| due after lending/);
    expect(problem?.spec?.text).toBe(line);
    expect(problem?.errors?.[0]?.spec).toEqual(problem?.spec);
  });

  it('lets a loan that keeps every rule through', async () => {
    expect(await problemOf(lending, lend({}))).toBeNull();
  });

  it('reports a due date before the lending day at the due field, with the catalogue message', async () => {
    const problem = await problemOf(lending, lend({ lent_on: '2026-05-10', due: '2026-05-05' }));
    // One rule refused: its own code is the top-level code, as the server answers.
    expect(problem).toMatchObject({
      status: 422,
      code: 'DUE_BEFORE_LENT',
      detail: 'The due date must be after the day the book was lent (2026-05-10).',
    });
    expect(withoutLines(problem?.errors)).toEqual([
      {
        field: 'due',
        code: 'DUE_BEFORE_LENT',
        message: 'The due date must be after the day the book was lent (2026-05-10).',
      },
    ]);
  });

  it("reports a rule over two fields at no field, and the creating transition's own rules", async () => {
    const problem = await problemOf(lending, lend({ due: day(40) }));
    expect(withoutLines(problem?.errors)).toEqual([
      { field: null, code: 'LOAN_TOO_LONG', message: 'A loan may last at most 21 days.' },
    ]);
  });

  it('loads the borrower to check their roles, and leaves a borrower it cannot load to the server', async () => {
    const problem = await problemOf(lending, lend({ borrower: VISITOR.id }));
    expect(withoutLines(problem?.errors)).toEqual([
      { field: 'borrower', code: 'NOT_A_MEMBER', message: 'Books can only be lent to members with a library card.' },
    ]);
    expect(await problemOf(lending, lend({ borrower: id(99) }))).toBeNull();
  });

  it('leaves a rule on a borrower’s roles to the server when the directory shows only their id and name', async () => {
    const directory = api({
      [BOOK]: { id: BOOK, title: 'Dune', copies: 2 },
      [VISITOR.id]: userRecord({ id: VISITOR.id, name: VISITOR.name }),
    });
    const input = writeInput(lending, lend({ borrower: VISITOR.id }));
    if (!input) throw new Error('no such entity');
    const check = await checkBeforeSending(lending, input, directory.fetch);
    expect(check.problem).toBeNull();
    expect(check.unchecked).toBeGreaterThan(0);
  });

  it('answers a guard that does not hold as the server does, before the rules', async () => {
    const problem = await problemOf(lending, lend({ book: EMPTY_SHELF, due: '2020-01-01' }));
    expect(withoutLines(problem)).toEqual({
      status: 409,
      code: 'TRANSITION_NOT_ALLOWED',
      title: 'Transition not allowed',
      detail: 'Lend is allowed only when the book’s copies are more than 0.',
    });
  });

  it('answers a guard that names its own error with that code, its status and its message filled', async () => {
    const own: Model = {
      ...lending,
      machines: lending.machines.map((m) => ({
        ...m,
        transitions: m.transitions.map((t) => (t.name === 'lend' ? { ...t, error: 'NO_COPIES' } : t)),
      })),
      errors: [
        ...lending.errors,
        { code: 'NO_COPIES', status: 410, message: 'Cannot {transition} it: due {due}.', builtin: false, span: null },
      ],
    };
    expect(withoutLines(await problemOf(own, lend({ book: EMPTY_SHELF, due: '2030-01-01' })))).toEqual({
      status: 410,
      code: 'NO_COPIES',
      title: 'No copies',
      detail: 'Cannot lend it: due 2030-01-01.',
    });
    expect(await problemOf(own, lend({}))).toBeNull();
  });

  it("checks a transition's rules and guard on the record with the payload applied", async () => {
    const current = {
      id: id(20),
      state: 'out',
      book: BOOK,
      borrower: MEMBER.id,
      lent_on: day(-10),
      due: day(-1),
      renewals: 0,
    };
    const renew = (body: Record<string, unknown>, state = 'out', stored = {}): Write => ({
      kind: 'transition',
      transition: 'renew',
      entity: 'Loan',
      user: STAFF,
      current: { ...current, state, ...stored },
      body,
    });
    expect(await problemOf(lending, renew({}))).toBeNull();
    // The guard sees the count before the renewal; the renewal's due date is worked out as the server does.
    expect(await problemOf(lending, renew({}, 'out', { renewals: 2 }))).toMatchObject({
      code: 'TRANSITION_NOT_ALLOWED',
      detail: 'Renew is allowed only when the renewals are less than 2.',
    });
    // The rules see the due date the renewal sets (20 days ahead), here before a lending day 30 days ahead.
    expect(withoutLines((await problemOf(lending, renew({}, 'out', { lent_on: day(30) })))?.errors)).toEqual([
      {
        field: 'due',
        code: 'DUE_BEFORE_LENT',
        message: `The due date must be after the day the book was lent (${day(30)}).`,
      },
    ]);
    // A wrong from-state is the server's to answer.
    expect(await problemOf(lending, renew({ due: day(-1) }, 'returned'))).toBeNull();
  });

  it('leaves to the server a rule, guard or sets naming a field the API did not send (point 6 hides it)', async () => {
    // As a role with `read except (lent_on, renewals)` gets the loan: the guard and the sets read
    // renewals, "due after lending" reads lent_on and the due date the sets would move.
    const current = { id: id(21), state: 'out', book: BOOK, borrower: MEMBER.id, due: day(-1) };
    const renew: Write = { kind: 'transition', transition: 'renew', entity: 'Loan', user: STAFF, current, body: {} };
    const input = writeInput(lending, renew);
    if (!input) throw new Error('no such entity');
    expect(await checkBeforeSending(lending, input, library.fetch)).toEqual({ problem: null, unchecked: 2 });
  });

  it('leaves limits to the server', async () => {
    const limit = lending.rules.find((r) => r.error === 'LOAN_LIMIT');
    expect(limit?.condition.kind).toBe('limit');
    expect(await problemOf(lending, lend({}))).toBeNull();
  });
});

describe('the rules of expenses.md checked before sending', () => {
  const EMPLOYEE = id(30);
  const SAM = user(31, ['employee']);
  const MANAGER = user(32, ['manager']);
  const people = api({
    [EMPLOYEE]: {
      id: EMPLOYEE,
      person: SAM.id,
      work_email: 'sam@example.com',
      manager: MANAGER.id,
      cost_center: 'CC-0420',
      single_claim_limit: 500,
      active: true,
    },
    [SAM.id]: userRecord(SAM),
    [MANAGER.id]: userRecord(MANAGER),
  });
  const claim = (body: Record<string, unknown>): Write => ({
    kind: 'create',
    entity: 'Expense',
    user: SAM,
    body: {
      employee: EMPLOYEE,
      approver: MANAGER.id,
      description: 'Train to Leeds',
      category: 'travel',
      amount: 120,
      ...body,
    },
  });

  it("reports an amount over the employee's limit at the amount, loading the employee", async () => {
    expect(await problemOf(expenses, claim({}), people.fetch)).toBeNull();
    const problem = await problemOf(expenses, claim({ amount: 600 }), people.fetch);
    expect(withoutLines(problem?.errors)).toEqual([
      {
        field: 'amount',
        code: 'OVER_LIMIT',
        message: '600 is more than your limit for one claim. Ask finance@example.com to raise it.',
      },
    ]);
  });

  it("follows a chain through two records (the employee's manager) and reports every failure", async () => {
    const problem = await problemOf(
      expenses,
      claim({ amount: 600, approver: SAM.id, currency: 'USD', category: 'meals' }),
      people.fetch,
    );
    expect(problem?.errors?.map((e) => [e.field, e.code])).toEqual([
      ['amount', 'OVER_LIMIT'],
      ['approver', 'WRONG_APPROVER'],
      [null, 'FOREIGN_CURRENCY'],
    ]);
  });

  it('checks a rule on a user’s id with the directory’s id and name only', async () => {
    const directory = api({
      [EMPLOYEE]: people.records[EMPLOYEE] ?? {},
      [SAM.id]: userRecord({ id: SAM.id, name: SAM.name }),
      [MANAGER.id]: userRecord({ id: MANAGER.id, name: MANAGER.name }),
    });
    const problem = await problemOf(expenses, claim({ approver: SAM.id }), directory.fetch);
    expect(problem?.errors?.map((e) => [e.field, e.code])).toEqual([['approver', 'WRONG_APPROVER']]);
  });

  it('cannot check a rule whose record it may not fetch: the server decides', async () => {
    const nobody = api({});
    expect(await problemOf(expenses, claim({ amount: 600 }), nobody.fetch)).toBeNull();
    expect(nobody.asked).toEqual([`Employee ${EMPLOYEE}`, `User ${MANAGER.id}`]);
    // What needs no record is still checked.
    expect(
      withoutLines((await problemOf(expenses, claim({ currency: 'USD', category: 'meals' }), nobody.fetch))?.errors),
    ).toEqual([
      { field: null, code: 'FOREIGN_CURRENCY', message: 'Only travel may be claimed in a currency other than EUR.' },
    ]);
  });
});
