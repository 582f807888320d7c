import { blankSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { runIn, SPEC_WITH_ERROR, tempDir } from '../test-support.ts';

const WITH_BOOK = blankSpec('Shelf').replace(
  '## 3. Entities and their fields\nNot shown.\n',
  '## 3. Entities and their fields\n### Book\n| field | type | rules |\n|---|---|---|\n| title | text | required |\n',
);

describe('ninepoint calls', () => {
  it('prints the derived calls as a point-7 table that checks clean when pasted in', async () => {
    const dir = tempDir({ 'spec.md': WITH_BOOK });
    const { code, stdout, stderr } = await runIn(dir, ['calls', 'spec.md']);
    expect(code).toBe(0);
    expect(stdout).toContain('| GET | /api/books |  | list Book |');
    expect(stdout).toContain('| PATCH | /api/books/:id | Book | update Book |');
    expect(stderr).toContain('derived');
    const pasted = WITH_BOOK.replace(
      '## 7. The calls it makes\nNot shown.',
      `## 7. The calls it makes\n${stdout.trim()}`,
    );
    const again = await runIn(tempDir({ 'spec.md': pasted }), ['check', 'spec.md', '--json']);
    expect(JSON.parse(again.stdout).diagnostics).toEqual([]);
  });

  it('refuses a spec with errors, printing them to stderr and nothing to stdout', async () => {
    const { code, stdout, stderr } = await runIn(tempDir({ 'spec.md': SPEC_WITH_ERROR }), ['calls', 'spec.md']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('unknown-type');
  });
});

describe('ninepoint openapi', () => {
  it('prints an OpenAPI 3.1 document with the entity paths', async () => {
    const { code, stdout } = await runIn(tempDir({ 'spec.md': WITH_BOOK }), ['openapi', 'spec.md']);
    expect(code).toBe(0);
    const doc = JSON.parse(stdout) as { openapi: string; info: { title: string }; paths: Record<string, unknown> };
    expect(doc.openapi).toMatch(/^3\.1/);
    expect(doc.info.title).toBe('Shelf');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/books', '/api/books/{id}']));
  });
});
