import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASES } from '../packages/server/test/databases.ts';
import { exampleSource, inDays, type Json, NOT_BUILT_YET, readAll, someone, Walk } from './walk.ts';

const SOURCE = exampleSource('expenses.md');

const ONLY_ON_SUBMIT = 'checked only by submit, whose guard (created_by.id == user.id) cannot hold before sign-in';

/** Codes of the catalogue no call can answer yet, each with why. */
const EXCLUDED: Readonly<Record<string, string>> = {
  ...NOT_BUILT_YET,
  WRONG_APPROVER: 'its rule reads approver.id and employee.manager.id, User references: skipped until sign-in',
  SELF_MANAGED: 'its rule reads manager.id and person.id, User references: skipped until sign-in',
  EMPLOYEE_INACTIVE: ONLY_ON_SUBMIT,
  TOO_LATE: ONLY_ON_SUBMIT,
  RECEIPT_REQUIRED: ONLY_ON_SUBMIT,
  TOO_MANY_PENDING: `it counts submitted claims: ${ONLY_ON_SUBMIT}`,
};

/** Declared calls that cannot succeed yet, each with why. */
const AFTER_SUBMIT = 'reached only through submit, which cannot succeed before sign-in';
const UNREACHABLE: Readonly<Record<string, string>> = {
  'POST /api/expenses/:id/submit': 'its guard reads created_by.id and user.id, which are empty before sign-in',
  'POST /api/expenses/:id/approve': AFTER_SUBMIT,
  'POST /api/expenses/:id/reject': AFTER_SUBMIT,
  'POST /api/expenses/:id/send-back': AFTER_SUBMIT,
  'POST /api/expenses/:id/pay': AFTER_SUBMIT,
};

