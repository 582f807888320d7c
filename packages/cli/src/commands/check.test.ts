import { blankSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { runIn, SPEC_WITH_ERROR, SPEC_WITH_WARNING, tempDir } from '../test-support.ts';

describe('ninepoint check', () => {
  it('exits 0 on the blank spec and says that all nine points are not shown', async () => {
    const dir = tempDir({ 'blank.md': blankSpec() });
    const result = await runIn(dir, ['check', 'blank.md']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('All nine points are not shown');
    expect(result.stdout).toContain('blank.md: 0 of 9 points shown, 0 errors, 0 warnings');
    expect(result.stdout.match(/ not shown$/gm)).toHaveLength(9);
    expect(result.stderr).toBe('');
  });

  it('exits 1 when the spec has errors, printing each with its location and an underline of the cell', async () => {
    const dir = tempDir({ 'desk.md': SPEC_WITH_ERROR });
    const result = await runIn(dir, ['check', 'desk.md']);
    expect(result.code).toBe(1);
    const lines = result.stdout.split('\n');
    const head = lines.findIndex((l) => /^desk\.md:\d+:\d+ error \S+ /.test(l));
    expect(head).toBeGreaterThanOrEqual(0);
    const source = lines[head + 1] ?? '';
    const carets = lines[head + 2] ?? '';
    expect(source).toBe('  | copies | integr | required |');
    expect(source.slice(carets.indexOf('^'), carets.lastIndexOf('^') + 1)).toBe('integr');
    expect(result.stdout).toMatch(/^desk\.md: 1 of 9 points shown, [1-9]\d* errors?, \d+ warnings?$/m);
  });

  it('exits 0 when the spec has warnings only', async () => {
    const dir = tempDir({ 'warned.md': SPEC_WITH_WARNING });
    const result = await runIn(dir, ['check', 'warned.md']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/warned\.md:\d+:\d+ warning /);
    expect(result.stdout).toContain('0 errors, 1 warning');
  });

  it('prints the stable JSON document with --json, and exits as text mode does', async () => {
    const dir = tempDir({ 'desk.md': SPEC_WITH_ERROR, 'blank.md': blankSpec() });
    const failed = await runIn(dir, ['check', 'desk.md', '--json']);
    expect(failed.code).toBe(1);
    const json = JSON.parse(failed.stdout);
    expect(Object.keys(json)).toEqual(['version', 'file', 'ok', 'errors', 'warnings', 'points', 'diagnostics']);
    expect(json).toMatchObject({ version: 1, file: 'desk.md', ok: false });
    expect(json.errors).toBeGreaterThan(0);
    expect(json.points).toHaveLength(9);
    expect(json.diagnostics[0]).toMatchObject({ severity: 'error', line: 13 });

    const clean = await runIn(dir, ['check', '--json', 'blank.md']);
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({ ok: true, errors: 0, warnings: 0, diagnostics: [] });
  });

  it('colours the output on a terminal, and not when NO_COLOR is set', async () => {
    const dir = tempDir({ 'desk.md': SPEC_WITH_ERROR });
    expect((await runIn(dir, ['check', 'desk.md'], { tty: true })).stdout).toContain('\u001b[');
    const noColor = await runIn(dir, ['check', 'desk.md'], { tty: true, env: { NO_COLOR: '1' } });
    expect(noColor.stdout).not.toContain('\u001b[');
  });

  it('exits 2 with one plain line, no stack trace, when the file does not exist', async () => {
    const result = await runIn(tempDir(), ['check', 'nowhere.md']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'error: cannot read nowhere.md: no such file or folder (looked in the current folder)\n',
    );
  });

  it('exits 2 when given a folder instead of a file', async () => {
    const dir = tempDir();
    const result = await runIn(dir, ['check', '.']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('it is a folder, not a file');
  });

  it('exits 2 when the spec argument is missing', async () => {
    const result = await runIn(tempDir(), ['check']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("missing required argument 'spec.md'");
  });
});
