import { describe, expect, it } from 'vitest';
import { LENDING_DESK, modelOf } from '../../test/helpers.ts';
import { createAjv } from './ajv.ts';
import { compileJsonSchemas, type EntitySchemas, pickFields } from './json-schemas.ts';

const ajv = createAjv();
const schemas = compileJsonSchemas(modelOf(LENDING_DESK));
const book = schemas.get('Book') as EntitySchemas;
const loan = schemas.get('Loan') as EntitySchemas;
const BOOK_ID = '0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f';
const USER_ID = '0190f3c4-7a2b-7c3d-8e4f-000000000001';

/** The properties an invalid value is reported at, or [] when it is valid. */
function failures(schema: object, value: unknown): string[] {
  const validate = ajv.compile(schema);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.keyword}`);
}

const fieldsSpec = (rows: string) => `# Specification: Fields

## 1. What the product does and for whom
Not shown.

## 2. Screens and routes
Not shown.

## 3. Entities and their fields
### Thing
| field | type | rules |
|---|---|---|
${rows}

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
| name | value | meaning |
|---|---|---|
| MAX_PRICE | 1000 | the highest price |
`;

describe('create payloads', () => {
  it('accept a valid payload', () => {
    expect(failures(book.create, { title: 'Dune', isbn: '9780441013593', copies: 3 })).toEqual([]);
    // copies has a default, so it may be left out.
    expect(failures(book.create, { title: 'Dune', isbn: '9780441013593' })).toEqual([]);
    expect(failures(loan.create, { book: BOOK_ID, borrower: USER_ID, due: '2030-01-31' })).toEqual([]);
  });

  it('reject missing required fields, wrong types, ranges, lengths and patterns', () => {
    expect(failures(book.create, { isbn: '9780441013593' })).toEqual(['/ required']);
    // A required text is not blank (`not`), whatever its length rule says.
    expect(failures(book.create, { title: '', isbn: '9780441013593' })).toEqual(['/title not', '/title minLength']);
    expect(failures(book.create, { title: '  ', isbn: '9780441013593' })).toEqual(['/title not']);
    expect(failures(book.create, { title: 'x'.repeat(201), isbn: '9780441013593' })).toEqual(['/title maxLength']);
    expect(failures(book.create, { title: 'Dune', isbn: '12345' })).toEqual(['/isbn pattern']);
    // MAX_COPIES is 50 in the spec's constants.
    expect(failures(book.create, { title: 'Dune', isbn: '9780441013593', copies: 51 })).toEqual(['/copies maximum']);
    expect(failures(book.create, { title: 'Dune', isbn: '9780441013593', copies: -1 })).toEqual(['/copies minimum']);
    expect(failures(book.create, { title: 'Dune', isbn: '9780441013593', copies: 1.5 })).toEqual(['/copies type']);
    // No coercion: a numeric string is not a number.
    expect(failures(book.create, { title: 'Dune', isbn: '9780441013593', copies: '3' })).toEqual(['/copies type']);
    expect(failures(book.create, { title: null, isbn: '9780441013593' })).toEqual(['/title type']);
    expect(failures(loan.create, { book: 'not-an-id', borrower: USER_ID, due: '2030-01-31' })).toEqual([
      '/book format',
    ]);
    expect(failures(loan.create, { book: BOOK_ID, borrower: USER_ID, due: '31/01/2030' })).toEqual(['/due format']);
    expect(failures(book.create, [])).toEqual(['/ type']);
  });

  it('never accept system fields or unknown properties (no mass assignment)', () => {
    const valid = { title: 'Dune', isbn: '9780441013593' };
    for (const field of ['id', 'created_at', 'updated_at', 'created_by', 'state', 'owner', '__proto__x']) {
      expect(failures(book.create, { ...valid, [field]: 'x' })).toEqual(['/ additionalProperties']);
    }
    expect(failures(loan.create, { book: BOOK_ID, borrower: USER_ID, due: '2030-01-31', state: 'returned' })).toEqual([
      '/ additionalProperties',
    ]);
  });
});

describe('update payloads', () => {
  it('accept any subset of fields but no nulls for required ones', () => {
    expect(failures(book.update, {})).toEqual([]);
    expect(failures(book.update, { copies: 7 })).toEqual([]);
    expect(failures(book.update, { title: null })).toEqual(['/title type']);
    expect(failures(book.update, { id: BOOK_ID })).toEqual(['/ additionalProperties']);
  });

  it('limit a point-7 payload to its fields', () => {
    const titleOnly = pickFields(book.create, ['title']);
    expect(titleOnly.required).toEqual(['title']);
    expect(failures(titleOnly, { title: 'Dune' })).toEqual([]);
    expect(failures(titleOnly, { title: 'Dune', isbn: '9780441013593' })).toEqual(['/ additionalProperties']);
  });
});

describe('records', () => {
  it('describe a stored record with its system fields and state', () => {
    const record = {
      id: BOOK_ID,
      created_at: '2025-01-01T10:00:00.000Z',
      updated_at: '2025-01-01T10:00:00.000Z',
      created_by: USER_ID,
      state: 'out',
      book: BOOK_ID,
      borrower: USER_ID,
      due: '2030-01-31',
    };
    expect(failures(loan.record, record)).toEqual([]);
    expect(failures(loan.record, { ...record, state: 'lost' })).toEqual(['/state enum']);
    expect(failures(loan.page, { items: [record], next: null })).toEqual([]);
    expect(loan.record.properties?.state?.readOnly).toBe(true);
    expect(book.record.properties?.state).toBeUndefined();
  });
});

describe('field types', () => {
  const thing = compileJsonSchemas(
    modelOf(
      fieldsSpec(`| note | long text | |
