import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** Waits until `check` holds, polling: the watcher reacts within a few hundred milliseconds. */
async function eventually(check: () => Promise<boolean>, what: string, ms = 5000): Promise<void> {
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

  it('keeps the last good module when a save breaks it, and says why', async () => {
    writeFileSync(join(dir, 'version.ts'), "export const nothing = 'here';\n");
    await eventually(async () => errors.some((e) => e.includes('missing-export')), 'the broken save is reported');
    expect(await version()).toBe(22);
  });
});
