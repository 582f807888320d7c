import { blankSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { LENDING_DESK } from '../../../server/test/helpers.ts';
import type { Context } from '../context.ts';
import { DOCS_FOLDER } from '../package-files.ts';
import { serveOptions } from '../serving.ts';
import { piped, runIn, startBin, tempDir } from '../test-support.ts';

// Concurrent: each test has a folder and processes of its own, and most of its time is spent
// waiting on the bin's processes to start (seven in all, the file's longest part).
describe.concurrent('ninepoint serve', () => {
  it('prints how to add the first user while the database has none, and nothing once one exists', async () => {
    const dir = tempDir({ 'spec.md': LENDING_DESK });
    const first = await startBin(dir, ['serve', 'spec.md', '--port', '0', '--db', 'data/app.db']);
    await first.waitFor(/no users yet/);
    expect(first.stdout()).toContain(
      `Ninepoint: serving "Lending desk" at ${first.url} (SQLite: ${dir}/data/app.db)\n` +
        // The docs the CLI carries, found from where it runs: here the repository's, outside the folder.
        `Ninepoint: email is not configured: password reset links are not sent (set SMTP_URL, MAIL_FROM and APP_URL; see ${DOCS_FOLDER}sign-in.md)\n` +
        'Ninepoint: no users yet; add the first with: ' +
        'npx ninepoint users add <email> --role <staff|member> --db data/app.db spec.md\n',
    );
    expect(await first.stop()).toBe(0);

    const added = await runIn(
      dir,
      ['users', 'add', 'ada@example.org', 'spec.md', '--role', 'staff', '--db', 'data/app.db', '--password-stdin'],
      { stdin: piped('correct horse battery staple') },
    );
    expect(added.code).toBe(0);
    const second = await startBin(dir, ['serve', 'spec.md', '--port', '0', '--db', 'data/app.db']);
    expect((await fetch(`${second.url}/api/health`)).status).toBe(200);
    expect(await second.stop()).toBe(0);
    expect(second.stdout()).not.toContain('no users yet');
  });

  it('says to write a spec first when serving the blank spec', async () => {
    const dir = tempDir();
    const blank = await startBin(dir, ['serve', '--port', '0']);
    await blank.waitFor(/no users yet/);
    expect(blank.stdout()).toContain(
      'Ninepoint: no users yet; to add one, write a spec (npx ninepoint new spec.md), then: ' +
        'npx ninepoint users add <email> spec.md\n',
    );
    expect(await blank.stop()).toBe(0);
  });

  it('never answers the dev calls, not even on a database ninepoint dev made demo users in', async () => {
    const dir = tempDir({ 'spec.md': LENDING_DESK });
    const dev = await startBin(dir, ['dev', 'spec.md', '--port', '0']);
    expect(await dev.stop()).toBe(0);
    const served = await startBin(dir, ['serve', 'spec.md', '--port', '0']);
    try {
      for (const [method, path] of [
        ['GET', '/api/dev/roles'],
        ['POST', '/api/dev/sign-in-as'],
      ] as const) {
        const response = await fetch(`${served.url}${path}`, {
          method,
          headers: { origin: served.url, 'content-type': 'application/json' },
          ...(method === 'POST' ? { body: JSON.stringify({ role: 'staff' }) } : {}),
        });
        expect(response.status).toBe(404);
        expect(((await response.json()) as { code: string }).code).toBe('UNKNOWN_CALL');
        expect(response.headers.get('set-cookie')).toBeNull();
      }
      // Demo users cannot sign in here, so they do not count as users.
      await served.waitFor(/no users yet/);
    } finally {
      await served.stop();
    }
  });

  it('logs one readable line per request with --log-format pretty, and says where it serves once', async () => {
    const dir = tempDir({ 'spec.md': LENDING_DESK });
    const served = await startBin(dir, ['serve', 'spec.md', '--port', '0'], { LOG_LEVEL: 'info' });
    try {
      const health = await fetch(`${served.url}/api/health`);
      const id = health.headers.get('x-request-id') ?? '';
      await served.waitFor(new RegExp(`GET /api/health 200 \\d+\\.\\d ms ${id}\\n`));
      await fetch(`${served.url}/api/books/404`);
      await served.waitFor(/GET \/api\/books\/404 40[14] [A-Z_]+ \d+\.\d ms /);
      expect(served.stdout()).toMatch(/^\d\d:\d\d:\d\d GET \/api\/health 200 /m);
      expect(served.stdout().split(served.url).length - 1).toBe(1);
      expect(served.raw()).not.toContain('{');
    } finally {
      await served.stop();
    }
  });

  it('logs JSON lines only with --log-format json, the start-up lines as records', async () => {
    const dir = tempDir({ 'spec.md': LENDING_DESK });
    const served = await startBin(dir, ['serve', 'spec.md', '--port', '0', '--log-format', 'json'], {
      LOG_LEVEL: 'info',
    });
    try {
      const health = await fetch(`${served.url}/api/health`);
      const id = health.headers.get('x-request-id');
      const records = async () => {
        for (;;) {
          // Complete lines only: the last may still be being written.
          const lines = served.raw().split('\n').slice(0, -1);
          const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
          if (parsed.some((r) => r.reqId === id)) return parsed;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      const parsed = await records();
      expect(parsed.find((r) => r.reqId === id)).toMatchObject({
        level: 30,
        msg: 'request completed',
        req: { method: 'GET', url: '/api/health' },
        res: { statusCode: 200 },
      });
      expect(parsed.filter((r) => String(r.msg).includes(served.url))).toEqual([
        expect.objectContaining({
          level: 30,
          url: served.url,
          spec: 'Lending desk',
          msg: expect.stringMatching(/^serving /),
        }),
      ]);
      expect(parsed.find((r) => String(r.msg).startsWith('no users yet'))).toMatchObject({
        level: 40,
        command: 'npx ninepoint users add <email> --role <staff|member> spec.md',
      });
    } finally {
      await served.stop();
    }
  });

  it('exits 2 for a LOG_LEVEL that is not a level, naming the levels', async () => {
    const result = await runIn(tempDir({ 'spec.md': blankSpec() }), ['serve', 'spec.md', '--port', '0'], {
      env: { LOG_LEVEL: 'verbose' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: LOG_LEVEL must be fatal, error, warn, info, debug, trace or silent, not "verbose".\n',
    );
  });

  it('names the environment it reads in its help', async () => {
    const help = await runIn(tempDir(), ['serve', '--help']);
    expect(help.code).toBe(0);
    for (const name of ['DATABASE_URL', 'TRUST_PROXY', 'LOG_LEVEL', 'PORT', 'HOST']) {
      expect(help.stdout).toMatch(new RegExp(`^  (PORT, )?${name}\\b`, 'm'));
    }
    expect(help.stdout).toContain('--log-format <format>');
  });

  it('exits 2 for a PORT that is not a port, saying it came from PORT', async () => {
    const result = await runIn(tempDir({ 'spec.md': blankSpec() }), ['serve', 'spec.md'], { env: { PORT: '3000x' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: PORT must be a whole number from 0 to 65535, not "3000x".\n');
  });

  it('exits 2 for a port that is not a port, before starting', async () => {
    const result = await runIn(tempDir({ 'spec.md': blankSpec() }), ['serve', 'spec.md', '--port', 'http']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: --port must be a whole number from 0 to 65535, not "http".\n');
  });

  it('words a missing spec file as check does (and dev), exit 2, before starting', async () => {
    const dir = tempDir();
    for (const file of ['missing.md', 'sub/missing.md']) {
      const check = await runIn(dir, ['check', file]);
      expect(check.code).toBe(2);
      for (const command of ['serve', 'dev']) {
        const result = await runIn(dir, [command, file, '--port', '0']);
        expect({ command, code: result.code, stderr: result.stderr }).toEqual({
          command,
          code: 2,
          stderr: check.stderr,
        });
      }
    }
  });
});

describe('the SQLite synchronous setting of serve and dev', () => {
  const ctx = (env: Record<string, string> = {}): Context => ({
    io: { stdout: { write: () => {} }, stderr: { write: () => {} }, cwd: '/', env },
    exitCode: 0,
  });

  it('is --sqlite-synchronous, else SQLITE_SYNCHRONOUS in any case, else the default (normal)', () => {
    expect(serveOptions(ctx(), undefined, { db: 'x.db' }).sqliteSynchronous).toBeUndefined();
    expect(serveOptions(ctx({ SQLITE_SYNCHRONOUS: ' FULL ' }), undefined, { db: 'x.db' }).sqliteSynchronous).toBe(
      'full',
    );
    const both = serveOptions(ctx({ SQLITE_SYNCHRONOUS: 'full' }), undefined, {
      db: 'x.db',
      sqliteSynchronous: 'normal',
    });
    expect(both.sqliteSynchronous).toBe('normal');
  });

  it('refuses another SQLITE_SYNCHRONOUS or --sqlite-synchronous, saying which values it takes', async () => {
    const dir = tempDir();
    const fromEnv = await runIn(dir, ['serve', '--port', '0'], { env: { SQLITE_SYNCHRONOUS: 'extra' } });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('SQLITE_SYNCHRONOUS must be normal or full, not "extra".');
    const fromOption = await runIn(dir, ['serve', '--port', '0', '--sqlite-synchronous', 'off']);
    expect(fromOption.code).toBe(2);
    expect(fromOption.stderr).toContain("option '--sqlite-synchronous <mode>' argument 'off' is invalid");
  });
});
