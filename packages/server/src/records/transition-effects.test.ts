import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASES, type TestDatabase } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

/**
 * A help desk whose transitions set fields: resolving stamps who, the day and the instant;
 * reopening counts and moves the due date on by a duration. Agents may update only the title,
 * so every field a transition sets is one they have no permission to set themselves.
 */
const SPEC = `# Specification: Effects desk

## 3. Entities and their fields

### Ticket

| field       | type       | rules                   |
| ----------- | ---------- | ----------------------- |
| title       | text       | required                |
| due         | date       |                         |
| reopened    | integer    | 0..MAX_REOPENS, default 0 |
| decided_by  | User       |                         |
| decided_on  | date       |                         |
| resolved_at | datetime   |                         |
| bumps       | integer    | default 0               |

## 4. States and transitions

### Ticket

| transition | from     | to       | who   | sets                                                       |
| ---------- | -------- | -------- | ----- | ---------------------------------------------------------- |
| open       | (new)    | open     | agent |                                                            |
| resolve    | open     | resolved | agent | decided_by = user; decided_on = today; resolved_at = now   |
| reopen     | resolved | open     | agent | reopened = reopened + 1; due = due + GRACE                 |
| bump       | open     | open     | agent | bumps = bumps + 1                                          |

## 5. Validation rules

| rule           | applies to | condition     | error        |
| -------------- | ---------- | ------------- | ------------ |
| due in time    | Ticket.due | value <= LAST_DAY | DUE_TOO_LATE |

## 6. Roles and permissions

| role  | Ticket                        |
| ----- | ----------------------------- |
| agent | create, read, update (title, due) |

## 8. The error catalogue

| code         | status | message                               |
| ------------ | ------ | ------------------------------------- |
| DUE_TOO_LATE | 422    | A ticket must be due by {LAST_DAY}.   |

## 9. Business constants and limits

| name        | value      |
| ----------- | ---------- |
| MAX_REOPENS | 2          |
| GRACE       | 3 days     |
| LAST_DAY    | 2099-12-31 |
`;

type Json = Record<string, unknown>;

const today = () => new Date().toISOString().slice(0, 10);
const plusDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

