import { blankSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { runIn, SPEC_WITH_ERROR, tempDir } from '../test-support.ts';

describe('ninepoint explain', () => {
  it('prints the model as text and exits 0 for a spec without errors', async () => {
    const dir = tempDir({ 'blank.md': blankSpec('Front desk') });
    const result = await runIn(dir, ['explain', 'blank.md']);
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith('Front desk\n')).toBe(true);
    expect(result.stdout).toContain('All nine points are not shown');
    expect(result.stderr).toBe('');
  });

  it('still explains what it could read when the spec has errors, with the errors on stderr and exit 1', async () => {
    const dir = tempDir({ 'desk.md': SPEC_WITH_ERROR });
    const result = await runIn(dir, ['explain', 'desk.md']);
    expect(result.code).toBe(1);
    expect(result.stdout.startsWith('Lending desk\n')).toBe(true);
    expect(result.stdout).not.toContain('desk.md:');
    expect(result.stderr).toMatch(/desk\.md:13:\d+ error /);
    expect(result.stderr).toMatch(/desk\.md has \d+ errors?; .*npx ninepoint check desk\.md/);
  });

  it('exits 2 when the file does not exist', async () => {
    const result = await runIn(tempDir(), ['explain', 'nowhere.md']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot read nowhere.md');
  });
});
