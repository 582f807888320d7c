import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { blankSpec } from './blank-spec.ts';
import { checkSpec } from './check.ts';
import { effectiveCalls, formatCallsTable } from './derive-calls.ts';
import { effectiveScreens } from './derive-screens.ts';

/** The spec sketched in the product brief, kept here as a fixture. */
const sketch = readFileSync(new URL('../test/fixtures/sketch.md', import.meta.url), 'utf8');

const codes = (source: string) => checkSpec(source).diagnostics.map((d) => d.code);

describe('checkSpec', () => {
  it('accepts the blank spec with all nine points not shown and no diagnostics', () => {
    const { model, diagnostics, ok } = checkSpec(blankSpec());
    expect(ok).toBe(true);
    expect(diagnostics).toEqual([]);
    expect(model.points.map((p) => p.shown)).toEqual(Array(9).fill(false));
    expect(model.product.name).toBe('New product');
  });

  it('reads the design sketch into a model with positions', () => {
    const { model, diagnostics } = checkSpec(sketch);
    expect(diagnostics).toEqual([]);
    expect(model.product).toMatchObject({
      name: 'Lending desk',
      summary: expect.stringContaining('staff of a small library'),
    });
    const book = model.entities.find((e) => e.name === 'Book');
    expect(book?.fields.map((f) => f.name)).toEqual(['title', 'isbn', 'copies']);
    expect(book?.fields[2]).toMatchObject({
      type: { kind: 'integer' },
      required: true,
      min: { value: 0, constant: null },
      max: { value: 50, constant: 'MAX_COPIES' },
      default: { literal: 1 },
    });
    expect(book?.fields[0]).toMatchObject({ minLength: { value: 1 }, maxLength: { value: 200 } });
    expect(book?.fields[1]?.pattern).toBe('^97[89][0-9]{10}$');
    const loan = model.machines[0];
    expect(loan).toMatchObject({ entity: 'Loan', initial: 'out' });
    expect(loan?.states.map((s) => s.name)).toEqual(['out', 'overdue', 'returned']);
    expect(loan?.transitions.find((t) => t.name === 'mark overdue')).toMatchObject({
      slug: 'mark-overdue',
      from: ['out'],
      guard: 'now > due',
    });
    expect(model.rules[1]?.condition).toEqual({
      kind: 'limit',
      max: { value: 5, constant: 'MAX_LOANS' },
      entity: 'Loan',
      states: ['out'],
      per: ['borrower'],
      period: null,
    });
    expect(model.permissions.find((p) => p.role === 'member' && p.entity === 'Loan')).toMatchObject({
      read: 'own',
      update: 'none',
      create: false,
    });
    expect(model.screens[3]).toMatchObject({
      route: '/my/loans',
      kind: 'list',
      entity: 'Loan',
      filters: [{ field: 'borrower', value: { me: true } }],
    });
    expect(model.calls[2]).toMatchObject({
      method: 'POST',
      path: '/api/loans/:id/return',
      action: { kind: 'transition', transition: 'return' },
    });
    expect(book?.span.line).toBe(sketch.split('\n').indexOf('### Book') + 1);
  });

  it('recognises sections by number, by title words, or both', () => {
    const spec = blankSpec()
      .replace('## 3. Entities and their fields', '## Entities')
      .replace('## 5. Validation rules', '## 5 Rules')
      .replace('## 9. Business constants and limits', '## 9');
    expect(checkSpec(spec).diagnostics).toEqual([]);
  });

  it('reports a section whose number and title disagree, and one that is no point at all', () => {
    const spec = blankSpec()
      .replace('## 5. Validation rules', '## 3. Validation rules')
      .concat('\n## Appendix\nMore.\n');
    expect(codes(spec)).toEqual(['section-number-mismatch', 'unknown-section']);
  });

  it('treats an empty section or one that says "are not shown" as absent', () => {
    const spec = blankSpec()
      .replace(
        '## 6. Roles and permissions\nNot shown.',
        '## 6. Roles and permissions\nRoles and permissions are not shown yet.',
      )
      .replace('## 2. Screens and routes\nNot shown.', '## 2. Screens and routes\n');
    const { model, diagnostics } = checkSpec(spec);
    expect(diagnostics).toEqual([]);
    expect(model.points.filter((p) => p.shown)).toEqual([]);
  });

  it('warns when a point has prose but no table, and when a point is missing', () => {
    const spec = blankSpec()
      .replace('## 8. The error catalogue\nNot shown.', '## 8. The error catalogue\nWe will list errors later.')
      .replace('## 4. States and transitions\nNot shown.\n', '');
    expect(codes(spec)).toEqual(['missing-section', 'section-without-table']);
  });

  it('derives the conventional calls when point 7 is not shown', () => {
    const spec = sketch.replace(
      /## 7\. The calls it makes[\s\S]*?## 8/,
      '## 7. The calls it makes\nNot shown.\n\n## 8',
    );
    const { model } = checkSpec(spec);
    const calls = effectiveCalls(model).map((c) => `${c.method} ${c.path}`);
    expect(calls).toContain('GET /api/books');
    expect(calls).toContain('PATCH /api/loans/:id');
    expect(calls).toContain('POST /api/loans/:id/mark-overdue');
    expect(calls).not.toContain('POST /api/loans/:id/lend');
    const table = formatCallsTable(effectiveCalls(model));
    expect(table.split('\n')[0]).toBe('| method | path | payload | does | meaning |');
    expect(table).toContain('| POST | /api/loans/:id/return |  | Loan: return | return: out, overdue → returned |');
    // The printed table is itself a valid point 7.
    const pasted = spec.replace('## 7. The calls it makes\nNot shown.', `## 7. The calls it makes\n${table}`);
    expect(checkSpec(pasted).diagnostics).toEqual([]);
  });

  it('derives a home, list, detail and form screens per entity when point 2 is not shown', () => {
    const { model } = checkSpec(
      blankSpec().replace(
        '## 3. Entities and their fields\nNot shown.',
        '## 3. Entities\n### Book\n| field | type |\n|---|---|\n| title | text |',
      ),
    );
    expect(effectiveScreens(model).map((s) => `${s.kind} ${s.route}`)).toEqual([
      'home /',
      'list /books',
      'form /books/new',
      'detail /books/:id',
      'form /books/:id/edit',
    ]);
  });

  it('type-checks a reference chain and reports an unknown field at its column', () => {
    const spec = sketch.replace('book.copies > 0', 'book.copis > 0');
    const [d] = checkSpec(spec).diagnostics;
    const line = spec.split('\n').findIndex((l) => l.includes('book.copis')) + 1;
    expect(d).toMatchObject({
      code: 'unknown-field',
      line,
      column: (spec.split('\n')[line - 1] ?? '').indexOf('copis') + 1,
      expected: ['copies'],
    });
  });

  it('refuses a spec larger than the limit without reading it', () => {
    expect(codes('#'.repeat(3 * 1024 * 1024))).toEqual(['spec-too-large']);
  });
});

