import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { quickFixes } from './quick-fixes.ts';

/** A spec whose entity Ticket has a field `priority` of `type`. */
function ticket(type: string) {
  const source = `# Specification: Colours

## 3. Entities and their fields

### Ticket

| field    | type    | rules    |
| -------- | ------- | -------- |
| title    | text    | required |
| priority | ${type} |          |
`;
  const result = checkSpec(source);
  // The other seven points are missing on purpose: their warnings are not this test's.
  const checked = { ...result, diagnostics: result.diagnostics.filter((d) => d.code !== 'missing-section') };
  return {
    source,
    checked,
    type: checked.model.entities[0]?.fields.find((f) => f.name === 'priority')?.type,
  };
}

describe('declared choice colours', () => {
  it('reads a colour in parentheses after a value, and leaves the others to the order', () => {
    const { checked, type } = ticket('choice of low (grey), normal, high (Orange), urgent (red)');
    expect(checked.diagnostics).toEqual([]);
    expect(type).toEqual({
      kind: 'choice',
      values: ['low', 'normal', 'high', 'urgent'],
      colours: { low: 'grey', high: 'orange', urgent: 'red' },
    });
  });

  it('reads gray as grey and purple as violet', () => {
    const { type } = ticket('choice of calm (gray), odd (purple)');
    expect(type).toMatchObject({ colours: { calm: 'grey', odd: 'violet' } });
  });

  it('gives a choice without declared colours no colours at all', () => {
    expect(ticket('choice of low, high').type).toEqual({ kind: 'choice', values: ['low', 'high'] });
  });

  it('warns of a colour outside the palette, names the palette, and offers the closest as a fix', () => {
    const { source, checked, type } = ticket('choice of low (gren), high (red)');
    expect(type).toEqual({ kind: 'choice', values: ['low', 'high'], colours: { high: 'red' } });
    expect(checked.diagnostics).toHaveLength(1);
    const d = checked.diagnostics[0];
    if (!d) throw new Error('no diagnostic');
    expect(d).toMatchObject({ code: 'unknown-colour', severity: 'warning' });
    expect(d.expected[0]).toBe('green');
    expect(d.hint).toContain('Did you mean "green"');
    expect(d.hint).toContain('grey, blue, indigo, violet');
    // The span is the colour word alone, so the quick fix replaces just it.
    const line = source.split('\n')[(d.line ?? 0) - 1] ?? '';
    expect(line.slice((d.column ?? 0) - 1, (d.endColumn ?? 0) - 1)).toBe('gren');
    const fixed = quickFixes(source, d).map((f) => source.slice(0, f.from) + f.insert + source.slice(f.to));
    expect(fixed[0]).toContain('choice of low (green), high (red)');
    expect(checkSpec(fixed[0] ?? '').diagnostics.filter((d) => d.code === 'unknown-colour')).toEqual([]);
  });

  it('still refuses a value that is not one, with or without a colour', () => {
    const { checked } = ticket('choice of lo/w (red), high');
    expect(checked.diagnostics.map((d) => d.code)).toEqual(['unknown-type']);
  });
});
