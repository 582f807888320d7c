import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blankSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { tempDir } from './test-support.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(root, 'packages/cli/bin/ninepoint.js');

/** examples/blank.md when it exists, else the same text in a temp folder. */
function blankExample(): string {
  const example = join(root, 'examples/blank.md');
  if (existsSync(example)) return 'examples/blank.md';
  const file = join(tempDir(), 'blank.md');
  writeFileSync(file, blankSpec());
  return file;
}

function ninepoint(nodeFlags: string[], args: string[]) {
  return spawnSync(process.execPath, [...nodeFlags, bin, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
}

describe('the ninepoint bin', () => {
  it('checks the blank example in a real process: exit 0, all nine points not shown', () => {
    const result = ninepoint([], ['check', blankExample()]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('All nine points are not shown');
  });

  it('runs Node with its young generation capped when started as a command, by its first line', () => {
    // As npx, a global install and the Docker image start it: the file itself, through its
    // `#!/usr/bin/env -S node …` line. The preloaded module prints the flags Node was given.
    const result = spawnSync(bin, ['--version'], {
      cwd: root,
      encoding: 'utf8',
      env: {
        ...process.env,
        NODE_OPTIONS: '--import=data:text/javascript,console.error(JSON.stringify(process.execArgv))',
      },
    });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stderr.split('\n')[0] ?? '')).toEqual(['--max-semi-space-size=16']);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('re-runs itself with --experimental-strip-types when Node does not strip types by default', () => {
    const result = ninepoint(['--no-experimental-strip-types'], ['check', 'missing.md']);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      'error: cannot read missing.md: no such file or folder (looked in the current folder)\n',
    );
  });
});
