import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthStore, addUser } from '@ninepoint/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgStore } from '../packages/server/src/store/postgres/pg-store.ts';
import { type FreshDatabase, POSTGRES_AVAILABLE, TEST_DATABASES } from '../packages/server/test/databases.ts';
import { LENDING_DESK, replaceOnce } from '../packages/server/test/helpers.ts';

const bin = new URL('../packages/cli/bin/ninepoint.js', import.meta.url).pathname;
const PASSWORD = 'correct horse battery staple';

/** The lending desk with low limits, so that sharing them between servers shows within a test. */
const SPEC = replaceOnce(
  LENDING_DESK,
  /\| MAX_LOANS {2}\|/,
  (row) =>
    `| RATE_LIMIT_PER_MINUTE | 40 | calls per user per minute |\n| SIGN_IN_ATTEMPTS_PER_15_MINUTES | 3 | failed sign-ins before a lockout |\n${row}`,
);

/** Starts `ninepoint serve` in a process of its own on the database, and answers its URL. */
function startServer(specPath: string, databaseUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [bin, 'serve', specPath, '--port', '0', '--log-format', 'pretty'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /serving "[^"]*" at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match?.[1]) resolve({ url: match[1], child });
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code} before listening:\n${out}`)));
  });
}

/**
 * Several app servers on one PostgreSQL database are one app: a session made on one is good on
 * the other, and sign-in lockouts and rate limits count the calls made to both.
 */
describe.skipIf(!POSTGRES_AVAILABLE && process.env.CI !== 'true')('two app servers on one PostgreSQL database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ninepoint-two-'));
  const specPath = join(dir, 'lending-desk.md');
  let fresh: FreshDatabase;
  let a: { url: string; child: ChildProcess };
  let b: { url: string; child: ChildProcess };

  beforeAll(async () => {
    writeFileSync(specPath, SPEC);
    const postgres = TEST_DATABASES.find((d) => d.name === 'postgres');
    if (!postgres) throw new Error('PostgreSQL is not in TEST_DATABASES');
    fresh = await postgres.fresh();
    const url = fresh.env.DATABASE_URL ?? '';
    a = await startServer(specPath, url);
    b = await startServer(specPath, url);
    const store = await PgStore.open(url);
    try {
      const auth = new AuthStore(store.sql);
      await auth.setUp();
      for (const email of ['staff@example.test', 'locked@example.test', 'busy@example.test']) {
        await addUser(auth, { email, roles: ['staff'], password: PASSWORD }, ['staff', 'member']);
      }
    } finally {
      await store.close();
    }
  });

  afterAll(async () => {
    a?.child.kill('SIGTERM');
    b?.child.kill('SIGTERM');
    await fresh?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  const signIn = (url: string, email: string, password = PASSWORD) =>
    fetch(`${url}/api/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });

  it('shares sessions: signed in on one server, signed in on the other; signed out on one, out on both', async () => {
    const response = await signIn(a.url, 'staff@example.test');
    expect(response.status).toBe(200);
    const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(cookie).toMatch(/^np_session=nps_/);
    const me = (await (await fetch(`${b.url}/api/auth/me`, { headers: { cookie } })).json()) as {
      user: { email: string } | null;
    };
    expect(me.user?.email).toBe('staff@example.test');
    const created = await fetch(`${b.url}/api/books`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', origin: b.url },
      body: JSON.stringify({ title: 'Dune', isbn: '9780441013593' }),
    });
    expect(created.status).toBe(201);
    const out = await fetch(`${b.url}/api/auth/sign-out`, { method: 'POST', headers: { cookie, origin: b.url } });
    expect(out.status).toBe(204);
    const after = (await (await fetch(`${a.url}/api/auth/me`, { headers: { cookie } })).json()) as { user: unknown };
    expect(after.user).toBeNull();
  });

  it('shares sign-in lockouts: failures on one server lock the account on the other', async () => {
    expect((await signIn(a.url, 'locked@example.test', 'wrong password!')).status).toBe(401);
    expect((await signIn(b.url, 'locked@example.test', 'wrong password!')).status).toBe(401);
    expect((await signIn(a.url, 'locked@example.test', 'wrong password!')).status).toBe(401);
    const locked = await signIn(b.url, 'locked@example.test');
    expect(locked.status).toBe(429);
    expect(((await locked.json()) as { code: string }).code).toBe('SIGN_IN_LOCKED');
  });

  it('shares the rate limit: calls to both servers count against one budget', async () => {
    // The limit counts per clock minute: start early in one, so that all 60 calls fall in it.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
    const response = await signIn(b.url, 'busy@example.test');
    const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const statuses: number[] = [];
    // 30 calls to each server: 60 in all, over the limit of 40 a minute once the counts are shared.
    for (let round = 0; round < 30; round++) {
      for (const server of [a, b]) {
        statuses.push((await fetch(`${server.url}/api/books`, { headers: { cookie } })).status);
      }
      // Servers add their counts to the shared counter about once a second.
      if (round % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 1200));
    }
    const refused = statuses.filter((s) => s === 429).length;
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(40);
    expect(refused).toBeGreaterThanOrEqual(20);
  });
});
