import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { summarizePoints } from './summary.ts';

const spec = (fields: string) => `# Specification: Notes

## 3. Entities and their fields

### Note

| field | type | rules |
| ----- | ---- | ----- |
${fields}
`;

const entities = (fields: string) => {
  const { model, diagnostics } = checkSpec(spec(fields));
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return summarizePoints(model).find((p) => p.key === 'entities')?.detail;
};

describe('the nine-point summary of point 3', () => {
  it('says how many texts have no length rule and the default maximum that bounds them', () => {
    expect(
      entities(
        [
          '| title | text      | required                |',
          '| code  | text      | at most 12 characters   |',
          '| tag   | text      | optional                |',
          '| body  | long text | optional                |',
          '| words | integer   | optional                |',
        ].join('\n'),
      ),
    ).toBe(
      '1 entity, 5 fields; 2 texts with no length rule hold at most 1000 characters (the default)' +
        '; 1 long text with no length rule holds at most 100000 characters (the default)',
    );
  });

  it('says nothing more when every text has a length of its own', () => {
    expect(entities('| code | text | at most 12 characters |')).toBe('1 entity, 1 field');
  });
});
