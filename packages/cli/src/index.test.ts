import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runIn, tempDir } from './test-support.ts';

const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

describe('ninepoint (the program)', () => {
  it.each([[[]], [['new']], [['check']], [['explain']]])('prints help and exits 0 for %j --help', async (argv) => {
    const result = await runIn(tempDir(), [...argv, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: ninepoint ${argv.join(' ')}`.trimEnd());
    expect(result.stdout).toContain('Exit codes:');
  });

  it.each([[[]], [['new']], [['check']], [['explain']]])(
    'prints the version and exits 0 for %j --version',
    async (argv) => {
      const result = await runIn(tempDir(), [...argv, '--version']);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`${version}\n`);
    },
  );

  it('exits 2 and suggests the nearest command for an unknown one', async () => {
    const result = await runIn(tempDir(), ['chek', 'spec.md']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'chek'");
    expect(result.stderr).toContain('Did you mean check?');
  });

  it('exits 2 for an unknown option', async () => {
    const result = await runIn(tempDir(), ['check', 'spec.md', '--jsno']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown option '--jsno'");
  });

  it('exits 2 with the help on stderr when no command is given', async () => {
    const result = await runIn(tempDir(), []);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: ninepoint');
  });
});
