import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, SQLITE_ONLY } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import { uuidv7 } from '../store/uuidv7.ts';

const EXPENSES = readFileSync(new URL('../../../../examples/expenses.md', import.meta.url), 'utf8');

/** Tasks charged to teams: a lead reads their own teams while open, and a rule reads the team's budget. */
const TEAMS = `# Specification: Teams

## 1. What the product does and for whom

Team leads charge tasks to their teams' budgets.

## 3. Entities and their fields

### Team

| field  | type       | rules    |
| ------ | ---------- | -------- |
| name   | text       | required |
| lead   | User       | required |
| budget | decimal(2) | required |

### Task

| field | type       | rules    |
| ----- | ---------- | -------- |
| title | text       | required |
| team  | Team       | required |
| cost  | decimal(2) | required |

## 4. States and transitions

### Team

| transition | from   | to     | who  |
| ---------- | ------ | ------ | ---- |
| open       | (new)  | open   |      |
| close      | open   | closed | boss |

## 5. Validation rules

| rule          | applies to | condition           | error       |
| ------------- | ---------- | ------------------- | ----------- |
| within budget | Task.cost  | value <= team.budget | OVER_BUDGET |

## 6. Roles and permissions

| role | Team                | Task                         |
| ---- | ------------------- | ---------------------------- |
| boss | all                 | all                          |
| lead | read own while open | create, read own, update own |

## 8. The error catalogue

| code        | status | message                                   |
| ----------- | ------ | ----------------------------------------- |
| OVER_BUDGET | 422    | {cost} is more than the team's budget.    |
`;

type Json = Record<string, unknown>;

/** What a refusal says, without what differs between any two answers (the request's id and path). */
function said(body: Json): Json {
  const { requestId: _id, instance: _instance, ...rest } = body;
  return rest;
}

/**
 * A reference to a record the caller may not read answers exactly as a reference to no record
 * (UNKNOWN_REFERENCE at that field), before any rule: which rule fails would otherwise tell the
 * record's existence and values (its limit, its manager).
 */
