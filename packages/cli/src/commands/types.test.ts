import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkSpec, specTypes } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { runIn, tempDir } from '../test-support.ts';

const EXAMPLES = new URL('../../../../examples/', import.meta.url);
const QUOTES = readFileSync(new URL('quotes.md', EXAMPLES), 'utf8');

const SPEC = `# Specification: Notes

## 3. Entities and their fields

### Note

| field | type | rules    |
| ----- | ---- | -------- |
| title | text | required |

## 7. The calls it makes

| method | path                  | does                   |
| ------ | --------------------- | ---------------------- |
| GET    | /api/notes            | list Note              |
| POST   | /api/notes/:id/stamp  | code stamp from code/notes.ts |

### Code

| on                 | code      |
| ------------------ | --------- |
| before create Note | guard.ts  |
`;

describe('ninepoint types and the modules ninepoint check looks for', () => {
  it('writes the spec types beside it, and check names each module missing or lacking its export', async () => {
    const dir = tempDir({ 'notes.md': SPEC });
    const types = await runIn(dir, ['types', 'notes.md']);
    expect(types.code).toBe(0);
    expect(types.stdout).toContain('Wrote notes.types.ts: 1 entity');
    const written = readFileSync(join(dir, 'notes.types.ts'), 'utf8');
    expect(written).toContain('export interface Note {');
    expect(written).toContain('export function defineCall<E extends EntityName>');

    const missing = await runIn(dir, ['check', 'notes.md', '--json']);
    expect(missing.code).toBe(1);
    const found = JSON.parse(missing.stdout)
      .diagnostics.filter((d: { code: string }) => d.code !== 'missing-section')
      .map((d: { code: string; message: string; line: number }) => [d.code, d.line, d.message]);
    expect(found).toEqual([
      [
        'missing-module',
        16,
        expect.stringMatching(/^Call POST \/api\/notes\/:id\/stamp runs code\/notes\.ts, which is not there/),
      ],
      ['missing-module', 22, expect.stringMatching(/^The hook before create Note runs guard\.ts, which is not there/)],
    ]);

    // Type stripping: a module importing the written types runs with nothing else installed.
    writeFileSync(
      join(dir, 'guard.ts'),
      "import { defineHook } from './notes.types.ts';\nexport default defineHook('Note', () => {});\n",
    );
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'code'));
    writeFileSync(
      join(dir, 'code', 'notes.ts'),
      "import { defineCall } from '../notes.types.ts';\nexport const stmp = defineCall('Note', ({ record }) => record);\n",
    );
    const misnamed = await runIn(dir, ['check', 'notes.md']);
    expect(misnamed.code).toBe(1);
    expect(misnamed.stdout).toContain(
      'error missing-export Call POST /api/notes/:id/stamp runs "stamp" of code/notes.ts, which it does not export.',
    );
    expect(misnamed.stdout).toContain('Did you mean "stmp"?');

    writeFileSync(
      join(dir, 'code', 'notes.ts'),
      "import { defineCall } from '../notes.types.ts';\nexport const stamp = defineCall('Note', ({ record }) => record);\n",
    );
    const clean = await runIn(dir, ['check', 'notes.md']);
    expect(clean.stdout).toContain('0 errors');
    expect(clean.code).toBe(0);
  });

  it('keeps examples/quotes.types.ts what `ninepoint types examples/quotes.md` writes', () => {
    const committed = readFileSync(new URL('quotes.types.ts', EXAMPLES), 'utf8');
    // Stale after a change to the spec or to the built-in codes: run `npx ninepoint types examples/quotes.md`.
    expect(committed, 'examples/quotes.types.ts is stale: run npx ninepoint types examples/quotes.md').toBe(
      specTypes(checkSpec(QUOTES).model, 'quotes.md'),
    );
  });

  it('has TypeScript refuse a module that misspells a field, a state, a transition, a constant or an error code', async () => {
    // The example's folder as a team has it: the spec, its written types, its modules, and one module with mistakes.
    const root = fileURLToPath(new URL('../../../../', import.meta.url));
    const dir = tempDir({ 'quotes.md': QUOTES, 'package.json': '{ "type": "module" }\n' });
    expect((await runIn(dir, ['types', 'quotes.md'])).code).toBe(0);
    cpSync(join(root, 'examples', 'quotes'), join(dir, 'quotes'), { recursive: true });
    writeFileSync(
      join(dir, 'quotes', 'misspelt.ts'),
      [
        "import { defineCall, defineHook } from '../quotes.types.ts';",
        "export const price = defineCall('Quote', async ({ record, constants, records, refuse }) => {",
        "  if (record.quantty > constants.MAX_QUANTITY) refuse('TOO_MANY');",
        "  if (record.state === 'priced') refuse('OUT_OF_STOCK');",
        "  if (record.quantity > constants.MAX_QTY) refuse('OUT_OF_STOCK');",
        "  await records.transition('Quote', record.id, 'approve');",
        '  return record;',
        '});',
        "export const guard = defineHook('Qoute', () => {});",
        '',
      ].join('\n'),
    );
    // The app's own package, as an installed app resolves it; the repository's settings.
    mkdirSync(join(dir, 'node_modules', '@ninepoint'), { recursive: true });
    symlinkSync(join(root, 'packages', 'server'), join(dir, 'node_modules', '@ninepoint', 'server'));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: join(root, 'tsconfig.json'),
        compilerOptions: { typeRoots: [join(root, 'node_modules', '@types')] },
        include: ['*.ts', 'quotes/*.ts'],
      }),
    );
    const tsc = spawnSync(
      process.execPath,
      [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir, '--pretty', 'false'],
      {
        cwd: dir,
        encoding: 'utf8',
      },
    );
    const errors = tsc.stdout.split('\n').filter((line) => /error TS\d+/.test(line));
    // The example's own modules check clean; each mistake is an error on its line.
    expect(
      errors.every((e) => e.startsWith('quotes/misspelt.ts(')),
      errors.join('\n'),
    ).toBe(true);
    const lines = errors.map((e) => Number(/^quotes\/misspelt\.ts\((\d+),/.exec(e)?.[1]));
    expect([...new Set(lines)].sort((a, b) => a - b)).toEqual([3, 4, 5, 6, 9]);
    expect(tsc.status).not.toBe(0);
  });
});
