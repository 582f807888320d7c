import { readFileSync } from 'node:fs';
import { checkSpec, type Field, type Model } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { changed, defaultInput, fromInput, toInput } from '../fields/form-values.ts';
import { catalogueOf } from './catalogue.ts';
import { checkField, checkFields, compilePattern } from './field-checks.ts';

const source = (name: string) => readFileSync(new URL(`../../../../examples/${name}`, import.meta.url), 'utf8');
const modelOf = (name: string): Model => {
  const { model, ok } = checkSpec(source(name));
  if (!ok) throw new Error(`${name} has errors`);
  return model;
};
const lending = modelOf('lending-desk.md');
const expenses = modelOf('expenses.md');
const field = (model: Model, entity: string, name: string): Field => {
  const found = model.entities.find((e) => e.name === entity)?.fields.find((f) => f.name === name);
  if (!found) throw new Error(`no ${entity}.${name}`);
  return found;
};
const creating = { creating: true };
const changing = { creating: false };

describe('the catalogue in the browser', () => {
  it('fills placeholders from the params, then the constants as written', () => {
    const catalogue = catalogueOf(lending);
    expect(catalogue.message('LOAN_LIMIT')).toBe('A member may hold at most 5 books at once.');
    expect(catalogue.message('LOAN_TOO_LONG')).toBe('A loan may last at most 21 days.');
    expect(catalogue.message('NOT_FOUND', { entity: 'Loan' })).toBe(
      'That Loan is not in the Riverside Branch Library catalogue.',
    );
    expect(catalogue.message('REQUIRED', { field: 'Due' })).toBe('Due is required.');
  });
});

describe('the field rules of point 3, checked before sending', () => {
  it('says a required field is missing, unless a create fills in its default', () => {
    expect(checkField(lending, field(lending, 'Loan', 'due'), null, creating)?.message).toBe('Due is required.');
    expect(checkField(lending, field(lending, 'Loan', 'lent_on'), null, creating)).toBeNull();
    expect(checkField(lending, field(lending, 'Loan', 'lent_on'), null, changing)?.code).toBe('REQUIRED');
  });

  it('checks ranges with constants, lengths, patterns and web addresses with the catalogue messages', () => {
    const copies = field(lending, 'Book', 'copies');
    expect(checkField(lending, copies, 51, creating)?.message).toBe('Copies must be between 0 and 50.');
    expect(checkField(lending, copies, 50, creating)).toBeNull();
    expect(checkField(lending, copies, 2.5, creating)?.code).toBe('INVALID_TYPE');
    expect(checkField(lending, field(lending, 'Book', 'isbn'), '12345', creating)?.code).toBe('PATTERN_MISMATCH');
    expect(checkField(lending, field(lending, 'Book', 'isbn'), '9780441013593', creating)).toBeNull();
    expect(checkField(lending, field(lending, 'Book', 'shelf'), 'FIC-120', creating)).toBeNull();
    expect(checkField(lending, field(lending, 'Book', 'title'), 'x'.repeat(201), creating)?.message).toBe(
      'Title must be at most 200 characters long.',
    );
    expect(checkField(lending, field(lending, 'Book', 'cover'), 'javascript:alert(1)', creating)?.code).toBe(
      'INVALID_TYPE',
    );
  });

  it('checks decimal places, choices and emails', () => {
    const amount = field(expenses, 'Expense', 'amount');
    expect(checkField(expenses, amount, 12.5, creating)).toBeNull();
    expect(checkField(expenses, amount, 0.3, creating)).toBeNull();
    expect(checkField(expenses, amount, 4999.99, creating)).toBeNull();
    // 0.1 + 0.2 is 0.30000000000000004: seventeen places, refused as the server refuses it.
    expect(checkField(expenses, amount, 0.1 + 0.2, creating)?.message).toBe(
      'Amount must be a number with at most 2 decimal places.',
    );
    expect(checkField(expenses, amount, 12.345, creating)?.code).toBe('INVALID_TYPE');
    const limit = field(expenses, 'Employee', 'single_claim_limit');
    expect(checkField(expenses, limit, 1.005, creating)?.code).toBe('INVALID_TYPE');
    expect(checkField(expenses, amount, 0, creating)?.message).toBe('Amount must be between 0.01 and 5000.');
    expect(checkField(expenses, field(expenses, 'Expense', 'currency'), 'CHF', creating)?.message).toBe(
      'Currency must be one of EUR, USD, GBP.',
    );
    expect(checkField(expenses, field(expenses, 'Employee', 'work_email'), 'sam@', creating)?.code).toBe(
      'INVALID_TYPE',
    );
  });

  it('reports every field at fault, and letters typed into a number as the wrong type', () => {
    const book = lending.entities.find((e) => e.name === 'Book')?.fields ?? [];
    const failures = checkFields(lending, book, { title: 'Dune', copies: null }, creating, new Set(['copies']));
    expect(Object.keys(failures).sort()).toEqual(['author', 'copies', 'isbn', 'shelf']);
    expect(failures.copies?.message).toBe('Copies must be a whole number.');
  });

  it('leaves a pattern JavaScript cannot read to the server', () => {
    expect(compilePattern('^(?i)abc$')).toBeNull();
    expect(compilePattern('^[A-Z]{1,3}-[0-9]{1,4}$')?.test('FIC-120')).toBe(true);
  });
});

describe('inputs and the values sent', () => {
  it('reads inputs as the API takes them', () => {
    expect(fromInput(field(lending, 'Book', 'title'), '  Dune ')).toEqual({ value: 'Dune', invalid: false });
    expect(fromInput(field(lending, 'Book', 'title'), '')).toEqual({ value: null, invalid: false });
    expect(fromInput(field(lending, 'Book', 'copies'), '3')).toEqual({ value: 3, invalid: false });
    expect(fromInput(field(lending, 'Book', 'copies'), '-')).toEqual({ value: null, invalid: true });
    const paid = fromInput(field(expenses, 'Expense', 'paid_at'), '2025-03-14T09:30');
    expect(paid.value).toBe(new Date(2025, 2, 14, 9, 30).toISOString());
  });

  it('starts a new record from the defaults, and sees what the user changed', () => {
    expect(defaultInput(field(lending, 'Book', 'copies'), null)).toBe(1);
    expect(defaultInput(field(lending, 'Loan', 'lent_on'), null)).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const due = field(lending, 'Loan', 'due');
    expect(changed(due, toInput(due, '2025-05-01'), '2025-05-01')).toBe(false);
    expect(changed(due, '2025-05-02', '2025-05-01')).toBe(true);
  });
});
