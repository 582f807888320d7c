import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { specTypes } from '@ninepoint/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { modelOf, tempDir } from '../../test/helpers.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

const SHOP = `# Specification: Shop

## 1. What the product does and for whom

Orders taken from stock, for a before hook that reads and writes in the order's transaction.

## 3. Entities and their fields

### Stock

| field | type    | rules          |
| ----- | ------- | -------------- |
| item  | text    | required       |
| left  | integer | required, 0..1000 |

### Order

| field    | type    | rules              |
| -------- | ------- | ------------------ |
| item     | text    | required           |
| quantity | integer | required, 1..MAX_QUANTITY |

### Note

| field | type | rules    |
| ----- | ---- | -------- |
| text  | text | required |

## 7. The calls it makes

| method | path            | payload      | does         | answer |
| ------ | --------------- | ------------ | ------------ | ------ |
| GET    | /api/stocks     |              | list Stock   |        |
| POST   | /api/stocks     | Stock        | create Stock |        |
| PATCH  | /api/stocks/:id | Stock (left) | update Stock |        |
| GET    | /api/orders     |              | list Order   |        |
| POST   | /api/orders     | Order        | create Order |        |
| GET    | /api/notes      |              | list Note    |        |
| POST   | /api/notes      | Note         | create Note  |        |

### Code

| on                  | code                 |
| ------------------- | -------------------- |
| before create Order | take from stock.ts   |

## 8. The error catalogue

| code         | status | message                   |
| ------------ | ------ | ------------------------- |
| OUT_OF_STOCK | 409    | Not enough of it is left. |

## 9. Business constants and limits

| name         | value |
| ------------ | ----- |
| MAX_QUANTITY | 50    |
`;

// Notes first, then the stock: what a refusal must undo is written before it.
const STOCK = `import { defineHook } from './shop.types.ts';
export const take = defineHook('Order', async ({ changes, asSystem, refuse }) => {
  const item = String(changes.item);
  const quantity = Number(changes.quantity);
  await asSystem.create('Note', { text: 'asked for ' + quantity + ' ' + item });
  if (item === 'boom') throw new Error('the warehouse is on fire');
  if (item === 'hang') await new Promise(() => {});
  const [stock] = await asSystem.list('Stock', { item });
  if (!stock) refuse('OUT_OF_STOCK');
  if (stock.left < quantity) refuse('OUT_OF_STOCK');
  await asSystem.update('Stock', stock.id, { left: stock.left - quantity });
  // Read again in the same transaction: the hook sees its own write.
  const [after] = await asSystem.list('Stock', { item });
  if (after?.left !== stock.left - quantity) throw new Error('the hook did not see its own write');
});
`;

