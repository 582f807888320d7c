import { readFileSync } from 'node:fs';
import { validatorsModule } from '@ninepoint/server';
import { checkSpec, type Model } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { changed, defaultInput, fromInput, toInput } from '../fields/form-values.ts';
import { catalogueOf } from './catalogue.ts';
import { checkFields, type FieldFailure, type Payload, type Value } from './field-checks.ts';
import { type Validators, validatorsOf } from './validators.ts';

const source = (name: string) => readFileSync(new URL(`../../../../examples/${name}`, import.meta.url), 'utf8');
const modelOf = (name: string): Model => {
  const { model, ok } = checkSpec(source(name));
  if (!ok) throw new Error(`${name} has errors`);
  return model;
};

/** The module the server serves at `/app/validators.js` for this model, loaded as the page loads it. */
async function servedValidators(model: Model): Promise<Validators> {
  const url = `data:text/javascript;base64,${Buffer.from(validatorsModule(model).code).toString('base64')}`;
  return validatorsOf((await import(/* @vite-ignore */ url)).default);
}

const lending = modelOf('lending-desk.md');
const expenses = modelOf('expenses.md');
const served = new Map([
  [lending, await servedValidators(lending)],
  [expenses, await servedValidators(expenses)],
]);

/**
 * One field's check, as a form over that field alone sends it: a create leaves an empty field out
 * (the server fills in its default), a change sends it as null.
 */
function checkField(model: Model, entity: string, name: string, value: Value, payload: Payload): FieldFailure | null {
  const declared = model.entities.find((e) => e.name === entity);
  const field = declared?.fields.find((f) => f.name === name);
  if (!declared || !field) throw new Error(`no ${entity}.${name}`);
  const body = value === null && payload === 'create' ? {} : { [name]: value };
  return checkFields(model, declared, [field], body, payload, served.get(model))[name] ?? null;
}
const field = (model: Model, entity: string, name: string) => {
  const found = model.entities.find((e) => e.name === entity)?.fields.find((f) => f.name === name);
  if (!found) throw new Error(`no ${entity}.${name}`);
  return found;
};

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
    expect(checkField(lending, 'Loan', 'due', null, 'create')?.message).toBe('Due is required.');
    expect(checkField(lending, 'Loan', 'lent_on', null, 'create')).toBeNull();
    expect(checkField(lending, 'Loan', 'lent_on', null, 'update')?.code).toBe('REQUIRED');
  });

  it('checks ranges with constants, lengths, patterns and web addresses with the catalogue messages', () => {
    expect(checkField(lending, 'Book', 'copies', 51, 'create')?.message).toBe('Copies must be between 0 and 50.');
    expect(checkField(lending, 'Book', 'copies', 50, 'create')).toBeNull();
    expect(checkField(lending, 'Book', 'copies', 2.5, 'create')?.code).toBe('INVALID_TYPE');
    expect(checkField(lending, 'Book', 'isbn', '12345', 'create')?.code).toBe('PATTERN_MISMATCH');
    expect(checkField(lending, 'Book', 'isbn', '9780441013593', 'create')).toBeNull();
    expect(checkField(lending, 'Book', 'shelf', 'FIC-120', 'create')).toBeNull();
    expect(checkField(lending, 'Book', 'title', 'x'.repeat(201), 'create')?.message).toBe(
      'Title must be at most 200 characters long.',
    );
    expect(checkField(lending, 'Book', 'cover', 'javascript:alert(1)', 'create')?.code).toBe('INVALID_TYPE');
  });

  it('checks decimal places, choices and emails', () => {
    expect(checkField(expenses, 'Expense', 'amount', 12.5, 'create')).toBeNull();
    expect(checkField(expenses, 'Expense', 'amount', 0.3, 'create')).toBeNull();
    expect(checkField(expenses, 'Expense', 'amount', 4999.99, 'create')).toBeNull();
    // 0.1 + 0.2 is 0.30000000000000004: seventeen places, refused as the server refuses it.
    expect(checkField(expenses, 'Expense', 'amount', 0.1 + 0.2, 'create')?.message).toBe(
      'Amount must be a number with at most 2 decimal places.',
    );
    expect(checkField(expenses, 'Expense', 'amount', 12.345, 'create')?.code).toBe('INVALID_TYPE');
    expect(checkField(expenses, 'Employee', 'single_claim_limit', 1.005, 'create')?.code).toBe('INVALID_TYPE');
    expect(checkField(expenses, 'Expense', 'amount', 0, 'create')?.message).toBe(
      'Amount must be between 0.01 and 5000.',
    );
    expect(checkField(expenses, 'Expense', 'currency', 'CHF', 'create')?.message).toBe(
      'Currency must be one of EUR, USD, GBP.',
    );
    expect(checkField(expenses, 'Employee', 'work_email', 'sam@', 'create')?.code).toBe('INVALID_TYPE');
  });

  it('reports every field at fault, and letters typed into a number as the wrong type', () => {
    const book = lending.entities.find((e) => e.name === 'Book');
    if (!book) throw new Error('no Book');
    const body = { title: 'Dune', copies: null };
    const failures = checkFields(lending, book, book.fields, body, 'create', served.get(lending), new Set(['copies']));
    expect(Object.keys(failures).sort()).toEqual(['author', 'copies', 'isbn', 'shelf']);
    expect(failures.copies?.message).toBe('Copies must be a whole number.');
  });

  it('reports only what the form cannot read until the validators have loaded', () => {
    const book = lending.entities.find((e) => e.name === 'Book');
    if (!book) throw new Error('no Book');
    const failures = checkFields(
      lending,
      book,
      book.fields,
      { copies: null },
      'create',
      undefined,
      new Set(['copies']),
    );
    expect(Object.keys(failures)).toEqual(['copies']);
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
