import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';

/** A spec with one entity, Book, whose field table has a label column with `labels` (by row). */
function book(labels: readonly [string, string, string]) {
  const checked = checkSpec(`# Specification: Labels

## 3. Entities and their fields

### Book

| field  | type    | rules    | label         |
| ------ | ------- | -------- | ------------- |
| title  | text    | required | ${labels[0]} |
| isbn   | text    | unique   | ${labels[1]} |
| copies | integer |          | ${labels[2]} |
`);
  const fields = checked.model.entities[0]?.fields ?? [];
  return {
    labels: Object.fromEntries(fields.map((f) => [f.name, f.label ?? null])),
    codes: checked.diagnostics.filter((d) => d.code === 'invalid-label').map((d) => d.message),
  };
}

describe("point 3's label column", () => {
  it("keeps each field's label, and none for an empty cell", () => {
    expect(book(['Title', 'ISBN-13', ''])).toEqual({
      labels: { title: 'Title', isbn: 'ISBN-13', copies: null },
      codes: [],
    });
  });

  it('refuses a label too long to head a column, keeping the field', () => {
    const long = 'The number of copies the library owns today';
    expect(book(['', '', long])).toEqual({
      labels: { title: null, isbn: null, copies: null },
      codes: [`The label of Book.copies is ${long.length} characters long; a label has at most 40.`],
    });
  });

  it('refuses a label another field of the entity already has, whatever its case', () => {
    expect(book(['Title', 'title', 'Copies'])).toEqual({
      labels: { title: 'Title', isbn: null, copies: 'Copies' },
      codes: ['Book.isbn and Book.title have the same label, "title".'],
    });
  });
});
