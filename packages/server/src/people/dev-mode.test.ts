import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { insertRowBefore, LENDING_DESK, modelOf, tempDir } from '../../test/helpers.ts';
import { TEST_PASSWORD, userWithToken } from '../../test/users.ts';
import { serve } from '../app/serve.ts';
import { createServer, type NinepointServer, type ServerOptions } from '../app/server.ts';
import { STUDIO_ROUTES } from '../dev/studio-routes.ts';
import { DEMO_EMAIL_DOMAIN, DEV_ROUTES, demoEmail, isDemoEmail } from './dev-mode.ts';

/** The app as a browser on this machine sees it in development. */
const HOST = 'localhost:3000';
const ORIGIN = `http://${HOST}`;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh database folder, removed after the test. */
function freshDb() {
  const temp = tempDir();
  cleanups.push(temp.remove);
  return temp;
}

async function start(options: Partial<ServerOptions> & { dbPath: string }): Promise<NinepointServer> {
  const server = await createServer({ model: modelOf(LENDING_DESK), logger: false, ...options });
  cleanups.push(() => server.close());
  return server;
}

interface Ask {
  body?: unknown;
  cookie?: string;
  origin?: string;
  host?: string;
  forwardedHost?: string;
}

async function call(server: NinepointServer, method: 'GET' | 'POST' | 'PUT', url: string, ask: Ask = {}) {
  const headers: Record<string, string> = { host: ask.host ?? HOST };
  if (ask.origin !== undefined) headers.origin = ask.origin;
  if (ask.forwardedHost !== undefined) headers['x-forwarded-host'] = ask.forwardedHost;
  if (ask.cookie !== undefined) headers.cookie = `np_session=${ask.cookie}`;
  if (ask.body !== undefined) headers['content-type'] = 'application/json';
  const response = await server.app.inject({
    method,
    url,
    headers,
    ...(ask.body !== undefined ? { payload: JSON.stringify(ask.body) } : {}),
  });
  const raw = response.headers['set-cookie'];
  const cookies = raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)];
  const session = cookies
    .find((c) => c.startsWith('np_session='))
    ?.split(';', 1)[0]
    ?.slice('np_session='.length);
  return {
    status: response.statusCode,
    body: (response.body === '' ? {} : response.json()) as Record<string, unknown>,
    cookies,
    session,
  };
}

const signInAs = (server: NinepointServer, role: string, ask: Ask = {}) =>
  call(server, 'POST', DEV_ROUTES.signInAs, { origin: ORIGIN, ...ask, body: { role } });

const me = async (server: NinepointServer, cookie: string) =>
  (await call(server, 'GET', '/api/auth/me', { cookie })).body.user as { email: string; roles: string[] } | null;