// On PostgreSQL too: a transition's effects are written in its transaction, under each database's own locking (concurrent increments).
describe.each(TEST_DATABASES)('transition effects on $name', (db: TestDatabase) => {
  let server: NinepointServer;
  let remove: () => Promise<void>;
  let agent: { id: string; authorization: string };
  const call = callAs(() => server);
  const as = (method: string, url: string, body?: unknown) => call(agent.authorization, method, url, body);

  beforeAll(async () => {
    const fresh = await db.fresh();
    remove = fresh.remove;
    server = await createServer({ model: modelOf(SPEC), ...fresh.options, logger: false });
    const made = await userWithToken(server, ['agent']);
    agent = { id: made.user.id, authorization: made.authorization };
  });
  afterAll(async () => {
    await server.close();
    await remove();
  });

  const ticket = async (fields: Record<string, unknown> = {}) => {
    const made = await as('POST', '/api/tickets', { title: 'Printer on fire', ...fields });
    expect(made.status).toBe(201);
    return String(made.body.id);
  };
  const history = async (id: string) =>
    (await as('GET', `/api/tickets/${id}/history`)).body.items as Record<string, unknown>[];

  it('stamps the acting user, the UTC day and the instant of the transition', async () => {
    const id = await ticket();
    const resolved = await as('POST', `/api/tickets/${id}/resolve`);
    expect(resolved.body).toMatchObject({
      state: 'resolved',
      decided_by: agent.id,
      decided_on: today(),
      resolved_at: resolved.body.updated_at,
    });
    expect(String(resolved.body.resolved_at)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    // What was answered is what was stored.
    expect((await as('GET', `/api/tickets/${id}`)).body).toMatchObject({
      decided_by: agent.id,
      decided_on: today(),
      resolved_at: resolved.body.updated_at,
    });
  });

  it('sets fields the role may not update itself', async () => {
    const id = await ticket();
    const refused = await as('PATCH', `/api/tickets/${id}`, { decided_by: agent.id });
    expect(refused.status).toBe(403);
    const resolved = await as('POST', `/api/tickets/${id}/resolve`);
    expect(resolved.status).toBe(200);
    expect(resolved.body.decided_by).toBe(agent.id);
  });

  it('increments a number and moves a date on by a duration constant, and history shows both', async () => {
    const id = await ticket({ due: '2030-01-30' });
    await as('POST', `/api/tickets/${id}/resolve`);
    const reopened = await as('POST', `/api/tickets/${id}/reopen`);
    expect(reopened.status).toBe(200);
    expect(reopened.body).toMatchObject({ state: 'open', reopened: 1, due: '2030-02-02' });
    const entries = await history(id);
    expect(entries.map((e) => [e.action, e.transition])).toEqual([
      ['create', null],
      ['transition', 'resolve'],
      ['transition', 'reopen'],
    ]);
    expect(entries[1]?.changes).toEqual({
      decided_by: agent.id,
      decided_on: today(),
      resolved_at: entries[1]?.at,
    });
    expect(entries[1]?.before).toEqual({ decided_by: null, decided_on: null, resolved_at: null });
    expect(entries[2]).toMatchObject({
      from: 'resolved',
      to: 'open',
      changes: { reopened: 1, due: '2030-02-02' },
      before: { reopened: 0, due: '2030-01-30' },
    });
  });

  it("refuses a transition whose result breaks a field's range, and leaves everything as it was", async () => {
    const id = await ticket({ due: plusDays(today(), 10) });
    for (let round = 1; round <= 2; round++) {
      expect((await as('POST', `/api/tickets/${id}/resolve`)).status).toBe(200);
      expect((await as('POST', `/api/tickets/${id}/reopen`)).body.reopened).toBe(round);
    }
    expect((await as('POST', `/api/tickets/${id}/resolve`)).status).toBe(200);
    const before = await as('GET', `/api/tickets/${id}`);
    const entries = (await history(id)).length;
    const third = await as('POST', `/api/tickets/${id}/reopen`);
    expect(third.status).toBe(422);
    expect(third.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ field: 'reopened', code: 'OUT_OF_RANGE' }],
    });
    expect((await as('GET', `/api/tickets/${id}`)).body).toEqual(before.body);
    expect(await history(id)).toHaveLength(entries);
  });

  it('refuses a transition whose result breaks a rule, and leaves everything as it was', async () => {
    const id = await ticket({ due: '2099-12-30' });
    expect((await as('POST', `/api/tickets/${id}/resolve`)).status).toBe(200);
    const before = await as('GET', `/api/tickets/${id}`);
    const reopened = await as('POST', `/api/tickets/${id}/reopen`);
    expect(reopened.status).toBe(422);
    expect(reopened.body).toMatchObject({
      code: 'DUE_TOO_LATE',
      errors: [{ field: 'due', code: 'DUE_TOO_LATE', message: 'A ticket must be due by 2099-12-31.' }],
    });
    expect((await as('GET', `/api/tickets/${id}`)).body).toEqual(before.body);
    expect((await history(id)).map((e) => e.transition)).toEqual([null, 'resolve']);
  });

  it('refuses a transition whose effect needs an empty field, saying which field it sets', async () => {
    const id = await ticket();
    expect((await as('POST', `/api/tickets/${id}/resolve`)).status).toBe(200);
    const reopened = await as('POST', `/api/tickets/${id}/reopen`);
    expect(reopened.status).toBe(409);
    expect(reopened.body).toMatchObject({
      code: 'TRANSITION_NOT_ALLOWED',
      detail: 'Reopen sets due, but a field it needs is empty.',
    });
    expect((await as('GET', `/api/tickets/${id}`)).body).toMatchObject({ state: 'resolved', reopened: 0 });
  });

  it('increments inside the transaction: concurrent transitions lose no count', async () => {
    const id = await ticket();
    const answers = await Promise.all(Array.from({ length: 12 }, () => as('POST', `/api/tickets/${id}/bump`)));
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 12 }, () => 200));
    expect((await as('GET', `/api/tickets/${id}`)).body.bumps).toBe(12);
    const counts = (await history(id)).filter((e) => e.transition === 'bump').map((e) => (e.changes as Json).bumps);
    expect(counts.sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  it('says in the OpenAPI document what each transition sets', async () => {
    const document = (await as('GET', '/api/openapi.json')).body as {
      paths: Record<string, Record<string, { description?: string }>>;
    };
    expect(document.paths['/api/tickets/{id}/resolve']?.post?.description).toBe(
      'Sets `decided_by = user`, `decided_on = today`, `resolved_at = now` as it is taken, after its guard; the rules are checked on the result.',
    );
    expect(document.paths['/api/tickets/{id}']?.get?.description).toBeUndefined();
  });

  it('adds days across a month end and a leap day as UTC days', async () => {
    const id = await ticket({ due: '2028-02-27' });
    await as('POST', `/api/tickets/${id}/resolve`);
    expect((await as('POST', `/api/tickets/${id}/reopen`)).body.due).toBe('2028-03-01');
    expect((await as('GET', `/api/tickets/${id}`)).body.due).toBe('2028-03-01');
  });
});
