import { describe, expect, it } from 'vitest';
import { behaviourKey } from './behaviour-key.ts';
import { checkSpec } from './check.ts';

const SPEC = `# Shelf

## 1. What it does and for whom

Keeps a list of books.

## 3. Entities and their fields

### Book

| field | type | rules    | meaning |
| ----- | ---- | -------- | ------- |
| title | text | required |         |
`;

const keyOf = (source: string) => behaviourKey(checkSpec(source).model);

describe('behaviourKey', () => {
  it('is the same for a spec that only moved: blank lines and a reflowed table', () => {
    const moved = SPEC.replace('### Book', '\n\n### Book').replace('| title | text |', '|title|text    |');
    expect(checkSpec(moved).model).not.toEqual(checkSpec(SPEC).model);
    expect(keyOf(moved)).toBe(keyOf(SPEC));
  });

  it('differs when a field, a rule or the prose changes', () => {
    expect(keyOf(SPEC.replace('| required |', '| optional |'))).not.toBe(keyOf(SPEC));
    expect(keyOf(SPEC.replace('| title |', '| name  |'))).not.toBe(keyOf(SPEC));
    expect(keyOf(SPEC.replace('Keeps a list', 'Keeps a shelf'))).not.toBe(keyOf(SPEC));
  });
});