describe('development mode', () => {
  it('makes one demo user per assignable role, and keeps the same ones at the next start', async () => {
    const { dbPath } = freshDb();
    const first = await start({ dbPath, devMode: true });
    const users = await first.auth.users.all();
    expect(users.map((u) => [u.email, u.roles, u.name])).toEqual([
      [`member@${DEMO_EMAIL_DOMAIN}`, ['member'], 'Demo member'],
      [`staff@${DEMO_EMAIL_DOMAIN}`, ['staff'], 'Demo staff'],
    ]);
    await first.close();
    const again = await start({ dbPath, devMode: true });
    expect(await again.auth.users.all()).toEqual(users);
  });

  it('gives a demo user back its one role, and removes the demo user of a role the spec no longer has', async () => {
    const { dbPath } = freshDb();
    const withGuest = insertRowBefore(LENDING_DESK, ['member'], '| guest | read | - |');
    const first = await start({ model: modelOf(withGuest), dbPath, devMode: true });
    expect(await first.auth.users.byEmail(demoEmail('guest'))).toMatchObject({ roles: ['guest'] });
    await first.auth.users.setRoles(demoEmail('member'), ['staff', 'member']);
    const kept = await userWithToken(first, ['staff'], 'ada@example.org');
    await first.close();

    const again = await start({ dbPath, devMode: true });
    expect((await again.auth.users.all()).map((u) => [u.email, u.roles])).toEqual([
      ['ada@example.org', ['staff']],
      [demoEmail('member'), ['member']],
      [demoEmail('staff'), ['staff']],
    ]);
    expect(kept.user.email).toBe('ada@example.org');
  });

  it('lists the roles with their demo users', async () => {
    const server = await start({ dbPath: freshDb().dbPath, devMode: true });
    const answer = await call(server, 'GET', DEV_ROUTES.roles);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      roles: [
        { role: 'staff', email: 'staff@demo.ninepoint.test' },
        { role: 'member', email: 'member@demo.ninepoint.test' },
      ],
    });
  });

  it('signs in as a role with a session cookie like password sign-in, a new one each time', async () => {
    const server = await start({ dbPath: freshDb().dbPath, devMode: true });
    const staff = await signInAs(server, 'staff');
    expect(staff.status).toBe(200);
    expect(staff.body.user).toMatchObject({ email: demoEmail('staff'), roles: ['staff'] });
    expect(staff.session).toMatch(/^nps_[\w-]{43}$/);
    expect(staff.cookies[0]).toMatch(/; Path=\/; Expires=.*; HttpOnly; SameSite=Lax$/);
    expect(await me(server, staff.session ?? '')).toMatchObject({ email: demoEmail('staff') });

    // Switching roles from the app's page: the old session ends, the new one is someone else.
    const member = await signInAs(server, 'member', { cookie: staff.session ?? '' });
    expect(member.status).toBe(200);
    expect(member.session).not.toBe(staff.session);
    expect(await me(server, member.session ?? '')).toMatchObject({ email: demoEmail('member'), roles: ['member'] });
    expect(await me(server, staff.session ?? '')).toBeNull();

    // The session is a real one: the member may read books but not create one.
    const create = await call(server, 'POST', '/api/books', {
      cookie: member.session ?? '',
      origin: ORIGIN,
      body: { title: 'Dune', isbn: '9780441013593', copies: 1 },
    });
    expect(create.body.code).toBe('FORBIDDEN');
  });

  it('makes a demo user again when it was removed while the server ran', async () => {
    const server = await start({ dbPath: freshDb().dbPath, devMode: true });
    await server.auth.removeUser(demoEmail('staff'));
    const answer = await signInAs(server, 'staff');
    expect(answer.status).toBe(200);
    expect(await server.auth.users.byEmail(demoEmail('staff'))).toMatchObject({ roles: ['staff'] });
  });

  it('refuses a role the spec does not have, and a body that is not {role}', async () => {
    const server = await start({ dbPath: freshDb().dbPath, devMode: true });
    const unknown = await signInAs(server, 'anyone');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({
      code: 'INVALID_PAYLOAD',
      detail: 'The request is not valid: role must be a role of the spec (one of staff, member).',
    });
    expect(unknown.cookies).toEqual([]);
    const extra = await call(server, 'POST', DEV_ROUTES.signInAs, { body: { role: 'staff', as: 'admin' } });
    expect(extra.body.code).toBe('INVALID_PAYLOAD');
  });

  it('refuses sign-in-as from another origin, as password sign-in does', async () => {
    const server = await start({ dbPath: freshDb().dbPath, devMode: true });
    for (const origin of ['https://evil.example', 'null', 'http://localhost:3001']) {
      const answer = await signInAs(server, 'staff', { origin });
      expect(answer.status).toBe(403);
      expect(answer.body.code).toBe('FORBIDDEN');
      expect(answer.cookies).toEqual([]);
    }
    // Signed in by cookie, a call without any origin is refused like every other cookie call.
    const staff = await signInAs(server, 'staff');
    const bare = await call(server, 'POST', DEV_ROUTES.signInAs, {
      cookie: staff.session ?? '',
      body: { role: 'member' },
    });
    expect(bare.body.code).toBe('FORBIDDEN');
  });

  it('answers only requests addressed to localhost or an IP address (no DNS rebinding)', async () => {
    const server = await start({ dbPath: freshDb().dbPath, devMode: true });
    const rebound = await signInAs(server, 'staff', {
      host: 'attacker.example:3000',
      origin: 'http://attacker.example:3000',
    });
    expect(rebound.status).toBe(403);
    expect(rebound.body.detail).toContain('localhost or an IP address');
    expect((await call(server, 'GET', DEV_ROUTES.roles, { host: 'attacker.example' })).status).toBe(403);
    for (const host of ['127.0.0.1:3000', '[::1]:3000', '192.168.1.20:3000', 'app.localhost:3000']) {
      expect((await signInAs(server, 'staff', { host, origin: `http://${host}` })).status).toBe(200);
    }
  });

  it('judges the Host the browser sent, not X-Forwarded-Host, even behind a trusted proxy', async () => {
    const server = await start({ dbPath: freshDb().dbPath, devMode: true, trustProxy: true });
    const rebound = await call(server, 'GET', DEV_ROUTES.roles, {
      host: 'attacker.example:3000',
      forwardedHost: 'localhost:3000',
    });
    expect(rebound.status).toBe(403);
  });

  it('leaves demo users no way in but dev sign-in: their password is random and never shown', async () => {
    const server = await start({ dbPath: freshDb().dbPath, devMode: true });
    const found = await server.auth.users.forSignIn(demoEmail('staff'));
    expect(found?.passwordHash).toMatch(/^\$argon2id\$/);
    const answer = await call(server, 'POST', '/api/auth/sign-in', {
      origin: ORIGIN,
      body: { email: demoEmail('staff'), password: TEST_PASSWORD },
    });
    expect(answer.body.code).toBe('SIGN_IN_FAILED');
  });

  it('recognises demo emails', () => {
    expect(isDemoEmail('staff@demo.ninepoint.test')).toBe(true);
    expect(isDemoEmail('Staff@Demo.Ninepoint.Test')).toBe(true);
    expect(isDemoEmail('staff@ninepoint.test')).toBe(false);
  });
});

