import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkSpec } from '@ninepoint/spec';
import { afterAll, describe, expect, it } from 'vitest';

/** create-ninepoint's bin as the repository runs it (its examples read from examples/); pack-install runs it packed. */
const BIN = fileURLToPath(new URL('../packages/create-ninepoint/bin/create-ninepoint.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'ninepoint-create-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function create(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('create-ninepoint', () => {
  it('starts from an example with --example, with the modules its point 7 names, and the spec checks clean', () => {
    const made = create('shop', '--example', 'quotes');
    expect(made.stderr).toBe('');
    expect(made.stdout).toContain('Made shop: spec.md (the quotes example), package.json and README.md.');
    expect(readdirSync(join(dir, 'shop')).sort()).toEqual([
      'README.md',
      'package.json',
      'quotes',
      'quotes.types.ts',
      'spec.md',
    ]);
    const spec = readFileSync(join(dir, 'shop/spec.md'), 'utf8');
    expect(spec).toBe(readFileSync(new URL('../examples/quotes.md', import.meta.url), 'utf8'));
    expect(checkSpec(spec).ok).toBe(true);
    expect(readFileSync(join(dir, 'shop/README.md'), 'utf8')).toContain(
      'npx ninepoint users add you@example.org spec.md --role sales',
    );
  });

  it('refuses a folder that is there and not empty, and an example it does not have, changing nothing', () => {
    mkdirSync(join(dir, 'mine'));
    writeFileSync(join(dir, 'mine/notes.txt'), 'mine');
    const taken = create('mine');
    expect(taken.status).toBe(2);
    expect(taken.stderr).toContain('create-ninepoint: mine is there already and is not empty; name a new folder.');
    expect(readdirSync(join(dir, 'mine'))).toEqual(['notes.txt']);

    const unknown = create('other', '--example', 'helpdsk');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain(
      'there is no example "helpdsk"; the examples are expenses, helpdesk, lending-desk, quotes.',
    );
    expect(existsSync(join(dir, 'other'))).toBe(false);

    const none = create();
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('name the folder to make, e.g. npm create ninepoint my-app');
  });
});
