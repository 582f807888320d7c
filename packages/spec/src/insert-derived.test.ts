import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { effectiveCalls } from './derive-calls.ts';
import { effectiveScreens } from './derive-screens.ts';
import { insertDerived } from './insert-derived.ts';

const example = (name: string) => readFileSync(new URL(`../../../examples/${name}`, import.meta.url), 'utf8');
const comparable = <T extends { span: unknown; derived?: unknown }>(items: T[]) =>
  items.map(({ span: _span, derived: _derived, ...rest }) => rest);

const TWO_ENTITIES = `# Specification: Notes

## 1. What the product does and for whom
Keeps notes.

## 3. Entities and their fields
### Note
| field | type | rules |
|---|---|---|
| title | text | required |
| folder | Folder | optional |

### Folder
| field | type | rules |
|---|---|---|
| name | text | required |

## 8. The error catalogue
Not shown.
`;

describe('insertDerived', () => {
  it('writes the derived calls into a point 7 that says "Not shown." and serves the same calls', () => {
    const source = example('helpdesk.md');
    const before = checkSpec(source);
    const after = checkSpec(insertDerived(source, before.model, 'calls'));
    expect(after.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(after.model.points.find((p) => p.key === 'calls')?.shown).toBe(true);
    expect(comparable(effectiveCalls(after.model))).toEqual(comparable(effectiveCalls(before.model)));
    expect(insertDerived(source, before.model, 'calls')).not.toMatch(/## 7\. The calls it makes\s+Not shown/);
  });

  it('adds a missing section in its place among the nine, for screens and for calls', () => {
    const before = checkSpec(TWO_ENTITIES);
    const withScreens = insertDerived(TWO_ENTITIES, before.model, 'screens');
    expect(withScreens.indexOf('## 2. Screens and routes')).toBeLessThan(withScreens.indexOf('## 3.'));
    const middle = checkSpec(withScreens);
    expect(middle.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(comparable(effectiveScreens(middle.model))).toEqual(comparable(effectiveScreens(before.model)));

    const withCalls = insertDerived(withScreens, middle.model, 'calls');
    expect(withCalls.indexOf('## 7. The calls it makes')).toBeGreaterThan(withCalls.indexOf('### Folder'));
    expect(withCalls.indexOf('## 7. The calls it makes')).toBeLessThan(withCalls.indexOf('## 8.'));
    const after = checkSpec(withCalls);
    expect(after.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(comparable(effectiveCalls(after.model))).toEqual(comparable(effectiveCalls(before.model)));
  });

  it('keeps the prose of the point and drops only its "not shown" sentence', () => {
    const source = TWO_ENTITIES.replace(
      '## 8. The error catalogue',
      '## 7. The calls it makes\nThe mobile app will use these.\n\nCalls are not shown.\n\n## 8. The error catalogue',
    );
    const result = insertDerived(source, checkSpec(source).model, 'calls');
    expect(result).toContain('The mobile app will use these.\n\n| method | path |');
    expect(result).not.toContain('Calls are not shown.');
  });

  it('leaves a point that is already shown as it is', () => {
    const source = example('lending-desk.md');
    expect(insertDerived(source, checkSpec(source).model, 'calls')).toBe(source);
  });
  it('finds the section as Markdown does: setext headings, fenced "## " lines, indented headings', () => {
    const base = TWO_ENTITIES.replace('## 8. The error catalogue\nNot shown.\n', '');
    const cases = [
      `The calls it makes\n------------------\nNot shown.\n\nThe error catalogue\n-------------------\nNot shown.\n`,
      `## 7. The calls it makes\nNot shown.\n\n\`\`\`\n## not a heading\n\`\`\`\n\n## 8. The error catalogue\nNot shown.\n`,
      `## 7. The calls it makes\nNot shown.\n\n  ## 8. The error catalogue\nNot shown.\n`,
    ];
    for (const tail of cases) {
      const source = `${base}\n${tail}`;
      const result = insertDerived(source, checkSpec(source).model, 'calls');
      const after = checkSpec(result);
      expect(after.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(after.model.points.find((p) => p.key === 'calls')?.shown).toBe(true);
      // Point 8 keeps its heading and its own "Not shown.".
      expect(after.model.points.find((p) => p.key === 'errors')).toMatchObject({ shown: false });
      expect(after.model.points.find((p) => p.key === 'errors')?.span).not.toBeNull();
      expect(result.slice(result.indexOf('error catalogue'))).toContain('Not shown.');
    }
  });

  it('puts the table in the point itself, before its ### sub-sections', () => {
    const source = TWO_ENTITIES.replace(
      '## 8. The error catalogue',
      '## 7. The calls it makes\nNot shown.\n\n### Later\nThe mobile app.\n\n## 8. The error catalogue',
    );
    const result = insertDerived(source, checkSpec(source).model, 'calls');
    expect(result.indexOf('| method | path |')).toBeLessThan(result.indexOf('### Later'));
    expect(result).toContain('### Later\nThe mobile app.\n');
  });

  it('keeps CRLF line ends throughout', () => {
    const source = TWO_ENTITIES.replace('## 8.', '## 7. The calls it makes\nNot shown.\n\n## 8.').replace(
      /\n/g,
      '\r\n',
    );
    const result = insertDerived(source, checkSpec(source).model, 'calls');
    expect(result).toContain('| method | path |');
    expect(result.replace(/\r\n/g, '')).not.toContain('\n');
  });
});