describe('without development mode', () => {
  const devCalls = [
    ['GET', DEV_ROUTES.roles],
    ['POST', DEV_ROUTES.signInAs],
    ['GET', STUDIO_ROUTES.studio],
    ['PUT', STUDIO_ROUTES.source],
    ['GET', STUDIO_ROUTES.events],
  ] as const;

  it('createServer answers UNKNOWN_CALL on the dev calls and makes no demo users', async () => {
    const server = await start({ dbPath: freshDb().dbPath });
    for (const [method, url] of devCalls) {
      const answer = await call(
        server,
        method,
        url,
        method !== 'GET' ? { origin: ORIGIN, body: { role: 'staff' } } : {},
      );
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe('UNKNOWN_CALL');
      expect(answer.cookies).toEqual([]);
    }
    expect(await server.auth.users.count()).toBe(0);
  });

  it('serve answers UNKNOWN_CALL on the dev calls, even on a database a dev server made demo users in', async () => {
    const temp = freshDb();
    const dev = await start({ dbPath: temp.dbPath, devMode: true });
    await dev.close();
    const specPath = join(temp.dir, 'spec.md');
    writeFileSync(specPath, LENDING_DESK);
    const result = await serve({
      specPath,
      dbPath: temp.dbPath,
      port: 0,
      databaseUrl: '',
      logger: false,
      handleSignals: false,
      print: () => {},
      printError: () => {},
    });
    if (!result.ok) throw new Error(`serve failed with ${result.exitCode}`);
    cleanups.push(() => result.server.close());
    for (const [method, path] of devCalls) {
      const response = await fetch(`${result.url}${path}`, {
        method,
        ...(method !== 'GET'
          ? { body: JSON.stringify({ role: 'staff' }), headers: { 'content-type': 'application/json' } }
          : {}),
      });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe('UNKNOWN_CALL');
      expect(response.headers.get('set-cookie')).toBeNull();
    }
  });
});