describe.each(TEST_DATABASES)('the expenses example over HTTP on $name', (db) => {
  let walk: Walk;
  let emails = 0;
  const employee = (fields: Json = {}): Json => ({
    person: someone(),
    work_email: `person${++emails}@example.com`,
    manager: someone(),
    cost_center: 'CC-0420',
    ...fields,
  });
  /** An employee with the default limit (500.00) and the claims the walk files for them. */
  let ada: Json;
  /** An employee with the highest claim limit there is. */
  let boss: Json;
  const claim = (fields: Json = {}): Json => ({
    employee: ada.id,
    approver: ada.manager,
    description: 'Train to Leeds for the Acme kickoff',
    category: 'travel',
    amount: 120.5,
    currency: 'GBP',
    spent_on: inDays(-3),
    receipt: 'https://drive.example.com/receipts/1',
    receipt_attached: true,
    ...fields,
  });
  let leeds: Json;

  beforeAll(async () => {
    walk = await Walk.start(SOURCE, db);
  });
  afterAll(async () => {
    await walk?.close();
  });

  it('creates an employee with the default claim limit, and gets it with its ETag', async () => {
    const fields = employee();
    ada = await walk.create('/api/employees', fields);
    expect(ada).toMatchObject({ ...fields, single_claim_limit: 500, active: true, created_by: null });
    const got = await walk.get(`/api/employees/${ada.id}`);
    expect(got.body).toEqual(ada);
    expect(got.headers.get('etag')).toBe('"1"');
    walk.expectProblem(await walk.get(`/api/employees/${someone()}`), 'NOT_FOUND');
  });

  it('takes a claim limit of MAX_CLAIM_AMOUNT but not a cent more, and refuses employees field by field', async () => {
    boss = await walk.create('/api/employees', employee({ single_claim_limit: 5000 }));
    expect(boss.single_claim_limit).toBe(5000);
    walk.expectProblem(
      await walk.post('/api/employees', {
        person: 'ada',
        work_email: 'ada at example.com',
        manager: 42,
        cost_center: 'CC-42',
        single_claim_limit: 5000.01,
        active: 'yes',
      }),
      'VALIDATION_FAILED',
      [
        ['person', 'INVALID_TYPE'],
        ['work_email', 'INVALID_TYPE'],
        ['manager', 'INVALID_TYPE'],
        ['cost_center', 'PATTERN_MISMATCH'],
        ['single_claim_limit', 'OUT_OF_RANGE'],
        ['active', 'INVALID_TYPE'],
      ],
    );
    const cents = await walk.post('/api/employees', employee({ single_claim_limit: 12.345 }));
    walk.expectProblem(cents, 'VALIDATION_FAILED', [['single_claim_limit', 'INVALID_TYPE']]);
    expect(cents.body.errors[0].message).toBe('single_claim_limit must be a number with at most 2 decimal places.');
    walk.expectProblem(await walk.post('/api/employees', {}), 'VALIDATION_FAILED', [
      ['person', 'REQUIRED'],
      ['work_email', 'REQUIRED'],
      ['manager', 'REQUIRED'],
      ['cost_center', 'REQUIRED'],
    ]);
  });

  it('refuses a second employee record for one person or one work email with NOT_UNIQUE', async () => {
    walk.expectProblem(await walk.post('/api/employees', employee({ person: ada.person })), 'NOT_UNIQUE', [
      ['person', 'NOT_UNIQUE'],
    ]);
    walk.expectProblem(await walk.post('/api/employees', employee({ work_email: ada.work_email })), 'NOT_UNIQUE', [
      ['work_email', 'NOT_UNIQUE'],
    ]);
  });

  it('updates an employee with If-Match, and answers a stale If-Match with the catalogue’s CONFLICT', async () => {
    const path = `/api/employees/${ada.id}`;
    const updated = await walk.patch(path, { cost_center: 'CC-0421' }, { ifMatch: '"1"' });
    expect(updated.headers.get('etag')).toBe('"2"');
    expect(updated.body.cost_center).toBe('CC-0421');
    const stale = await walk.patch(path, { cost_center: 'CC-0999' }, { ifMatch: '"1"' });
    walk.expectProblem(stale, 'CONFLICT');
    expect(stale.body.detail).toBe(
      'Someone changed this Employee while you were editing it. Reload to see their changes.',
    );
    walk.expectProblem(await walk.patch(path, { person: someone(), active: 'no' }), 'VALIDATION_FAILED', [
      ['person', 'READ_ONLY_FIELD'],
      ['active', 'INVALID_TYPE'],
    ]);
    walk.expectProblem(await walk.patch(path, { work_email: boss.work_email }), 'NOT_UNIQUE', [
      ['work_email', 'NOT_UNIQUE'],
    ]);
    walk.expectProblem(await walk.patch(`/api/employees/${someone()}`, { active: false }), 'NOT_FOUND');
    ada = (await walk.get(path)).body;
  });

  it('files a claim as a draft, with the defaults of currency, day and receipt', async () => {
    leeds = await walk.create('/api/expenses', claim({ notes: 'Return ticket, standard class.' }));
    expect(leeds).toMatchObject({ state: 'draft', amount: 120.5, currency: 'GBP', decision_note: null, paid_at: null });
    const lunch = await walk.create(
      '/api/expenses',
      claim({
        description: 'Lunch with Acme',
        category: 'meals',
        amount: 500,
        currency: undefined,
        spent_on: undefined,
        receipt: undefined,
        receipt_attached: undefined,
      }),
    );
    expect(lunch).toMatchObject({
      currency: 'EUR',
      spent_on: inDays(0),
      receipt: null,
      receipt_attached: false,
      amount: 500,
    });
    const got = await walk.get(`/api/expenses/${leeds.id}`);
    expect(got.body).toEqual(leeds);
    expect(got.headers.get('etag')).toBe('"1"');
  });

  it('refuses a claim over the employee’s limit (OVER_LIMIT), in the future, or foreign outside travel', async () => {
    const over = await walk.post('/api/expenses', claim({ amount: 500.01 }));
    walk.expectProblem(over, 'VALIDATION_FAILED', [['amount', 'OVER_LIMIT']]);
    expect(over.body.errors[0].message).toBe(
      '500.01 is more than your limit for one claim. Ask finance@example.com to raise it.',
    );
    const future = await walk.post('/api/expenses', claim({ spent_on: inDays(1) }));
    walk.expectProblem(future, 'VALIDATION_FAILED', [['spent_on', 'SPENT_IN_FUTURE']]);
    expect(future.body.errors[0].message).toBe(`${inDays(1)} is in the future: claim it once you have spent it.`);
    const foreign = await walk.post('/api/expenses', claim({ category: 'meals', currency: 'USD' }));
    walk.expectProblem(foreign, 'VALIDATION_FAILED', [[null, 'FOREIGN_CURRENCY']]);
    expect(foreign.body.errors[0].message).toBe('Only travel may be claimed in a currency other than EUR.');
    walk.expectProblem(
      await walk.post(
        '/api/expenses',
        claim({ category: 'lodging', currency: 'USD', amount: 900, spent_on: inDays(2) }),
      ),
      'VALIDATION_FAILED',
      [
        ['amount', 'OVER_LIMIT'],
        ['spent_on', 'SPENT_IN_FUTURE'],
        [null, 'FOREIGN_CURRENCY'],
      ],
    );
  });

  it('refuses a claim for an employee who does not exist with UNKNOWN_REFERENCE', async () => {
    walk.expectProblem(await walk.post('/api/expenses', claim({ employee: someone() })), 'UNKNOWN_REFERENCE', [
      ['employee', 'UNKNOWN_REFERENCE'],
    ]);
  });

  it('refuses claims field by field, and fields the create payload does not carry', async () => {
    walk.expectProblem(
      await walk.post('/api/expenses', {
        employee: 'ada',
        approver: ada.manager,
        description: 'ab',
        category: 'gifts',
        amount: 1.234,
        currency: 'JPY',
        spent_on: '2025-13-01',
        receipt: 'drive/receipts/1',
        receipt_attached: 'yes',
        notes: 'n'.repeat(1001),
      }),
      'VALIDATION_FAILED',
      [
        ['employee', 'INVALID_TYPE'],
        ['description', 'TOO_SHORT'],
        ['category', 'INVALID_CHOICE'],
        ['amount', 'INVALID_TYPE'],
        ['currency', 'INVALID_CHOICE'],
        ['spent_on', 'INVALID_TYPE'],
        ['receipt', 'INVALID_TYPE'],
        ['receipt_attached', 'INVALID_TYPE'],
        ['notes', 'TOO_LONG'],
      ],
    );
    for (const amount of [0, 5000.01]) {
      walk.expectProblem(await walk.post('/api/expenses', claim({ amount })), 'VALIDATION_FAILED', [
        ['amount', 'OUT_OF_RANGE'],
      ]);
    }
    walk.expectProblem(
      await walk.post(
        '/api/expenses',
        claim({ description: 'd'.repeat(141), decision_note: 'ok', state: 'paid', paid_at: null }),
      ),
      'VALIDATION_FAILED',
      [
        ['description', 'TOO_LONG'],
        ['decision_note', 'READ_ONLY_FIELD'],
        ['state', 'READ_ONLY_FIELD'],
        ['paid_at', 'READ_ONLY_FIELD'],
      ],
    );
    walk.expectProblem(await walk.post('/api/expenses', {}), 'VALIDATION_FAILED', [
      ['employee', 'REQUIRED'],
      ['approver', 'REQUIRED'],
      ['description', 'REQUIRED'],
      ['category', 'REQUIRED'],
      ['amount', 'REQUIRED'],
    ]);
  });

  it('replaces a claim with PUT and If-Match: fields left out take their default or are cleared', async () => {
    const path = `/api/expenses/${leeds.id}`;
    const replaced = await walk.put(
      path,
      {
        description: 'Train to Leeds and back',
        category: 'travel',
        amount: 98.4,
        currency: 'GBP',
        spent_on: inDays(-3),
      },
      { ifMatch: '"1"' },
    );
    expect(replaced.status).toBe(200);
    expect(replaced.headers.get('etag')).toBe('"2"');
    expect(replaced.body).toMatchObject({
      description: 'Train to Leeds and back',
      amount: 98.4,
      receipt: null,
      receipt_attached: false,
      notes: null,
      employee: ada.id,
    });
    const stale = await walk.put(path, claimBody({ amount: 99 }), { ifMatch: '"1"' });
    walk.expectProblem(stale, 'CONFLICT');
    expect(stale.body.detail).toBe(
      'Someone changed this Expense while you were editing it. Reload to see their changes.',
    );
    walk.expectProblem(await walk.put(path, claimBody({ amount: 600 })), 'VALIDATION_FAILED', [
      ['amount', 'OVER_LIMIT'],
    ]);
    walk.expectProblem(
      await walk.put(path, { ...claimBody(), description: undefined, employee: ada.id }),
      'VALIDATION_FAILED',
      [
        ['description', 'REQUIRED'],
        ['employee', 'READ_ONLY_FIELD'],
      ],
    );
    walk.expectProblem(await walk.put(`/api/expenses/${someone()}`, claimBody()), 'NOT_FOUND');
    const back = await walk.put(path, claimBody(), { ifMatch: '"2"' });
    expect(back.body).toMatchObject({ receipt_attached: true, amount: 120.5 });
    leeds = back.body;
  });

  it('refuses submit while its guard cannot read who created the claim, and every transition not allowed from draft', async () => {
    const path = `/api/expenses/${leeds.id}`;
    const submit = await walk.post(`${path}/submit`);
    walk.expectProblem(submit, 'TRANSITION_NOT_ALLOWED');
    expect(submit.body.detail).toContain('created_by.id == user.id');
    for (const slug of ['approve', 'reject', 'send-back', 'pay']) {
      const refused = await walk.post(`${path}/${slug}`, {});
      walk.expectProblem(refused, 'TRANSITION_NOT_ALLOWED');
      expect(refused.body.detail).toContain('is not allowed when the Expense is draft');
    }
    walk.expectProblem(await walk.post(`${path}/approve`, { decision_note: 'x'.repeat(501) }), 'VALIDATION_FAILED', [
      ['decision_note', 'TOO_LONG'],
    ]);
    walk.expectProblem(await walk.post(`${path}/pay`, { paid_at: 'yesterday', amount: 1 }), 'VALIDATION_FAILED', [
      ['paid_at', 'INVALID_TYPE'],
      ['amount', 'READ_ONLY_FIELD'],
    ]);
    walk.expectProblem(await walk.post(`/api/expenses/${someone()}/submit`), 'NOT_FOUND');
  });

  it.todo(
    'walks submit → send back → submit → approve → pay, and reject, once sign-in fills created_by and user, reaching EMPLOYEE_INACTIVE, TOO_LATE (CLAIM_WINDOW), RECEIPT_REQUIRED (RECEIPT_THRESHOLD), TOO_MANY_PENDING (MAX_PENDING_CLAIMS), MIN_REASON_LENGTH and ALLOW_SELF_APPROVAL',
  );

  it('withdraws a draft with If-Match, and refuses to withdraw it again', async () => {
    const path = `/api/expenses/${leeds.id}`;
    walk.expectProblem(await walk.post(`${path}/withdraw`, {}, { ifMatch: '"1"' }), 'CONFLICT');
    const withdrawn = await walk.post(`${path}/withdraw`, {}, { ifMatch: '"3"' });
    expect(withdrawn.body.state).toBe('withdrawn');
    expect(withdrawn.headers.get('etag')).toBe('"4"');
    const again = await walk.post(`${path}/withdraw`);
    walk.expectProblem(again, 'TRANSITION_NOT_ALLOWED');
    expect(again.body.detail).toBe('withdraw is not allowed when the Expense is withdrawn.');
    walk.expectProblem(await walk.post(`${path}/withdraw`, { reason: 'duplicate' }), 'INVALID_PAYLOAD');
    expect((await walk.get(`${path}/history`)).body.items).toMatchObject([
      { action: 'create', from: null, to: 'draft' },
      { action: 'update', changes: { amount: 98.4, receipt: null, receipt_attached: false, notes: null } },
      { action: 'update', changes: { amount: 120.5, receipt_attached: true } },
      { action: 'transition', transition: 'withdraw', from: 'draft', to: 'withdrawn', changes: {} },
    ]);
  });

  it('lists claims a PAGE_SIZE page at a time along the cursor, up to MAX_PAGE_SIZE, sorted, filtered and searched', async () => {
    for (let i = 1; i <= 50; i++) {
      await walk.create(
        '/api/expenses',
        claim({ description: `Coffee ${i}`, category: 'meals', amount: i, currency: 'EUR', receipt_attached: false }),
      );
    }
    const first = await walk.get('/api/expenses?count=true');
    expect(first.body.items).toHaveLength(50); // PAGE_SIZE
    expect(first.body.total).toBe(52);
    expect(first.body.next).toEqual(expect.any(String));
    const all: Json[] = (await walk.get('/api/expenses?limit=500')).body.items; // MAX_PAGE_SIZE
    expect(all).toHaveLength(52);
    walk.expectProblem(await walk.get('/api/expenses?limit=501'), 'INVALID_PAYLOAD');
    expect((await readAll(walk, '/api/expenses', 50)).map((e: Json) => e.id)).toEqual(all.map((e) => e.id));

    const byAmount = await readAll(walk, '/api/expenses?sort=-amount&filter[category]=meals', 20);
    expect(byAmount.map((e: Json) => e.amount)).toEqual(
      all
        .filter((e) => e.category === 'meals')
        .map((e) => e.amount)
        .sort((a, b) => b - a),
    );
    expect((await walk.get('/api/expenses?filter[state]=withdrawn')).body.items.map((e: Json) => e.id)).toEqual([
      leeds.id,
    ]);
    expect((await walk.get('/api/expenses?filter[amount]=120.5&filter[currency]=GBP')).body.items).toHaveLength(1);
    expect((await walk.get('/api/expenses?filter[receipt_attached]=true')).body.items).toHaveLength(1);
    expect((await walk.get(`/api/expenses?filter[employee]=${ada.id}&count=true`)).body.total).toBe(52);
    expect((await walk.get('/api/expenses?q=LEEDS')).body.items.map((e: Json) => e.id)).toEqual([leeds.id]);
    for (const query of ['filter[currency]=JPY', 'filter[amount]=cheap', 'filter[employee]=ada', 'sort=price']) {
      walk.expectProblem(await walk.get(`/api/expenses?${query}`), 'INVALID_PAYLOAD');
    }
  });

  it('lists employees filtered, sorted and searched', async () => {
    await walk.patch(`/api/employees/${ada.id}`, { active: false });
    const inactive = (await walk.get('/api/employees?filter[active]=false')).body.items;
    expect(inactive.map((e: Json) => e.id)).toEqual([ada.id]);
    const limits = (await walk.get('/api/employees?sort=-single_claim_limit')).body.items.map(
      (e: Json) => e.single_claim_limit,
    );
    expect(limits).toEqual([5000, 500]);
    expect((await walk.get('/api/employees?q=CC-0421')).body.items.map((e: Json) => e.id)).toEqual([ada.id]);
    walk.expectProblem(await walk.get('/api/employees?filter[active]=maybe'), 'INVALID_PAYLOAD');
  });

  it('deletes a claim with If-Match; its history stays readable', async () => {
    const path = `/api/expenses/${leeds.id}`;
    walk.expectProblem(await walk.delete(path, { ifMatch: '"1"' }), 'CONFLICT');
    expect((await walk.delete(path, { ifMatch: '"4"' })).status).toBe(204);
    walk.expectProblem(await walk.get(path), 'NOT_FOUND');
    walk.expectProblem(await walk.delete(path), 'NOT_FOUND');
    expect((await walk.get(`${path}/history`)).body.items.at(-1)).toMatchObject({ action: 'delete' });
  });

  it('refuses bodies that are not payloads, too large ones, and calls section 7 does not declare', async () => {
    walk.expectProblem(await walk.post('/api/employees', employee({ nickname: 'Ada' })), 'INVALID_PAYLOAD');
    walk.expectProblem(await walk.post('/api/expenses', undefined, { raw: 'not json' }), 'INVALID_PAYLOAD');
    walk.expectProblem(await walk.post('/api/expenses', claim({ notes: 'x'.repeat(1_100_000) })), 'PAYLOAD_TOO_LARGE');
    for (const [method, path] of [
      ['DELETE', `/api/employees/${ada.id}`],
      ['GET', `/api/employees/${ada.id}/history`],
      ['PATCH', `/api/expenses/${someone()}`],
      ['POST', `/api/expenses/${someone()}/start`],
      ['GET', '/api/approvals'],
    ] as const) {
      walk.expectProblem(await walk.call(method, path), 'UNKNOWN_CALL');
    }
  });

  it('walked every call it can to a success and answered every catalogued code', () => {
    walk.expectEveryCallSucceeded(UNREACHABLE);
    walk.expectCatalogueCovered(EXCLUDED);
  });

  /** The PUT payload of the Leeds claim, whole. */
  function claimBody(fields: Json = {}): Json {
    const { employee: _employee, approver: _approver, ...rest } = claim();
    return { ...rest, ...fields };
  }
});
