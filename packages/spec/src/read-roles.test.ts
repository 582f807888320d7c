import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { describeCell, permissionMatrix } from './permission-matrix.ts';

const BASE = readFileSync(new URL('../test/fixtures/docs-base.md', import.meta.url), 'utf8');

/** The docs' base spec with this roles table as point 6. */
function withRoles(table: string) {
  const source = BASE.replace(
    /## 6\. Roles and permissions\n[\s\S]*?(?=\n## 7\.)/,
    `## 6. Roles and permissions\n\n${table}\n`,
  );
  expect(source).not.toBe(BASE);
  return checkSpec(source);
}

describe('fields a permission names', () => {
  it('reads the fields of create and update, commas and all, and none for the other words', () => {
    const { ok, model, diagnostics } = withRoles(`| role   | Book                                      | Loan |
| ------ | ----------------------------------------- | ---- |
| staff  | all                                       | all  |
| member | create (title, copies), read (own), update own (copies) | read own |`);
    expect(diagnostics).toEqual([]);
    expect(ok).toBe(true);
    const member = model.permissions.find((p) => p.role === 'member' && p.entity === 'Book');
    expect(member).toMatchObject({
      create: true,
      read: 'own',
      update: 'own',
      delete: 'none',
      createFields: ['title', 'copies'],
      updateFields: ['copies'],
    });
    expect(model.permissions.find((p) => p.role === 'staff' && p.entity === 'Book')).toMatchObject({
      createFields: null,
      updateFields: null,
    });
    const matrix = permissionMatrix(model);
    const cell = matrix.rows.find((r) => r.entity === 'Book')?.cells[matrix.roles.indexOf('member')];
    expect(cell && describeCell(cell)).toBe('create (title, copies), read own, update own (copies)');
  });

  it('names an unknown field with a suggestion, and refuses fields on read and delete', () => {
    const { diagnostics } = withRoles(`| role   | Book                           | Loan     |
| ------ | ------------------------------ | -------- |
| staff  | all                            | all      |
| member | read (title), update (titl)    | read own |`);
    expect(diagnostics.map((d) => [d.code, d.expected])).toEqual([
      ['invalid-permission', []],
      ['unknown-field', ['title']],
    ]);
  });

  it('is an error when a role may create but not set a required field without a default', () => {
    const { ok, diagnostics } = withRoles(`| role   | Book            | Loan                 |
| ------ | --------------- | -------------------- |
| staff  | all             | all                  |
| member | create (copies) | create (book), read own |`);
    expect(ok).toBe(false);
    expect(diagnostics.map((d) => [d.code, d.message])).toEqual([
      [
        'unsettable-field',
        'member may create Book but not set title, which is required and has no default: every create would be refused.',
      ],
      [
        'unsettable-field',
        'member may create Loan but not set borrower, due, which are required and have no default: every create would be refused.',
      ],
    ]);
  });
});
