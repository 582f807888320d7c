import { readdirSync, readFileSync } from 'node:fs';
import { checkSpec, specDiagrams } from '@ninepoint/spec';
import mermaid from 'mermaid';
import { describe, expect, it } from 'vitest';

const EXAMPLES = new URL('../../../../examples/', import.meta.url);

/** A spec whose names are Mermaid's words: key markers as field and entity names, `End`, `Class`. */
const AWKWARD = `# Awkward names

## 3. Entities and their fields

### Pk

| field | type | rules  |
| ----- | ---- | ------ |
| pk    | text | unique |
| uk    | text |        |

### End

| field | type | rules    |
| ----- | ---- | -------- |
| fk    | Pk   | required |
| class | text |          |
`;

const diagramsOf = (source: string) => {
  const { model, ok, diagnostics } = checkSpec(source);
  expect(ok, JSON.stringify(diagnostics)).toBe(true);
  return specDiagrams(model);
};

// State diagrams need a DOM to parse (Mermaid sanitises their labels with DOMPurify): the Studio's
// browser suite draws those.
describe('the Studio’s entity-relationship diagrams', () => {
  const specs = [
    ...readdirSync(EXAMPLES)
      .filter((name) => name.endsWith('.md') && name !== 'README.md')
      .map((name) => [name, readFileSync(new URL(name, EXAMPLES), 'utf8')] as const),
    ['names Mermaid reads as syntax', AWKWARD] as const,
  ];

  it.each(specs)('are Mermaid that Mermaid parses: %s', async (_name, source) => {
    for (const diagram of diagramsOf(source).filter((d) => d.kind === 'entities')) {
      await expect(mermaid.parse(diagram.mermaid), diagram.mermaid).resolves.toBeTruthy();
    }
  });
});