// On both databases: the held transaction is each store's own (SQLite's one connection held across
// the hook's awaits; a PostgreSQL connection of its own).
describe.each(TEST_DATABASES)('a before hook in its write’s transaction on $name', (database) => {
  const { dir, remove } = tempDir();
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let clerk: string;
  const call = callAs(() => server);

  beforeAll(async () => {
    writeFileSync(join(dir, 'stock.ts'), STOCK);
    writeFileSync(join(dir, 'shop.types.ts'), specTypes(modelOf(SHOP), 'shop.md'));
    fresh = await database.fresh();
    server = await createServer({
      model: modelOf(SHOP),
      ...fresh.options,
      logger: false,
      codeFolder: dir,
      // Long enough for a loaded machine; the hanging hook waits it out once.
      codeTimeoutMs: 2_000,
    });
    await server.app.ready();
    clerk = (await userWithToken(server, [])).authorization;
    for (const [item, left] of [
      ['bench', 5],
      ['stool', 1000],
    ] as const) {
      expect((await call(clerk, 'POST', '/api/stocks', { item, left })).status).toBe(201);
    }
  });

  afterAll(async () => {
    await server?.close();
    await fresh?.remove();
    remove();
  });

  const left = async (item: string) =>
    ((await call(clerk, 'GET', '/api/stocks')).body.items as { item: string; left: number }[]).find(
      (s) => s.item === item,
    )?.left;
  const notes = async () =>
    ((await call(clerk, 'GET', '/api/notes')).body.items as { text: string }[]).map((n) => n.text);
  const orders = async () => ((await call(clerk, 'GET', '/api/orders')).body.items as unknown[]).length;

  it('commits what the hook wrote with the order, and the hook reads its own writes', async () => {
    const order = await call(clerk, 'POST', '/api/orders', { item: 'bench', quantity: 3 });
    expect(order.status).toBe(201);
    expect(await left('bench')).toBe(2);
    expect(await notes()).toContain('asked for 3 bench');
    expect(await orders()).toBe(1);
  });

  it("rolls back the hook's own writes when it refuses with a catalogue error", async () => {
    const refused = await call(clerk, 'POST', '/api/orders', { item: 'bench', quantity: 3 });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('OUT_OF_STOCK');
    expect(await left('bench')).toBe(2);
    expect((await notes()).filter((n) => n === 'asked for 3 bench')).toHaveLength(1);
    expect(await orders()).toBe(1);
  });

  it("rolls back the hook's writes when the write itself is refused after it", async () => {
    // 60 pieces are in stock, but the order's own rule allows at most 50: the stock stays whole.
    const refused = await call(clerk, 'POST', '/api/orders', { item: 'stool', quantity: 60 });
    expect(refused.status).toBe(422);
    expect(await left('stool')).toBe(1000);
    expect(await notes()).not.toContain('asked for 60 stool');
    expect(await orders()).toBe(1);
  });

  it('loses nothing when the hook throws, and answers 500', async () => {
    const failed = await call(clerk, 'POST', '/api/orders', { item: 'boom', quantity: 1 });
    expect(failed.status).toBe(500);
    expect(failed.body.code).toBe('INTERNAL_ERROR');
    expect(await notes()).not.toContain('asked for 1 boom');
    expect(await orders()).toBe(1);
  });

  it('loses nothing when the hook hangs past the timeout, and serves other writes meanwhile and after', async () => {
    const hanging = call(clerk, 'POST', '/api/orders', { item: 'hang', quantity: 1 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Read while the hook hangs, with its note written and not committed: never seen (SQLite's
    // read waits for the held transaction to end; PostgreSQL's reads another connection).
    const seenMeanwhile = notes();
    // Made while the hook hangs: on SQLite it waits for the held transaction to end (at the
    // timeout), on PostgreSQL it is made at once on another connection; either way it is kept.
    const meanwhile = await call(clerk, 'POST', '/api/notes', { text: 'while it hung' });
    expect(meanwhile.status).toBe(201);
    // A read from outside never sees what the hook wrote before it hung.
    expect(await notes()).not.toContain('asked for 1 hang');
    const failed = await hanging;
    expect(failed.status).toBe(500);
    expect(await seenMeanwhile).not.toContain('asked for 1 hang');
    const texts = await notes();
    expect(texts).toContain('while it hung');
    expect(texts).not.toContain('asked for 1 hang');
    const after = await call(clerk, 'POST', '/api/orders', { item: 'stool', quantity: 10 });
    expect(after.status).toBe(201);
    expect(await left('stool')).toBe(990);
    expect(await orders()).toBe(2);
  });

  it('takes orders made at once from the stock the hook keeps, one hook after the other', async () => {
    expect((await call(clerk, 'POST', '/api/stocks', { item: 'shelf', left: 6 })).status).toBe(201);
    // Five orders of 2 from 6 shelves: each hook reads what the one before it committed (SQLite
    // holds one transaction at a time; PostgreSQL's hooks on Order take turns under a lock).
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => call(clerk, 'POST', '/api/orders', { item: 'shelf', quantity: 2 })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 409, 409]);
    expect(await left('shelf')).toBe(0);
  });
});

const BUDGETS = `# Specification: Budgets

## 1. What the product does and for whom

Expenses taken from a budget by a before hook, as the caller or as the system.

## 3. Entities and their fields

### Budget

| field | type    | rules             |
| ----- | ------- | ----------------- |
| team  | text    | required          |
| left  | integer | required, 0..100000 |

### Expense

| field  | type    | rules               |
| ------ | ------- | ------------------- |
| team   | text    | required            |
| amount | integer | required, 1..10000  |
| how    | choice of caller, system | required |

## 6. Roles and permissions

| role  | Budget               | Expense      | people |
| ----- | -------------------- | ------------ | ------ |
| staff | read                 | create, read | -      |
| boss  | create, read, update | create, read | manage |

## 7. The calls it makes

| method | path              | payload           | does           |
| ------ | ----------------- | ----------------- | -------------- |
| GET    | /api/budgets      |                   | list Budget    |
| POST   | /api/budgets      | Budget            | create Budget  |
| PATCH  | /api/budgets/:id  | Budget (left)     | update Budget  |
| GET    | /api/budgets/:id/history |            | history Budget |
| GET    | /api/expenses     |                   | list Expense   |
| POST   | /api/expenses     | Expense           | create Expense |

### Code

| on                    | code                    |
| --------------------- | ----------------------- |
| before create Expense | spend from spend.ts     |
`;

// The budget is taken down through the caller's own access, or through the system's.
const SPEND = `import { defineHook } from './budgets.types.ts';
export const spend = defineHook('Expense', async ({ changes, records, asSystem }) => {
  const access = changes.how === 'system' ? asSystem : records;
  const [budget] = await access.list('Budget', { team: String(changes.team) });
  if (!budget) return;
  await access.update('Budget', budget.id, { left: budget.left - Number(changes.amount) });
});
`;

describe.each(TEST_DATABASES)('what a before hook may write in its transaction on $name', (database) => {
  const { dir, remove } = tempDir();
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let staff: string;
  let boss: string;
  let bossId: string;
  let budget: string;
  const call = callAs(() => server);

  beforeAll(async () => {
    writeFileSync(join(dir, 'spend.ts'), SPEND);
    writeFileSync(join(dir, 'budgets.types.ts'), specTypes(modelOf(BUDGETS), 'budgets.md'));
    fresh = await database.fresh();
    server = await createServer({ model: modelOf(BUDGETS), ...fresh.options, logger: false, codeFolder: dir });
    await server.app.ready();
    staff = (await userWithToken(server, ['staff'])).authorization;
    const chief = await userWithToken(server, ['boss']);
    boss = chief.authorization;
    bossId = chief.user.id;
    const created = await call(boss, 'POST', '/api/budgets', { team: 'ops', left: 1000 });
    expect(created.status).toBe(201);
    budget = String(created.body.id);
  });

  afterAll(async () => {
    await server?.close();
    await fresh?.remove();
    remove();
  });

  const left = async () => (await call(staff, 'GET', '/api/budgets')).body.items as { left: number }[];
  const expenses = async () => ((await call(staff, 'GET', '/api/expenses')).body.items as unknown[]).length;

  it("refuses the whole write when the hook writes what the caller's role may not", async () => {
    const refused = await call(staff, 'POST', '/api/expenses', { team: 'ops', amount: 100, how: 'caller' });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('FORBIDDEN');
    expect(await left()).toEqual([expect.objectContaining({ left: 1000 })]);
    expect(await expenses()).toBe(0);
  });

  it("holds the hook's write as the system to the fields' rules, and refuses the whole write", async () => {
    const refused = await call(staff, 'POST', '/api/expenses', { team: 'ops', amount: 5000, how: 'system' });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('VALIDATION_FAILED');
    expect(await left()).toEqual([expect.objectContaining({ left: 1000 })]);
    expect(await expenses()).toBe(0);
  });

  it('writes as the caller whose role may, and as the system for one whose role may not, in history', async () => {
    expect((await call(boss, 'POST', '/api/expenses', { team: 'ops', amount: 100, how: 'caller' })).status).toBe(201);
    expect((await call(staff, 'POST', '/api/expenses', { team: 'ops', amount: 200, how: 'system' })).status).toBe(201);
    expect(await left()).toEqual([expect.objectContaining({ left: 700 })]);
    expect(await expenses()).toBe(2);
    const history = (await call(boss, 'GET', `/api/budgets/${budget}/history`)).body.items as { by: string }[];
    expect(history.slice(-2).map((e) => e.by)).toEqual([bossId, 'system']);
  });
});