| price | decimal(2) | 0..MAX_PRICE |
| active | boolean | default true |
| at | datetime | |
| contact | email | |
| site | url | |
| colour | choice of red, green | |
| code | text | 2..4 characters, pattern ^[A-Z]+$ |`),
    ),
  ).get('Thing') as EntitySchemas;

  it('accept values of each type and null for optional fields', () => {
    const valid = {
      note: 'line one\nline two',
      price: 19.99,
      active: false,
      at: '2025-03-01T12:00:00Z',
      contact: 'ada@example.com',
      site: 'https://example.com/a?b=c',
      colour: 'green',
      code: 'ABC',
    };
    expect(failures(thing.create, valid)).toEqual([]);
    expect(failures(thing.create, {})).toEqual([]);
    expect(failures(thing.create, Object.fromEntries(Object.keys(valid).map((k) => [k, null])))).toEqual([]);
    // 1.1 / 0.01 is not an integer in binary floating point; the scale check must still pass it.
    expect(failures(thing.create, { price: 1.1 })).toEqual([]);
  });

  it('reject values outside each type', () => {
    expect(failures(thing.create, { price: 1.001 })).toEqual(['/price multipleOf']);
    // 0.1 + 0.2 is 0.30000000000000004: a tolerance would let it pass as two places.
    expect(failures(thing.create, { price: 0.1 + 0.2 })).toEqual(['/price multipleOf']);
    expect(failures(thing.create, { price: 1000.01 })).toEqual(['/price maximum']);
    expect(failures(thing.create, { active: 'yes' })).toEqual(['/active type']);
    expect(failures(thing.create, { at: '2025-03-01' })).toEqual(['/at format']);
    expect(failures(thing.create, { contact: 'not an address' })).toEqual(['/contact format']);
    expect(failures(thing.create, { site: 'javascript:alert(1)' })).toEqual(['/site pattern']);
    expect(failures(thing.create, { colour: 'blue' })).toEqual(['/colour enum']);
    expect(failures(thing.create, { code: 'A' })).toEqual(['/code minLength']);
    expect(failures(thing.create, { code: 'abc' })).toEqual(['/code pattern']);
  });

  it('bound decimals with a scale to what JSON carries exactly, and decide their places in decimal', () => {
    const schema = compileJsonSchemas(modelOf(fieldsSpec('| d | decimal(2) | |'))).get('Thing')?.create ?? {};
    expect(schema.properties?.d).toMatchObject({ minimum: -9999999999999.99, maximum: 9999999999999.99 });
    expect(failures(schema, { d: 9999999999999.99 })).toEqual([]);
    expect(failures(schema, { d: 12345678901.23 })).toEqual([]);
    // Read from JSON as 90071992547409.9: it could not come back as sent.
    expect(failures(schema, { d: 90071992547409.91 })).toEqual(['/d maximum']);
    expect(failures(schema, { d: 1e-7 })).toEqual(['/d multipleOf']);
  });

  it('bound integers to what JSON carries exactly', () => {
    const schema = compileJsonSchemas(modelOf(fieldsSpec('| n | integer | |'))).get('Thing')?.create ?? {};
    expect(failures(schema, { n: 2 ** 53 - 1 })).toEqual([]);
    expect(failures(schema, { n: 1e300 })).toEqual(['/n maximum']);
  });
});
