import { afterEach, describe, expect, it } from 'vitest';
import { LENDING_DESK, modelOf, tempDir } from '../../test/helpers.ts';
import { TEST_PASSWORD, userWithToken } from '../../test/users.ts';
import { trustProxyFromEnv } from '../app/serve.ts';
import { createServer, type NinepointServer, type TrustProxy } from '../app/server.ts';

const servers: { server: NinepointServer; remove: () => void }[] = [];
afterEach(async () => {
  for (const { server, remove } of servers.splice(0)) {
    await server.close();
    remove();
  }
});

async function start(trustProxy?: TrustProxy): Promise<NinepointServer> {
  const temp = tempDir();
  const server = await createServer({
    model: modelOf(LENDING_DESK),
    dbPath: temp.dbPath,
    logger: false,
    ...(trustProxy !== undefined ? { trustProxy } : {}),
  });
  servers.push({ server, remove: temp.remove });
  return server;
}

/** A browser's sign-in to https://app.example, as a TLS-terminating proxy forwards it. */
const proxiedSignIn = (server: NinepointServer, email: string) =>
  server.app.inject({
    method: 'POST',
    url: '/api/auth/sign-in',
    headers: {
      host: 'app.example',
      origin: 'https://app.example',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'app.example',
      'x-forwarded-for': '203.0.113.7',
      'content-type': 'application/json',
    },
    payload: { email, password: TEST_PASSWORD },
  });

describe('behind a reverse proxy', () => {
  it('signs in over the proxy’s HTTPS with a Secure __Host- cookie when the proxy is trusted', async () => {
    const server = await start(true);
    const { user } = await userWithToken(server, ['staff']);
    const answer = await proxiedSignIn(server, user.email);
    expect(answer.statusCode).toBe(200);
    const cookie = String(answer.headers['set-cookie']);
    expect(cookie).toMatch(/^__Host-np_session=nps_/);
    expect(cookie).toMatch(/; Secure/);
  });

  it('tells browsers to keep to HTTPS (HSTS) exactly when the trusted proxy says the request came over HTTPS', async () => {
    const trusted = await start(true);
    const get = (server: NinepointServer, proto?: string) =>
      server.app.inject({
        method: 'GET',
        url: '/api/health',
        headers: { host: 'app.example', ...(proto ? { 'x-forwarded-proto': proto } : {}) },
      });
    expect((await get(trusted, 'https')).headers['strict-transport-security']).toBe('max-age=31536000');
    expect((await get(trusted, 'http')).headers['strict-transport-security']).toBeUndefined();
    expect((await get(trusted)).headers['strict-transport-security']).toBeUndefined();
    // An untrusted client cannot claim HTTPS.
    const untrusted = await start();
    expect((await get(untrusted, 'https')).headers['strict-transport-security']).toBeUndefined();
  });

  it('trusts no forwarded header by default: the origin check refuses what it cannot verify', async () => {
    const server = await start();
    const { user } = await userWithToken(server, ['staff']);
    const answer = await proxiedSignIn(server, user.email);
    expect(answer.statusCode).toBe(403);
    expect(answer.json()).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('reads TRUST_PROXY as Fastify’s trustProxy', () => {
    expect(trustProxyFromEnv(undefined)).toBe(false);
    expect(trustProxyFromEnv(' false ')).toBe(false);
    expect(trustProxyFromEnv('true')).toBe(true);
    expect(trustProxyFromEnv('10.0.0.0/8, 127.0.0.1')).toBe('10.0.0.0/8, 127.0.0.1');
    const hops = trustProxyFromEnv('1');
    expect(typeof hops === 'function' && hops('10.0.0.1', 0)).toBe(true);
    expect(typeof hops === 'function' && hops('10.0.0.1', 1)).toBe(false);
  });
});

describe('guessing API tokens', () => {
  it('counts refused tokens against the address: past the limit the answer is RATE_LIMITED', async () => {
    const temp = tempDir();
    const source = LENDING_DESK.replace(
      '| MAX_LOANS  |',
      '| RATE_LIMIT_PER_MINUTE | 5 | calls per minute |\n| MAX_LOANS  |',
    );
    const server = await createServer({ model: modelOf(source), dbPath: temp.dbPath, logger: false });
    servers.push({ server, remove: temp.remove });
    const codes: string[] = [];
    for (let i = 0; i < 8; i++) {
      const answer = await server.app.inject({
        method: 'GET',
        url: '/api/books',
        headers: { authorization: `Bearer npt_${'x'.repeat(43)}` },
      });
      codes.push((answer.json() as { code: string }).code);
    }
    expect(codes.slice(0, 5)).toEqual(Array(5).fill('NOT_SIGNED_IN'));
    expect(codes.slice(5)).toEqual(Array(3).fill('RATE_LIMITED'));
  });
});
