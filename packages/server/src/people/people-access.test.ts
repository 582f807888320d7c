import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, SQLITE_ONLY } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

const CLUB = `# Specification: Club

## 1. What the product does and for whom
A club's members and its secretary.

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
| role      | Notice   | joins                 | people          |
|-----------|----------|-----------------------|-----------------|
| secretary | all      | -                     | manage          |
| member    | read     | sign up (club.example) | invite (member) |
| anyone    | read     |                       |                 |

## 7. The calls it makes
Not shown.

## 8. The error catalogue
Not shown.

## 9. Business constants and limits
Not shown.
`;

describe.each(SQLITE_ONLY)('what GET /api/auth/me says about people, on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(CLUB), ...fresh.options, logger: false });
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  const me = async (authorization?: string) =>
    (
      await server.app.inject({
        method: 'GET',
        url: '/api/auth/me',
        headers: authorization ? { authorization } : {},
      })
    ).json() as Record<string, unknown>;

  it('tells a signed-out visitor which roles they may sign up to, and nothing of people', async () => {
    expect(await me()).toMatchObject({
      user: null,
      people: null,
      signUp: [{ role: 'member', domains: ['club.example'] }],
    });
  });

  it('tells each signed-in user what they may do with people, from their roles', async () => {
    const member = await userWithToken(server, ['member']);
    expect((await me(member.authorization)).people).toEqual({
      mayInvite: true,
      inviteRoles: ['member'],
      manage: false,
    });
    const secretary = await userWithToken(server, ['secretary']);
    expect((await me(secretary.authorization)).people).toEqual({
      mayInvite: true,
      inviteRoles: ['secretary', 'member'],
      manage: true,
    });
    const nobody = await userWithToken(server, []);
    expect((await me(nobody.authorization)).people).toEqual({ mayInvite: false, inviteRoles: [], manage: false });
  });
});
