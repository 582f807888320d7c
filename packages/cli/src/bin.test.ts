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

  it('re-runs itself with --experimental-strip-types when Node does not strip types by default', () => {
    const result = ninepoint(['--no-experimental-strip-types'], ['check', 'missing.md']);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      'error: cannot read missing.md: no such file or folder (looked in the current folder)\n',
    );
  });

  it("keeps the node flags it was started with when it re-runs itself (npm start's and the image's)", () => {
    // A module preloaded in both processes prints the flags each was given.
    const result = spawnSync(
      process.execPath,
      ['--no-experimental-strip-types', '--max-semi-space-size=16', bin, '--version'],
      {
        cwd: root,
        encoding: 'utf8',
        env: {
          ...process.env,
          NODE_OPTIONS: '--import=data:text/javascript,console.error(JSON.stringify(process.execArgv))',
        },
      },
    );
    expect(result.status, result.stderr).toBe(0);
    const flags = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('['))
      .map((line) => JSON.parse(line) as string[]);
    expect(flags).toHaveLength(2);
    for (const given of flags) expect(given).toContain('--max-semi-space-size=16');
    expect(flags[1]).toContain('--experimental-strip-types');
  });
});
