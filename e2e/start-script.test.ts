import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'ninepoint-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `npm start -- <args>` as npm does (node scripts/start.mjs from the repo), until it serves; then stops it. */
async function startOnce(args: string[], env: Record<string, string> = {}): Promise<{ out: string; url: string }> {
  const child = spawn(process.execPath, ['scripts/start.mjs', ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /serving "[^"]*" at (http:\/\/\S+:\d+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${out}`)));
  });
  const health = await fetch(`${url}/api/health`);
  expect(health.status).toBe(200);
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  return { out, url };
}

// Concurrent: each start has a database of its own and listens on a port of its own (0); the file's
// time is the three servers' starts.
describe.concurrent('npm start', () => {
  it('takes serve options without a spec, serving the blank spec with them', async () => {
    const db = join(dir, 'options.db');
    const { out, url } = await startOnce(['--port', '0', '--log-format', 'pretty', '--db', db]);
    expect(out).toContain(`Ninepoint: serving "New product" at ${url} (SQLite: ${db})`);
  });

  it('listens on PORT and HOST when no option names them, and an option wins over them', async () => {
    const db = join(dir, 'env.db');
    const [fromEnv, flagWins] = await Promise.all([
      startOnce(['--log-format', 'pretty', '--db', db], { PORT: '0', HOST: 'localhost' }),
      startOnce(['--log-format', 'pretty', '--db', join(dir, 'flag.db'), '--host', '127.0.0.1'], {
        PORT: '0',
        HOST: 'localhost',
      }),
    ]);
    expect(fromEnv.url).toMatch(/^http:\/\/localhost:\d+$/);
    expect(flagWins.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});
