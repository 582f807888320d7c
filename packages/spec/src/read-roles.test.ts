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

  it('names an unknown field with a suggestion, and refuses fields on delete', () => {
    const { diagnostics } = withRoles(`| role   | Book                           | Loan                |
| ------ | ------------------------------ | ------------------- |
| staff  | all                            | all                 |
| member | read (title), update (titl)    | read own, delete (due) |`);
    expect(diagnostics.map((d) => [d.code, d.expected])).toEqual([
      ['unknown-field', ['title']],
      ['invalid-permission', []],
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

describe('fields a role reads', () => {
  it("reads read (…) and read own except (…) into the fields seen, in the entity's order for except", () => {
    const { ok, model, diagnostics } =
      withRoles(`| role   | Book                 | Loan                                        |
| ------ | -------------------- | ------------------------------------------- |
| staff  | all                  | all                                         |
| member | read (copies, title) | read own except (\`borrower\`), update own (due) |
| anyone | read except (copies) | -                                           |`);
    expect(diagnostics).toEqual([]);
    expect(ok).toBe(true);
    const of = (role: string, entity: string) => model.permissions.find((p) => p.role === role && p.entity === entity);
    expect(of('member', 'Book')).toMatchObject({ read: 'all', readFields: ['copies', 'title'] });
    expect(of('member', 'Loan')).toMatchObject({ read: 'own', update: 'own', readFields: ['book', 'due'] });
    expect(of('anyone', 'Book')).toMatchObject({ read: 'all', readFields: ['title'] });
    expect(of('staff', 'Book')).toMatchObject({ read: 'all', readFields: null });
    const matrix = permissionMatrix(model);
    const cell = (entity: string, role: string) =>
      matrix.rows.find((r) => r.entity === entity)?.cells[matrix.roles.indexOf(role)];
    const described = (entity: string, role: string) => {
      const found = cell(entity, role);
      return found && describeCell(found);
    };
    expect(described('Loan', 'member')).toBe('read own except (borrower), update own (due)');
    // Every field named is as good as no list.
    expect(described('Book', 'member')).toBe('read all');
    expect(described('Book', 'anyone')).toBe('read all (title)');
    expect(described('Book', 'staff')).toBe('create, read all, update all, delete all');
  });

  it('keeps "read (own)" as read own, and the field lists of all as the fields create and update set', () => {
    const { ok, model, diagnostics } = withRoles(`| role   | Book                                      | Loan       |
| ------ | ----------------------------------------- | ---------- |
| staff  | all (title, copies), read except (copies) | all        |
| member | read                                      | read (own) |`);
    // Staff do not see copies, yet the lend guard (book.copies > 0) they take reads it: warned of.
    expect(diagnostics.map((d) => [d.code, d.severity])).toEqual([['reveals-hidden', 'warning']]);
    expect(ok).toBe(true);
    expect(model.permissions.find((p) => p.role === 'member' && p.entity === 'Loan')).toMatchObject({
      read: 'own',
      readFields: null,
    });
    // A read item beside all hides a field the role may still set: written, never read back.
    expect(model.permissions.find((p) => p.role === 'staff' && p.entity === 'Book')).toMatchObject({
      read: 'all',
      update: 'all',
      readFields: ['title'],
      createFields: ['title', 'copies'],
      updateFields: ['title', 'copies'],
    });
  });

  it('names an unknown field of a read list with a suggestion, and refuses except elsewhere, except without a list, and a second read once one names fields', () => {
    const { diagnostics } =
      withRoles(`| role   | Book                              | Loan                              |
| ------ | --------------------------------- | --------------------------------- |
| staff  | all                               | all                               |
| member | read except (copis), update except (title) | read own (due), read (book) |
| clerk  | read except                       | -                                 |`);
    expect(diagnostics.map((d) => [d.code, d.message, d.expected])).toEqual([
      [
        'unknown-field',
        'The permission "read except (copis)" names field "copis", which Book does not have.',
        ['copies'],
      ],
      ['invalid-permission', '"update except (title)": only read may name the fields it leaves out.', []],
      ['invalid-permission', '"read (book)": the cell already says what member reads.', []],
      ['invalid-permission', '"read except" leaves out no fields.', []],
    ]);
  });

  it('lets a role create only the fields it reads unless create names others, so hiding a required field is unsettable', () => {
    const hidden = withRoles(`| role   | Book                        | Loan |
| ------ | --------------------------- | ---- |
| staff  | all                         | all  |
| member | create, read except (title) | -    |`);
    expect(hidden.diagnostics.map((d) => [d.code, d.message])).toEqual([
      [
        'unsettable-field',
        'member may create Book but not set title, which is required and has no default (a role sets only the fields it reads, unless create names it): every create would be refused.',
      ],
    ]);
    const named = withRoles(`| role   | Book                                       | Loan |
| ------ | ------------------------------------------ | ---- |
| staff  | all                                        | all  |
| member | create (title, copies), read except (title) | -    |`);
    expect(named.diagnostics).toEqual([]);
  });
});

describe('whose records are own (via) and in which states (while)', () => {
  const codes = (table: string) => withRoles(table).diagnostics.map((d) => `${d.code} ${d.message}`);

  it('reads chains through references and states, per operation, fields and all', () => {
    const { ok, model, diagnostics } =
      withRoles(`| role   | Book | Loan                                                                   |
| ------ | ---- | ---------------------------------------------------------------------- |
| staff  | all  | all                                                                    |
| member | read | read own via book.created_by or borrower, update own (due) while out |`);
    expect(diagnostics).toEqual([]);
    expect(ok).toBe(true);
    expect(model.permissions.find((p) => p.role === 'member' && p.entity === 'Loan')).toMatchObject({
      read: 'own',
      update: 'own',
      updateFields: ['due'],
      via: { read: [['book', 'created_by'], ['borrower']], update: null, delete: null },
      inStates: { read: null, update: ['out'], delete: null },
    });
  });

  it('reports a chain that does not end at a user, or goes through a field that is no reference', () => {
    expect(
      codes(`| role   | Book | Loan                          |
| ------ | ---- | ----------------------------- |
| staff  | all  | all                           |
| member | read | read own via book.copies       |
| guest  | read | read own via borrower.email    |`),
    ).toEqual([
      expect.stringMatching(/^invalid-reference-path .*"book.copies" does not end at a user/),
      expect.stringMatching(/^invalid-reference-path .*"borrower" is not a reference to an entity/),
    ]);
  });

  it('reports an operation granted twice in a cell with other conditions, which would replace the first', () => {
    expect(
      codes(`| role   | Book | Loan                                                   |
| ------ | ---- | ------------------------------------------------------ |
| staff  | all  | read, update own while out, update                     |
| member | read | read own via book.created_by, read own via borrower    |`),
    ).toEqual([
      expect.stringMatching(/^invalid-permission "update" grants update again/),
      expect.stringMatching(/^invalid-permission "read own via borrower" grants read again/),
    ]);
  });

  it('reports via without own, a condition on create, and a state the entity does not have', () => {
    expect(
      codes(`| role   | Book | Loan                                       |
| ------ | ---- | ------------------------------------------ |
| staff  | all  | read via borrower, create while out        |
| member | read | read own while lent                        |`),
    ).toEqual([
      expect.stringMatching(/^invalid-permission .*grants every record/),
      expect.stringMatching(/^invalid-permission .*condition on create/),
      expect.stringMatching(/^unknown-state .*"lent"/),
    ]);
  });
});