describe('names that would collide at run time', () => {
  const withEntities = (entities: string) =>
    blankSpec().replace('## 3. Entities and their fields\nNot shown.', `## 3. Entities and their fields\n${entities}`);

  it('refuses two entities with one plural, and an entity whose path Ninepoint serves itself', () => {
    const spec = withEntities(
      '### Person\n| field | type |\n|---|---|\n| name | text |\n\n### People\n| field | type |\n|---|---|\n| name | text |\n\n### Health\n| field | type |\n|---|---|\n| score | integer |',
    );
    expect(codes(spec)).toEqual(['duplicate-name', 'reserved-name']);
  });

  it('refuses an entity whose records would live at /api/docs, the API reference page', () => {
    for (const name of ['Doc', 'Docs']) {
      const { diagnostics, ok } = checkSpec(withEntities(`### ${name}\n| field | type |\n|---|---|\n| title | text |`));
      expect(ok).toBe(false);
      expect(diagnostics.map((d) => [d.code, d.message])).toEqual([
        ['reserved-name', `${name}'s records would live at /api/docs, which Ninepoint itself serves.`],
      ]);
    }
  });

  it('refuses two fields whose names differ only in case', () => {
    expect(
      codes(withEntities('### Task\n| field | type |\n|---|---|\n| dueDate | date |\n| duedate | date |')),
    ).toEqual(['duplicate-name']);
  });
});

describe('entities named like CEL types', () => {
  it('type-checks a reference to an entity called Int', () => {
    const spec = blankSpec()
      .replace(
        '## 3. Entities and their fields\nNot shown.',
        '## 3. Entities and their fields\n### Int\n| field | type |\n|---|---|\n| x | text |\n\n### Use\n| field | type |\n|---|---|\n| ref | Int |\n| n | integer |',
      )
      .replace(
        '## 5. Validation rules\nNot shown.',
        '## 5. Validation rules\n| rule | applies to | condition | error |\n|---|---|---|---|\n| r | Use | ref.x == "a" | VALIDATION_FAILED |',
      );
    expect(codes(spec)).toEqual([]);
  });
});
