import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, SQLITE_ONLY } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

const EXPENSES = readFileSync(new URL('../../../../examples/expenses.md', import.meta.url), 'utf8');

type Json = Record<string, unknown>;

/**
 * Guards and rules that reach the acting user and users named by the record (`created_by.id ==
 * user.id`, `approver.id == employee.manager.id`, `employee.person.id != user.id`), on the
 * expenses example: evaluated with real users (by the runtime, not in SQL: SQLite is enough).
 */
describe.each(SQLITE_ONLY)('expressions about users on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  const as: Record<string, { authorization: string; id: string }> = {};
  let employeeId: string;

  const call = async (who: string, method: string, url: string, body?: unknown) => {
    const response = await server.app.inject({
      method: method as 'GET',
      url,
      headers: {
        authorization: as[who]?.authorization ?? '',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    return { status: response.statusCode, body: (response.body === '' ? {} : response.json()) as Json };
  };

  const today = new Date().toISOString().slice(0, 10);
  const claim = (extra: Json = {}) => ({
    employee: employeeId,
    approver: as.manager?.id,
    description: 'Train to Leeds',
    category: 'travel',
    amount: 20,
    spent_on: today,
    ...extra,
  });

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(EXPENSES), ...fresh.options, logger: false });
    for (const [name, roles] of [
      ['employee', ['employee']],
      ['colleague', ['employee']],
      // Also an employee: may take submit (its `who`), and owns the claims naming them as approver.
      ['manager', ['manager', 'employee']],
      ['finance', ['finance']],
    ] as const) {
      const { authorization, user } = await userWithToken(server, roles, `${name}@example.test`);
      as[name] = { authorization, id: user.id };
    }
    const employee = await call('finance', 'POST', '/api/employees', {
      person: as.employee?.id,
      work_email: 'employee@example.test',
      manager: as.manager?.id,
      cost_center: 'CC-0420',
    });
    expect(employee.status).toBe(201);
    employeeId = String(employee.body.id);
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('checks a rule that follows a reference to the user it names', async () => {
    const wrong = await call('employee', 'POST', '/api/expenses', claim({ approver: as.colleague?.id }));
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual([expect.objectContaining({ field: 'approver', code: 'WRONG_APPROVER' })]);
    const right = await call('employee', 'POST', '/api/expenses', claim());
    expect(right.status).toBe(201);
    expect(right.body.created_by).toBe(as.employee?.id);
  });

  it('lets only the claim’s creator submit it, and only its approver approve it', async () => {
    const { body: expense } = await call('employee', 'POST', '/api/expenses', claim());
    // Another employee may not even see it (read own): not found, not forbidden.
    expect((await call('colleague', 'POST', `/api/expenses/${expense.id}/submit`)).status).toBe(404);
    const submitted = await call('employee', 'POST', `/api/expenses/${expense.id}/submit`);
    expect(submitted.status).toBe(200);
    expect(submitted.body.state).toBe('submitted');
    const approved = await call('manager', 'POST', `/api/expenses/${expense.id}/approve`, {});
    expect(approved.status).toBe(200);
    expect(approved.body.state).toBe('approved');
  });

  it('refuses a guard about the acting user when it does not hold', async () => {
    const { body: expense } = await call('employee', 'POST', '/api/expenses', claim());
    // The manager may take submit and owns the claim as its approver, but did not create it.
    const answer = await call('manager', 'POST', `/api/expenses/${expense.id}/submit`);
    expect(answer.status).toBe(409);
    expect(answer.body.code).toBe('TRANSITION_NOT_ALLOWED');
    expect(answer.body.detail).toBe('Submit is allowed only when you created it.');
    // finance may update every claim but is not in submit's `who`.
    expect((await call('finance', 'POST', `/api/expenses/${expense.id}/submit`)).status).toBe(403);
    expect((await call('employee', 'POST', `/api/expenses/${expense.id}/submit`)).status).toBe(200);
  });

  it('evaluates a guard on the record as the call leaves it: the reason sent with reject counts', async () => {
    const { body: expense } = await call('employee', 'POST', '/api/expenses', claim());
    await call('employee', 'POST', `/api/expenses/${expense.id}/submit`);
    const curt = await call('manager', 'POST', `/api/expenses/${expense.id}/reject`, { decision_note: 'no' });
    expect(curt.status).toBe(409);
    expect(curt.body.code).toBe('TRANSITION_NOT_ALLOWED');
    expect(curt.body.detail).toBe(
      'Reject is allowed only when you are the approver and the decision note has at least 10 characters.',
    );
    const reasoned = await call('manager', 'POST', `/api/expenses/${expense.id}/reject`, {
      decision_note: 'Not a business trip: the receipt is for a weekend away.',
    });
    expect(reasoned.status).toBe(200);
    expect(reasoned.body).toMatchObject({ state: 'rejected' });
  });
});
