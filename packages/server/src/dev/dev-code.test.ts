import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userWithToken } from '../../test/users.ts';
import { type DevServer, serveDev } from './dev-server.ts';

// SQLite only: what is tested is the watcher and the module cache.
const SPEC = `# Specification: Counter

## 3. Entities and their fields

### Tally

| field | type    | rules    |
| ----- | ------- | -------- |
| name  | text    | required |

## 7. The calls it makes

| method | path                     | payload | does                  |
| ------ | ------------------------ | ------- | --------------------- |
| POST   | /api/tallies             | Tally   | create Tally          |
| GET    | /api/tallies/:id         |         | get Tally             |
| POST   | /api/tallies/:id/version |         | code version.ts       |
`;
const versionModule = (n: number) =>
  `import { defineCall } from './spec.types.ts';\nexport default defineCall('Tally', () => ({ version: ${n} }));\n`;

/** Waits until `check` holds, polling: the watcher reacts within a few hundred milliseconds (30 s is for a slow shared machine). */
async function eventually(check: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}

describe('ninepoint dev and the modules beside the spec', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ninepoint-dev-code-'));
  const errors: string[] = [];
  const printed: string[] = [];
  let dev: DevServer;
  let authorization: string;
  let id: string;

  beforeAll(async () => {
    writeFileSync(join(dir, 'spec.md'), SPEC);
    writeFileSync(join(dir, 'version.ts'), versionModule(1));
    const result = await serveDev({
      specPath: join(dir, 'spec.md'),
      dbPath: join(dir, 'data.db'),
      port: 0,
      logger: false,
      handleSignals: false,
      print: (line) => printed.push(line),
      printError: (line) => errors.push(line),
      env: {},
    });
    if (!result.ok) throw new Error(`dev did not start: ${errors.join('\n')}`);
    dev = result.server;
    authorization = (await userWithToken(dev.current(), [])).authorization;
    const created = await fetch(`${dev.url}/api/tallies`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'visits' }),
    });
    id = ((await created.json()) as { id: string }).id;
  });

  afterAll(async () => {
    await dev?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const version = async () => {
    const answer = await fetch(`${dev.url}/api/tallies/${id}/version`, { method: 'POST', headers: { authorization } });
    return ((await answer.json()) as { version?: number }).version;
  };

  it("writes the spec's types beside it at start", () => {
    expect(readFileSync(join(dir, 'spec.types.ts'), 'utf8')).toContain('export interface Tally {');
  });

  it('answers with the module as saved, without a restart', async () => {
    expect(await version()).toBe(1);
    writeFileSync(join(dir, 'version.ts'), versionModule(22));
    await eventually(async () => (await version()) === 22, 'the saved module answers');
    expect(printed).toContain('Ninepoint: loaded the modules beside the spec again.');
  });

  it("writes the spec's types again when the spec is saved", async () => {
    expect(readFileSync(join(dir, 'spec.types.ts'), 'utf8')).not.toContain('tally_count');
    writeFileSync(
      join(dir, 'spec.md'),
      SPEC.replace('| name  | text    | required |', '| name  | text    | required |\n| tally_count | integer |    |'),
    );
    await eventually(
      async () => readFileSync(join(dir, 'spec.types.ts'), 'utf8').includes('tally_count: number | null;'),
      'the types name the new field',
    );
  });

  it('keeps the last good module when a save breaks it, and says why', async () => {
    writeFileSync(join(dir, 'version.ts'), "export const nothing = 'here';\n");
    await eventually(async () => errors.some((e) => e.includes('missing-export')), 'the broken save is reported');
    expect(await version()).toBe(22);
  });
});

// In a real `ninepoint dev` process: Node's own loader (not the test runner's) caches each module
// by its URL, so only a real process shows whether a helper the named module imports is loaded anew.
describe('ninepoint dev in its own process and a module that imports a helper', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ninepoint-dev-graph-'));
  const bin = fileURLToPath(new URL('../../../cli/bin/ninepoint.js', import.meta.url));
  const spec = `${SPEC.replace('| POST   | /api/tallies/:id/version |         | code version.ts       |', '| POST   | /api/tallies/:id/version |         | code counting/version.ts |')}
## 6. Roles and permissions

| role  | Tally        |
| ----- | ------------ |
| clerk | create, read |
`;
  const rateModule = `import { defineCall } from '../spec.types.ts';\nimport { rate } from './lib/rate.ts';\nexport default defineCall('Tally', () => ({ rate: rate() }));\n`;
  const helper = (n: number) => `import { base } from './base.ts';\nexport const rate = () => base * ${n};\n`;
  let child: ChildProcess | null = null;
  let url = '';
  let cookie = '';
  let id = '';

  beforeAll(async () => {
    mkdirSync(join(dir, 'counting', 'lib'), { recursive: true });
    writeFileSync(join(dir, 'spec.md'), spec);
    writeFileSync(join(dir, 'counting', 'version.ts'), rateModule);
    writeFileSync(join(dir, 'counting', 'lib', 'rate.ts'), helper(2));
    writeFileSync(join(dir, 'counting', 'lib', 'base.ts'), 'export const base = 10;\n');
    const dev = spawn(
      process.execPath,
      [bin, 'dev', join(dir, 'spec.md'), '--port', '0', '--db', join(dir, 'app.db')],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'warn', NO_COLOR: '1' },
      },
    );
    child = dev;
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const read = (chunk: Buffer) => {
        out += chunk.toString();
        const match = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (match?.[1]) resolve(match[1]);
      };
      dev.stdout?.on('data', read);
      dev.stderr?.on('data', read);
      dev.on('exit', (code) => reject(new Error(`ninepoint dev exited with ${code} before listening:\n${out}`)));
    });
    const signedIn = await fetch(`${url}/api/dev/sign-in-as`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: url },
      body: JSON.stringify({ role: 'clerk' }),
    });
    expect(signedIn.status).toBe(200);
    cookie = (signedIn.headers.get('set-cookie') ?? '').split(';', 1)[0] ?? '';
    const created = await fetch(`${url}/api/tallies`, {
      method: 'POST',
      headers: { cookie, origin: url, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'visits' }),
    });
    expect(created.status).toBe(201);
    id = ((await created.json()) as { id: string }).id;
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const rate = async () => {
    const answer = await fetch(`${url}/api/tallies/${id}/version`, {
      method: 'POST',
      headers: { cookie, origin: url },
    });
    return ((await answer.json()) as { rate?: number }).rate;
  };

  it('answers with a saved helper two imports down, without a restart', async () => {
    expect(await rate()).toBe(20);
    writeFileSync(join(dir, 'counting', 'lib', 'rate.ts'), helper(3));
    await eventually(async () => (await rate()) === 30, 'the saved helper answers');
    writeFileSync(join(dir, 'counting', 'lib', 'base.ts'), 'export const base = 100;\n');
    await eventually(async () => (await rate()) === 300, "the saved helper's own import answers");
  });
});