describe.each(SQLITE_ONLY)('references to records the caller may not read, on $name', (db) => {
  describe('the expenses example', () => {
    let fresh: FreshDatabase;
    let server: NinepointServer;
    const as: Record<string, { authorization: string; id: string }> = {};
    const employees: Record<string, string> = {};

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
    const claim = (employee: string, extra: Json = {}) => ({
      employee,
      approver: as.otherManager?.id,
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
        ['manager', ['manager', 'employee']],
        ['otherManager', ['manager', 'employee']],
        ['finance', ['finance']],
      ] as const) {
        const { authorization, user } = await userWithToken(server, roles, `${name}@example.test`);
        as[name] = { authorization, id: user.id };
      }
      for (const [name, manager, limit] of [
        ['employee', 'manager', 500],
        ['colleague', 'otherManager', 100],
      ] as const) {
        const made = await call('finance', 'POST', '/api/employees', {
          person: as[name]?.id,
          work_email: `${name}@work.example.test`,
          manager: as[manager]?.id,
          cost_center: 'CC-0420',
          single_claim_limit: limit,
        });
        expect(made.status).toBe(201);
        employees[name] = String(made.body.id);
      }
    });
    afterAll(async () => {
      await server.close();
      await fresh.remove();
    });

    it('answers a claim for a colleague’s employee record exactly as one for no record, whatever the amount or approver', async () => {
      const nobody = uuidv7(Date.now());
      const answers = [];
      for (const employee of [employees.colleague ?? '', nobody]) {
        // Under the colleague's limit, over it, over everybody's; the right approver and a wrong one.
        for (const extra of [{ amount: 50 }, { amount: 150 }, { amount: 4999 }, { approver: as.manager?.id }]) {
          answers.push(await call('employee', 'POST', '/api/expenses', claim(employee, extra)));
        }
      }
      for (const answer of answers) {
        expect(answer.status).toBe(422);
        expect(said(answer.body)).toEqual(said(answers[0]?.body ?? {}));
      }
      expect(answers[0]?.body.code).toBe('UNKNOWN_REFERENCE');
      expect(answers[0]?.body.errors).toEqual([
        expect.objectContaining({ field: 'employee', code: 'UNKNOWN_REFERENCE' }),
      ]);
    });

    it('gives the rules’ answers to a caller who may read the employee record', async () => {
      // A manager reads every employee record.
      const over = await call('manager', 'POST', '/api/expenses', claim(employees.colleague ?? '', { amount: 150 }));
      expect(over.status).toBe(422);
      expect(over.body.errors).toEqual([expect.objectContaining({ field: 'amount', code: 'OVER_LIMIT' })]);
      const wrong = await call(
        'manager',
        'POST',
        '/api/expenses',
        claim(employees.colleague ?? '', { approver: as.manager?.id }),
      );
      expect(wrong.body.errors).toEqual([expect.objectContaining({ field: 'approver', code: 'WRONG_APPROVER' })]);
      const right = await call('manager', 'POST', '/api/expenses', claim(employees.colleague ?? '', { amount: 50 }));
      expect(right.status).toBe(201);
    });

    it('still lets an employee claim on their own record and name any user as approver', async () => {
      const own = await call(
        'employee',
        'POST',
        '/api/expenses',
        claim(employees.employee ?? '', { approver: as.manager?.id, amount: 600 }),
      );
      expect(own.body.errors).toEqual([expect.objectContaining({ field: 'amount', code: 'OVER_LIMIT' })]);
      const right = await call(
        'employee',
        'POST',
        '/api/expenses',
        claim(employees.employee ?? '', { approver: as.manager?.id }),
      );
      expect(right.status).toBe(201);
    });
  });

  describe('an update and a grant limited to some states', () => {
    let fresh: FreshDatabase;
    let server: NinepointServer;
    const as: Record<string, { authorization: string; id: string }> = {};
    const teams: Record<string, string> = {};

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

    beforeAll(async () => {
      fresh = await db.fresh();
      server = await createServer({ model: modelOf(TEAMS), ...fresh.options, logger: false });
      for (const [name, roles] of [
        ['boss', ['boss']],
        ['lead', ['lead']],
        ['otherLead', ['lead']],
      ] as const) {
        const { authorization, user } = await userWithToken(server, roles, `${name}@example.test`);
        as[name] = { authorization, id: user.id };
      }
      for (const [name, lead] of [
        ['mine', 'lead'],
        ['closed', 'lead'],
        ['theirs', 'otherLead'],
      ] as const) {
        const made = await call('boss', 'POST', '/api/teams', { name, lead: as[lead]?.id, budget: 100 });
        expect(made.status).toBe(201);
        teams[name] = String(made.body.id);
      }
      expect((await call('boss', 'POST', `/api/teams/${teams.closed}/close`)).status).toBe(200);
    });
    afterAll(async () => {
      await server.close();
      await fresh.remove();
    });

    it('refuses moving a task to a team the caller may not read as it refuses moving it to no team', async () => {
      const task = await call('lead', 'POST', '/api/tasks', { title: 'Paint', team: teams.mine, cost: 10 });
      expect(task.status).toBe(201);
      const url = `/api/tasks/${task.body.id}`;
      const answers = [];
      // Another lead's team, the caller's own team once closed (`while open`), and no team at all.
      for (const team of [teams.theirs, teams.closed, uuidv7(Date.now())]) {
        for (const cost of [10, 1000]) answers.push(await call('lead', 'PATCH', url, { team, cost }));
      }
      for (const answer of answers) {
        expect(answer.status).toBe(422);
        expect(said(answer.body)).toEqual(said(answers[0]?.body ?? {}));
      }
      expect(answers[0]?.body.errors).toEqual([expect.objectContaining({ field: 'team', code: 'UNKNOWN_REFERENCE' })]);
      expect((await call('boss', 'GET', url)).body.team).toBe(teams.mine);
    });

    it('runs the rule on a team the caller may read', async () => {
      const over = await call('lead', 'POST', '/api/tasks', { title: 'Roof', team: teams.mine, cost: 1000 });
      expect(over.status).toBe(422);
      expect(over.body.errors).toEqual([expect.objectContaining({ field: 'cost', code: 'OVER_BUDGET' })]);
      const boss = await call('boss', 'POST', '/api/tasks', { title: 'Roof', team: teams.theirs, cost: 1000 });
      expect(boss.body.errors).toEqual([expect.objectContaining({ field: 'cost', code: 'OVER_BUDGET' })]);
    });
  });
});
