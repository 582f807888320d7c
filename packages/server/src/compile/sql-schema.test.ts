import type { Entity, Field, Model } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { blankModel, LENDING_DESK, modelOf } from '../../test/helpers.ts';
import { compileSqlSchema, SqlSchemaError, tableName } from './sql-schema.ts';

const entitySpec = (entities: string) => `# Specification: Names

## 1. What the product does and for whom
Not shown.

## 2. Screens and routes
Not shown.

## 3. Entities and their fields
${entities}

## 4. States and transitions
Not shown.

## 5. Validation rules
Not shown.

## 6. Roles and permissions
Not shown.

## 7. The calls it makes
Not shown.

## 8. The error catalogue
Not shown.

## 9. Business constants and limits
Not shown.
`;

describe('compileSqlSchema', () => {
  it('names tables as snake_case plurals', () => {
    expect(tableName('Book')).toBe('books');
    expect(tableName('ExpenseReport')).toBe('expense_reports');
    expect(tableName('Person')).toBe('people');
  });

  it('has no tables for the blank spec', () => {
    expect(compileSqlSchema(blankModel()).tables).toEqual([]);
  });

  it('lays out system columns, typed field columns and the indexes queries need', () => {
    const { tables } = compileSqlSchema(modelOf(LENDING_DESK));
    const books = tables.find((t) => t.name === 'books');
    const loans = tables.find((t) => t.name === 'loans');
    expect(books?.columns.map((c) => [c.name, c.type, c.notNull])).toEqual([
      ['id', 'text', true],
      ['created_at', 'datetime', true],
      ['updated_at', 'datetime', true],
      ['created_by', 'text', false],
      ['_version', 'integer', true],
      ['title', 'text', true],
      ['isbn', 'text', true],
      ['copies', 'integer', true],
    ]);
    expect(books?.columns.find((c) => c.name === 'id')?.primaryKey).toBe(true);
    expect(books?.columns.find((c) => c.name === 'copies')?.default).toBe(1);
    expect(books?.columns.find((c) => c.name === '_version')?.default).toBe(1);
    expect(books?.columns.some((c) => c.name === 'state')).toBe(false);

    expect(loans?.columns.map((c) => c.name)).toEqual([
      'id',
      'created_at',
      'updated_at',
      'created_by',
      'state',
      '_version',
      'book',
      'borrower',
      'due',
    ]);
    expect(loans?.columns.find((c) => c.name === 'book')?.references).toEqual({ entity: 'Book', table: 'books' });
    expect(loans?.columns.find((c) => c.name === 'borrower')?.references).toEqual({ entity: 'User', table: null });
    expect(loans?.columns.find((c) => c.name === 'due')?.type).toBe('date');

    expect(books?.indexes.map((i) => [i.name, i.unique, i.reason])).toEqual([
      ['books_isbn_key', true, 'unique'],
      ['books_created_by_created_at_id_idx', false, 'reference'],
      ['books_created_at_id_idx', false, 'sort'],
    ]);
    expect(loans?.indexes.map((i) => [i.columns.join(','), i.reason])).toEqual([
      // Equality indexes carry the default sort: a book's loans are read in order, with no sort step.
      ['book,created_at,id', 'reference'],
      ['borrower,created_at,id', 'reference'],
      ['created_by,created_at,id', 'reference'],
      ['state,created_at,id', 'state'],
      ['created_at,id', 'sort'],
      // "at most MAX_LOANS Loan in state out per borrower" counts by borrower and state.
      ['borrower,state', 'limit'],
    ]);
  });

  it('maps every field type to a column type', () => {
    const model = modelOf(
      entitySpec(`### Thing
| field | type | rules |
|---|---|---|
| a | text | |
| b | long text | |
| c | integer | |
| d | decimal | |
| e | boolean | default false |
| f | date | |
| g | datetime | |
| h | email | |
| i | url | |
| j | choice of red, green | |
| k | User | |`),
    );
    const [table] = compileSqlSchema(model).tables;
    expect(table?.columns.filter((c) => c.field !== null).map((c) => c.type)).toEqual([
      'text',
      'text',
      'integer',
      'decimal',
      'boolean',
      'date',
      'datetime',
      'text',
      'text',
      'text',
      'text',
    ]);
    expect(table?.columns.find((c) => c.name === 'e')?.default).toBe(false);
  });

  // The checker refuses both of these already; the schema compiler also guards models built by hand.
  it('refuses entities whose tables would collide', () => {
    const base = modelOf(entitySpec('### Person\n| field | type | rules |\n|---|---|---|\n| name | text | |'));
    const person = base.entities[0] as Entity;
    const model: Model = { ...base, entities: [person, { ...person, name: 'People' }] };
    expect(() => compileSqlSchema(model)).toThrow(SqlSchemaError);
    expect(() => compileSqlSchema(model)).toThrow(/entity People and entity Person would both be stored as "people"/);
  });

  it('refuses fields that differ only in case', () => {
    const base = modelOf(entitySpec('### Thing\n| field | type | rules |\n|---|---|---|\n| dueDate | date | |'));
    const thing = base.entities[0] as Entity;
    const field = thing.fields[0] as Field;
    const model: Model = { ...base, entities: [{ ...thing, fields: [field, { ...field, name: 'duedate' }] }] };
    expect(() => compileSqlSchema(model)).toThrow(/Thing.duedate and Thing.dueDate differ only in case/);
  });
});
