import { checkSpec } from '@ninepoint/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, SQLITE_ONLY } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

/** A point 6 whose only row is `anyone`: it declares no role, but grants visitors what it says. */
const NOTICE_BOARD = `# Specification: Notice board

## 1. What the product does and for whom
Anyone may read and post notices.

## 2. Screens and routes
Not shown.

## 3. Entities and their fields
### Notice
| field | type | rules |
|---|---|---|
| text | text | required |

## 4. States and transitions
Not shown.

## 5. Validation rules
Not shown.

## 6. Roles and permissions
| role | Notice |
|---|---|
| anyone | create, read |

## 7. The calls it makes
Not shown.

## 8. The error catalogue
Not shown.

## 9. Business constants and limits
Not shown.
`;

describe.each(SQLITE_ONLY)('a roles table whose only row is anyone, on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(NOTICE_BOARD), ...fresh.options, logger: false });
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('lets a signed-out visitor create and list records', async () => {
    const created = await server.app.inject({
      method: 'POST',
      url: '/api/notices',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      payload: JSON.stringify({ text: 'Choir practice moved to Friday' }),
    });
    expect(created.statusCode).toBe(201);
    const listed = await server.app.inject({ method: 'GET', url: '/api/notices' });
    expect(listed.statusCode).toBe(200);
    expect((listed.json() as { items: { text: string }[] }).items.map((r) => r.text)).toEqual([
      'Choir practice moved to Friday',
    ]);
  });

  it('grants nothing it does not say: visitors may not delete', async () => {
    const listed = await server.app.inject({ method: 'GET', url: '/api/notices' });
    const [first] = (listed.json() as { items: { id: string }[] }).items;
    const answer = await server.app.inject({
      method: 'DELETE',
      url: `/api/notices/${first?.id}`,
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(answer.statusCode).toBeGreaterThanOrEqual(401);
    expect(answer.statusCode).toBeLessThanOrEqual(404);
    expect((await server.app.inject({ method: 'GET', url: '/api/notices' })).json()).toMatchObject({
      items: [{ text: 'Choir practice moved to Friday' }],
    });
  });
});

describe.each(SQLITE_ONLY)('a roles table whose only row is anyone and grants nothing, on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;

  beforeAll(async () => {
    fresh = await db.fresh();
    const { model } = checkSpec(NOTICE_BOARD.replace('| anyone | create, read |', '| anyone | - |'));
    server = await createServer({ model, ...fresh.options, logger: false });
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('lets nobody in: not visitors, not a signed-in user without roles', async () => {
    const { authorization } = await userWithToken(server, []);
    expect((await server.app.inject({ method: 'GET', url: '/api/notices' })).statusCode).toBe(401);
    const listed = await server.app.inject({ method: 'GET', url: '/api/notices', headers: { authorization } });
    expect(listed.statusCode).toBe(403);
  });
});
