import type { NinepointServer } from '../src/app/server.ts';
import { assignableRoles } from '../src/compile/permissions.ts';
import { addUser, createApiToken } from '../src/people/accounts.ts';
import type { UserAccount } from '../src/people/users-store.ts';

export const TEST_PASSWORD = 'correct horse battery staple';

let counter = 0;

/** A user with these roles (every role of the spec when not given) and an API token for them. */
export async function userWithToken(
  server: NinepointServer,
  roles?: readonly string[],
  email = `user${++counter}@example.test`,
): Promise<{ user: UserAccount; token: string; authorization: string }> {
  const known = assignableRoles(server.compiled.model);
  const user = await addUser(server.auth, { email, roles: roles ?? known, password: TEST_PASSWORD }, known);
  const { secret } = await createApiToken(server.auth, user.email, 'tests');
  return { user, token: secret, authorization: `Bearer ${secret}` };
}

/**
 * A user with a fixed id, for tests whose records name one (`borrower: USER`): the id must be a
 * real user's, since references to users are checked. They cannot sign in (no usable password).
 */
export async function knownUser(server: NinepointServer, id: string, roles: readonly string[] = []): Promise<void> {
  const known = assignableRoles(server.compiled.model);
  await server.auth.users.add({
    id,
    email: `${id}@example.test`,
    name: `User ${id.slice(-4)}`,
    roles: roles.filter((r) => known.includes(r)),
    passwordHash: 'unusable: not an argon2 hash',
    createdAt: new Date().toISOString(),
  });
}

/** An answer of `callAs`: the status, the JSON body (`{}` when empty), the raw text and the headers. */
export interface CallAnswer {
  status: number;
  body: Record<string, unknown>;
  text: string;
  headers: Record<string, unknown>;
}

/**
 * Calls the app in-process as the holder of an `Authorization` value, with a JSON body when one
 * is given. `server` is a getter, since suites start their server in `beforeAll`.
 */
export function callAs(
  server: () => NinepointServer,
): (authorization: string, method: string, url: string, body?: unknown) => Promise<CallAnswer> {
  return async (authorization, method, url, body) => {
    const answer = await server().app.inject({
      method: method as 'GET',
      url,
      headers: { authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    return {
      status: answer.statusCode,
      body: (answer.body === '' ? {} : answer.json()) as Record<string, unknown>,
      text: answer.body,
      headers: answer.headers,
    };
  };
}
