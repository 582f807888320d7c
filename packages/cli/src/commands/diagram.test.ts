import { readFileSync } from 'node:fs';
import { blankSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { runIn, SPEC_WITH_ERROR, tempDir } from '../test-support.ts';

const LENDING_DESK = readFileSync(new URL('../../../../examples/lending-desk.md', import.meta.url), 'utf8');

describe('ninepoint diagram', () => {
  it('prints the entity and state diagrams as Mermaid blocks and the permission matrix', async () => {
    const { code, stdout } = await runIn(tempDir({ 'spec.md': LENDING_DESK }), ['diagram', 'spec.md']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^## Entities and references\n\n```mermaid\nerDiagram\n/);
    expect(stdout).toContain('## Loan states\n\n```mermaid\nstateDiagram-v2\n');
    expect(stdout).toContain('  [*] --> s0 : lend (staff) when book.copies #62; 0');
    expect(stdout).toMatch(/## Permissions\n\n\| entity \| staff \| member \|/);
  });

  it('prints one kind with --only, and refuses an unknown kind', async () => {
    const dir = tempDir({ 'spec.md': LENDING_DESK });
    const states = await runIn(dir, ['diagram', 'spec.md', '--only', 'states']);
    expect(states.stdout).not.toContain('erDiagram');
    expect(states.stdout).not.toContain('## Permissions');
    expect(states.stdout).toContain('stateDiagram-v2');
    const wrong = await runIn(dir, ['diagram', 'spec.md', '--only', 'flows']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--only must be one of entities, states, permissions');
  });

  it('says there is nothing to draw for the blank spec, and refuses a spec with errors', async () => {
    const blank = await runIn(tempDir({ 'spec.md': blankSpec('Blank') }), ['diagram', 'spec.md']);
    expect(blank).toMatchObject({ code: 0, stdout: '' });
    expect(blank.stderr).toContain('Nothing to draw');
    const broken = await runIn(tempDir({ 'spec.md': SPEC_WITH_ERROR }), ['diagram', 'spec.md']);
    expect(broken.code).toBe(1);
  });
});
