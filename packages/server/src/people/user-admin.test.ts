import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { CLUB, modelOf } from '../../test/helpers.ts';
import { TEST_PASSWORD, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import { ACCOUNT_PAGE, type AccountHistoryAnswer } from './user-admin.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are JSON, read by tests that know their shape.
type Json = any;

const ORIGIN = 'http://localhost:80';

/** A spec without roles: every signed-in user may do everything, people included. */
const NO_ROLES = `# Specification: Open notes

## 1. What the product does and for whom
Notes anyone signed in keeps.

## 3. Entities and their fields
### Note
| field | type | rules |
|---|---|---|
| text | text | required |
`;

// On PostgreSQL too: the only suite of the account changes (roles, deactivation, sessions revoked) as SQL on each database.
describe.each(TEST_DATABASES)('user administration on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let secretary: Awaited<ReturnType<typeof userWithToken>>;
  let editor: Awaited<ReturnType<typeof userWithToken>>;

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(CLUB), ...fresh.options, logger: false });
    secretary = await userWithToken(server, ['secretary'], 'sam.secretary@club.example');
    editor = await userWithToken(server, ['editor'], 'eve.editor@club.example');
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  const call = async (authorization: string | null, method: string, url: string, body?: unknown, cookie?: string) => {
    const answer = await server.app.inject({
      method: method as 'GET',
      url,
      headers: {
        host: 'localhost:80',
        ...(authorization ? { authorization } : {}),
        ...(cookie ? { cookie: `np_session=${cookie}`, origin: ORIGIN } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    return { status: answer.statusCode, body: (answer.body === '' ? {} : answer.json()) as Json, answer };
  };
  const asSecretary = (method: string, url: string, body?: unknown) => call(secretary.authorization, method, url, body);
  const signIn = async (email: string, password = TEST_PASSWORD) => {
    const answer = await server.app.inject({
      method: 'POST',
      url: '/api/auth/sign-in',
      headers: { host: 'localhost:80', origin: ORIGIN, 'content-type': 'application/json' },
      payload: JSON.stringify({ email, password }),
    });
    const cookie = answer.cookies.find((c) => c.name === 'np_session')?.value;
    return { status: answer.statusCode, body: answer.json() as Json, cookie };
  };

  it('lists every account with email, roles, status and when it was made to those who manage people', async () => {
    const { status, body } = await asSecretary('GET', '/api/users');
    expect(status).toBe(200);
    expect(body.limit).toBe(ACCOUNT_PAGE.default);
    expect(body.offset).toBe(0);
    expect(body.total).toBeGreaterThanOrEqual(2);
    expect(body.items).toContainEqual({
      id: editor.user.id,
      email: 'eve.editor@club.example',
      name: 'eve.editor',
      roles: ['editor'],
      createdAt: editor.user.createdAt,
      active: true,
      deactivatedAt: null,
      twoFactor: false,
    });
  });

  it('searches names and emails, and pages with a total', async () => {
    for (const name of ['pat', 'pam', 'pia']) await userWithToken(server, ['member'], `${name}@page.example`);
    const byEmail = await asSecretary('GET', '/api/users?q=PAGE.EXAMPLE&limit=2');
    expect(byEmail.body.total).toBe(3);
    expect(byEmail.body.items.map((u: Json) => u.name)).toEqual(['pam', 'pat']);
    const next = await asSecretary('GET', '/api/users?q=page.example&limit=2&offset=2');
    expect(next.body.items.map((u: Json) => u.name)).toEqual(['pia']);
    expect((await asSecretary('GET', '/api/users?q=sam')).body.items.map((u: Json) => u.email)).toEqual([
      'sam.secretary@club.example',
    ]);
    for (const bad of ['limit=0', 'limit=101', 'offset=-1', 'offset=x', 'cursor=1']) {
      const answer = await asSecretary('GET', `/api/users?${bad}`);
      expect(answer.status, bad).toBe(400);
      expect(answer.body.code).toBe('INVALID_PAYLOAD');
    }
  });

  it('answers others as the picker does, and refuses them the changes and the history', async () => {
    // Editors may fill in a User field (Draft.author): they get names only.
    const picker = await call(editor.authorization, 'GET', '/api/users?q=sam');
    expect(picker.status).toBe(200);
    expect(picker.body).toEqual({ items: [{ id: secretary.user.id, name: 'sam.secretary' }] });
    expect((await call(editor.authorization, 'GET', '/api/users?offset=0')).status).toBe(400);
    const member = await userWithToken(server, ['member']);
    expect((await call(member.authorization, 'GET', '/api/users')).body.code).toBe('FORBIDDEN');
    for (const who of [editor, member]) {
      const patch = await call(who.authorization, 'PATCH', `/api/users/${member.user.id}`, { roles: ['editor'] });
      expect(patch.status).toBe(403);
      expect(patch.body.code).toBe('FORBIDDEN');
      const history = await call(who.authorization, 'GET', `/api/users/${member.user.id}/history`);
      expect(history.status).toBe(403);
    }
    expect((await call(null, 'PATCH', `/api/users/${member.user.id}`, { active: false })).body.code).toBe(
      'NOT_SIGNED_IN',
    );
    expect((await call(null, 'GET', `/api/users/${member.user.id}/history`)).status).toBe(401);
    expect((await server.auth.users.get(member.user.id))?.roles).toEqual(['member']);
  });

  it('changes roles, which the user’s next call and session already have', async () => {
    const member = await userWithToken(server, ['member']);
    const session = await signIn(member.user.email);
    expect(session.cookie).toBeDefined();
    expect((await call(member.authorization, 'GET', '/api/drafts')).status).toBe(403);
    const changed = await asSecretary('PATCH', `/api/users/${member.user.id}`, { roles: ['member', 'editor'] });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: member.user.id, roles: ['member', 'editor'], active: true });
    expect((await call(member.authorization, 'GET', '/api/drafts')).status).toBe(200);
    const me = await call(null, 'GET', '/api/auth/me', undefined, session.cookie);
    expect(me.body.user.roles).toEqual(['member', 'editor']);
    expect(me.body.access.Draft.read).toBe('all');
    expect(me.body.people).toEqual({ mayInvite: true, inviteRoles: ['member'], manage: false });
  });

  it('refuses roles the spec does not have, an unknown user, and a body that changes nothing', async () => {
    const member = await userWithToken(server, ['member']);
    const unknown = await asSecretary('PATCH', `/api/users/${member.user.id}`, { roles: ['member', 'owner'] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.code).toBe('VALIDATION_FAILED');
    expect(unknown.body.errors).toEqual([
      { field: 'roles', code: 'INVALID_CHOICE', message: 'roles must be one of secretary, editor, member.' },
    ]);
    // `anyone` is everybody's already: no account is given it.
    expect((await asSecretary('PATCH', `/api/users/${member.user.id}`, { roles: ['anyone'] })).status).toBe(422);
    const missing = await asSecretary('PATCH', '/api/users/0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f', { active: false });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('NOT_FOUND');
    expect((await asSecretary('PATCH', '/api/users/not-an-id', { active: false })).status).toBe(404);
    for (const body of [{}, { active: 'no' }, { roles: 'member' }, { roles: ['member', 'member'] }, { name: 'x' }]) {
      expect((await asSecretary('PATCH', `/api/users/${member.user.id}`, body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await server.auth.users.get(member.user.id))?.roles).toEqual(['member']);
  });

  it('deactivates an account: its session ends, its token and password stop working, pickers drop it', async () => {
    const member = await userWithToken(server, ['member'], 'dora.deactivated@club.example');
    const session = await signIn(member.user.email);
    expect((await call(null, 'GET', '/api/auth/me', undefined, session.cookie)).body.user.id).toBe(member.user.id);
    expect((await call(editor.authorization, 'GET', '/api/users?q=dora')).body.items).toHaveLength(1);

    const off = await asSecretary('PATCH', `/api/users/${member.user.id}`, { active: false });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    expect(Date.parse(off.body.deactivatedAt)).not.toBeNaN();

    expect((await call(null, 'GET', '/api/auth/me', undefined, session.cookie)).body.user).toBeNull();
    const token = await call(member.authorization, 'GET', '/api/notices');
    expect(token.status).toBe(401);
    expect(token.body.code).toBe('NOT_SIGNED_IN');
    const again = await signIn(member.user.email);
    expect(again.status).toBe(403);
    expect(again.body.code).toBe('ACCOUNT_DEACTIVATED');
    expect(again.cookie).toBeUndefined();
    // A wrong password is told nothing about the account.
    const wrong = await signIn(member.user.email, 'not the password at all');
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('SIGN_IN_FAILED');
    expect((await call(editor.authorization, 'GET', '/api/users?q=dora')).body.items).toEqual([]);
    // Records that name them still show their name.
    const named = await call(editor.authorization, 'GET', `/api/users?id=${member.user.id}`);
    expect(named.body.items).toEqual([{ id: member.user.id, name: 'dora.deactivated' }]);
    expect((await asSecretary('GET', '/api/users?q=dora')).body.items[0]).toMatchObject({ active: false });

    const on = await asSecretary('PATCH', `/api/users/${member.user.id}`, { active: true });
    expect(on.body).toMatchObject({ active: true, deactivatedAt: null });
    expect((await call(member.authorization, 'GET', '/api/notices')).status).toBe(200);
    expect((await signIn(member.user.email)).status).toBe(200);
  });

  it('refuses a manager deactivating themselves, and leaving no active account that manages people', async () => {
    // A server of its own: the other tests' secretaries would count.
    const own = await db.fresh();
    const club = await createServer({ model: modelOf(CLUB), ...own.options, logger: false });
    try {
      const first = await userWithToken(club, ['secretary']);
      const second = await userWithToken(club, ['secretary']);
      const patch = async (as: { authorization: string }, id: string, body: unknown) => {
        const answer = await club.app.inject({
          method: 'PATCH',
          url: `/api/users/${id}`,
          headers: { authorization: as.authorization, 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
        return { status: answer.statusCode, body: answer.json() as Json };
      };
      const self = await patch(first, first.user.id, { active: false });
      expect(self.status).toBe(409);
      expect(self.body.code).toBe('CANNOT_DEACTIVATE_SELF');
      expect((await patch(first, second.user.id, { active: false })).status).toBe(200);
      const last = await patch(first, first.user.id, { roles: ['editor'] });
      expect(last.status).toBe(409);
      expect(last.body.code).toBe('LAST_MANAGER');
      expect(last.body.detail).toMatch(/last active account that may manage people/);
      expect((await club.auth.users.get(first.user.id))?.roles).toEqual(['secretary']);
      // With the other reactivated, the first may step down, and is no manager any more.
      expect((await patch(first, second.user.id, { active: true })).status).toBe(200);
      expect((await patch(first, first.user.id, { roles: ['editor'] })).status).toBe(200);
      expect((await patch(first, second.user.id, { roles: ['member'] })).status).toBe(403);
      const demote = await patch(second, second.user.id, { roles: ['member'] });
      expect(demote.body.code).toBe('LAST_MANAGER');
    } finally {
      await club.close();
      await own.remove();
    }
  });

  it('lets one of two managers demoting each other at the same moment through, never both', async () => {
    const own = await db.fresh();
    const club = await createServer({ model: modelOf(CLUB), ...own.options, logger: false });
    try {
      const first = await userWithToken(club, ['secretary']);
      const second = await userWithToken(club, ['secretary']);
      const demote = (as: { authorization: string }, id: string) =>
        club.app.inject({
          method: 'PATCH',
          url: `/api/users/${id}`,
          headers: { authorization: as.authorization, 'content-type': 'application/json' },
          payload: JSON.stringify({ roles: ['member'] }),
        });
      const answers = await Promise.all([demote(first, second.user.id), demote(second, first.user.id)]);
      // The other is refused: LAST_MANAGER, or FORBIDDEN when its caller was demoted before it began.
      const statuses = answers.map((a) => a.statusCode).sort();
      expect(statuses[0]).toBe(200);
      expect([403, 409]).toContain(statuses[1]);
      const managers = (await club.auth.users.active()).filter((u) => u.roles.includes('secretary'));
      expect(managers).toHaveLength(1);
    } finally {
      await club.close();
      await own.remove();
    }
  });

  it('with no roles in point 6, lets every signed-in user manage people, but not deactivate themselves', async () => {
    const own = await db.fresh();
    const open = await createServer({ model: modelOf(NO_ROLES), ...own.options, logger: false });
    try {
      const ann = await userWithToken(open, []);
      const bob = await userWithToken(open, []);
      const as = (who: { authorization: string }, method: string, url: string, body?: unknown) =>
        open.app.inject({
          method: method as 'GET',
          url,
          headers: { authorization: who.authorization, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        });
      const list = (await as(ann, 'GET', '/api/users')).json() as Json;
      expect(list.total).toBe(2);
      expect(list.items.map((u: Json) => u.email).sort()).toEqual([ann.user.email, bob.user.email].sort());
      expect((await as(ann, 'PATCH', `/api/users/${bob.user.id}`, { active: false })).statusCode).toBe(200);
      expect((await as(ann, 'PATCH', `/api/users/${ann.user.id}`, { active: false })).json()).toMatchObject({
        code: 'CANNOT_DEACTIVATE_SELF',
      });
      const roles = await as(ann, 'PATCH', `/api/users/${ann.user.id}`, { roles: ['admin'] });
      expect(roles.statusCode).toBe(422);
    } finally {
      await open.close();
      await own.remove();
    }
  });

  it('keeps every change of an account in its history, with who made it and when', async () => {
    const member = await userWithToken(server, ['member'], 'hal.history@club.example');
    await asSecretary('PATCH', `/api/users/${member.user.id}`, { roles: ['editor'] });
    // A change to the same roles is no change.
    await asSecretary('PATCH', `/api/users/${member.user.id}`, { roles: ['editor'] });
    await asSecretary('PATCH', `/api/users/${member.user.id}`, { active: false });
    await asSecretary('PATCH', `/api/users/${member.user.id}`, { active: false });
    await asSecretary('PATCH', `/api/users/${member.user.id}`, { active: true, roles: ['member'] });
    const { status, body } = await asSecretary('GET', `/api/users/${member.user.id}/history`);
    expect(status).toBe(200);
    const items = body.items as AccountHistoryAnswer[];
    const by = { id: secretary.user.id, name: 'sam.secretary' };
    expect(items.map(({ id: _id, at: _at, ...rest }) => rest)).toEqual([
      { kind: 'created', how: 'terminal', roles: ['member'], by: null },
      { kind: 'roles-changed', from: ['member'], to: ['editor'], by },
      { kind: 'deactivated', by },
      { kind: 'roles-changed', from: ['editor'], to: ['member'], by },
      { kind: 'reactivated', by },
    ]);
    const times = items.map((e) => Date.parse(e.at));
    expect(times.every((t) => !Number.isNaN(t))).toBe(true);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect((await asSecretary('GET', '/api/users/0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f/history')).status).toBe(404);
  });
});
