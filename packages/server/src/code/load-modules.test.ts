import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SERVER = fileURLToPath(new URL('../../', import.meta.url));
const LOADER = fileURLToPath(new URL('./load-modules.ts', import.meta.url));

const SPEC = `# Specification: Counter

## 3. Entities and their fields

### Tally

| field | type | rules    |
| ----- | ---- | -------- |
| name  | text | required |

## 7. The calls it makes

| method | path                 | payload | does         |
| ------ | -------------------- | ------- | ------------ |
| POST   | /api/tallies         | Tally   | create Tally |
| POST   | /api/tallies/:id/one |         | code one.ts  |
| POST   | /api/tallies/:id/two |         | code two.ts  |
`;

/**
 * Loads the spec's modules twice in a Node process of its own (Node's loader, not the test
 * runner's, caches by URL and runs the resolve hook) and answers, as JSON, which of what the
 * modules export are one object.
 */
const SCRIPT = `
import { readFileSync } from 'node:fs';
import { checkSpec } from '@ninepoint/spec';
const { loadModules } = await import(process.argv[1]);
const folder = process.argv[2];
const { model } = checkSpec(readFileSync(folder + '/spec.md', 'utf8'));
const first = await loadModules(model, folder, '1');
const again = await loadModules(model, folder, '1');
const next = await loadModules(model, folder, '2');
const made = (loaded, file) => loaded.namespaces.get(file).made;
console.log(JSON.stringify({
  facts: Object.fromEntries(first.facts),
  shared: made(first, 'one.ts') === made(first, 'two.ts'),
  oneImportsTwo: first.namespaces.get('one.ts').two === first.namespaces.get('two.ts'),
  sameVersionCached: made(again, 'one.ts') === made(first, 'one.ts'),
  nextVersionAnew: made(next, 'one.ts') !== made(first, 'one.ts') && made(next, 'one.ts') === made(next, 'two.ts'),
}));
`;

describe('loading the modules beside the spec', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ninepoint-load-modules-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads a helper two modules import once per load, as Node would, and anew for a new version', async () => {
    writeFileSync(join(dir, 'spec.md'), SPEC);
    // A module-level object: two copies of the helper would make two of them.
    writeFileSync(join(dir, 'shared.ts'), "export const made = { at: 'one instance' };\n");
    // The two named modules differ in size: each once had a URL of its own, and so did its imports.
    writeFileSync(
      join(dir, 'one.ts'),
      "import { made } from './shared.ts';\nimport * as two from './two.ts';\nexport { made, two };\nexport default () => made;\n",
    );
    writeFileSync(
      join(dir, 'two.ts'),
      "import { made } from './shared.ts';\nexport { made };\nexport default () => 2;\n",
    );
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', SCRIPT, LOADER, dir], {
      cwd: SERVER,
      timeout: 30_000,
    });
    expect(JSON.parse(stdout)).toEqual({
      facts: {
        'one.ts': { found: true, exports: { made: 'other', two: 'other', default: 'function' } },
        'two.ts': { found: true, exports: { made: 'other', default: 'function' } },
      },
      shared: true,
      oneImportsTwo: true,
      sameVersionCached: true,
      nextVersionAnew: true,
    });
  });
});
