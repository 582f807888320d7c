import { join } from 'node:path';
import { createServer } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { LENDING_DESK } from '../../../server/test/helpers.ts';
import { piped, runIn, tempDir } from '../test-support.ts';

/** A folder with the lending desk as spec.md and one user, ada@example.org (staff). */
async function withAda(): Promise<string> {
  const dir = tempDir({ 'spec.md': LENDING_DESK });
  const added = await runIn(
    dir,
    ['users', 'add', 'ada@example.org', 'spec.md', '--role', 'staff', '--password-stdin'],
    { stdin: piped('correct horse battery staple') },
  );
  expect(added.code).toBe(0);
  return dir;
}

/** Who `GET /api/auth/me` says a bearer token is, against the app served from the folder's database. */
async function whoIs(dir: string, secret: string) {
  const server = await createServer({
    model: checkSpec(LENDING_DESK).model,
    dbPath: join(dir, 'ninepoint.db'),
    logger: false,
  });
  try {
    const response = await server.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { authorization: `Bearer ${secret}` },
    });
    return { status: response.statusCode, body: response.json() as Record<string, unknown> };
  } finally {
    await server.close();
  }
}

const tokensJson = async (dir: string) => {
  const listed = await runIn(dir, ['tokens', 'list', 'spec.md', '--json']);
  expect(listed.code).toBe(0);
  return (JSON.parse(listed.stdout) as { tokens: Record<string, unknown>[] }).tokens;
};

describe('ninepoint tokens create', () => {
  it('prints the secret alone on stdout, once, saying it cannot be shown again; the token acts as its user', async () => {
    const dir = await withAda();
    const created = await runIn(dir, ['tokens', 'create', 'ada@example.org', 'spec.md', '--name', 'ci']);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^npt_[\w-]{43}\n$/);
    expect(created.stderr).toMatch(
      /^Created the API token "ci" \(id [0-9a-f-]{36}\) for ada@example\.org\. Its secret follows; it cannot be shown again, so store it now\./,
    );
    const secret = created.stdout.trim();
    const me = await whoIs(dir, secret);
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ email: 'ada@example.org', roles: ['staff'] });
  });

  it('refuses a user who does not exist (exit 1); without --name the token is named "token"', async () => {
    const dir = await withAda();
    const nobody = await runIn(dir, ['tokens', 'create', 'bob@example.org', 'spec.md', '--name', 'ci']);
    expect(nobody.code).toBe(1);
    expect(nobody.stdout).toBe('');
    expect(nobody.stderr).toContain('error: There is no user with the email bob@example.org.\n');
    expect(await tokensJson(dir)).toEqual([]);
    const unnamed = await runIn(dir, ['tokens', 'create', 'ada@example.org', 'spec.md']);
    expect(unnamed.code).toBe(0);
    expect(unnamed.stdout).toMatch(/^npt_[\w-]{43}\n$/);
    expect(unnamed.stderr).toContain('Created the API token "token"');
    expect(await tokensJson(dir)).toEqual([expect.objectContaining({ email: 'ada@example.org', name: 'token' })]);
  });
});

describe('ninepoint tokens list', () => {
  it('lists the tokens with their user, name and times, never their secrets', async () => {
    const dir = await withAda();
    const secrets: string[] = [];
    for (const name of ['ci', 'backup']) {
      secrets.push(
        (await runIn(dir, ['tokens', 'create', 'ada@example.org', 'spec.md', '--name', name])).stdout.trim(),
      );
    }
    await whoIs(dir, secrets[0] ?? '');
    const text = await runIn(dir, ['tokens', 'list', 'spec.md']);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id +user +name +created +last used +revoked$/);
    expect(lines[1]).toMatch(
      /^[0-9a-f-]{36} {2}ada@example\.org {2}ci +\d{4}-\d\d-\d\d \d\d:\d\d UTC {2}\d{4}-.* UTC {2}-$/,
    );
    expect(lines[2]).toMatch(/^[0-9a-f-]{36} {2}ada@example\.org {2}backup {2}\d{4}-\d\d-\d\d \d\d:\d\d UTC {2}- +-$/);
    const json = await tokensJson(dir);
    expect(json).toEqual([
      expect.objectContaining({
        email: 'ada@example.org',
        name: 'ci',
        lastUsedAt: expect.any(String),
        revokedAt: null,
      }),
      expect.objectContaining({ email: 'ada@example.org', name: 'backup', lastUsedAt: null, revokedAt: null }),
    ]);
    for (const secret of secrets) {
      expect(text.stdout).not.toContain(secret);
      expect(JSON.stringify(json)).not.toContain(secret.slice(4, 20));
    }
  });

  it('says when there are none', async () => {
    const empty = await runIn(await withAda(), ['tokens', 'list', 'spec.md']);
    expect(empty.stdout).toMatch(/^No API tokens in SQLite: .*ninepoint\.db\.\n$/);
  });
});

describe('ninepoint tokens revoke', () => {
  it('revokes a token for good: its calls are refused, and revoking it again is refused', async () => {
    const dir = await withAda();
    const secret = (await runIn(dir, ['tokens', 'create', 'ada@example.org', 'spec.md', '--name', 'ci'])).stdout.trim();
    const [token] = await tokensJson(dir);
    const id = String(token?.id);
    const revoked = await runIn(dir, ['tokens', 'revoke', id, 'spec.md']);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toBe(`Revoked the API token "ci" (id ${id}) of ada@example.org.\n`);
    const me = await whoIs(dir, secret);
    expect(me.status).toBe(401);
    expect(me.body.code).toBe('NOT_SIGNED_IN');
    expect((await tokensJson(dir))[0]?.revokedAt).toEqual(expect.any(String));

    const again = await runIn(dir, ['tokens', 'revoke', id, 'spec.md']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`error: the API token ${id} was revoked already.`);
    const unknown = await runIn(dir, ['tokens', 'revoke', 'no-such-id', 'spec.md']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('error: there is no API token with the id no-such-id; tokens list shows them.');
  });
});
