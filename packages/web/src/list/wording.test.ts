import { readFileSync } from 'node:fs';
import { checkSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import type { Me } from '../api/session.ts';
import { choiceLabel, fieldLabel, label } from '../app/screens.ts';
import { namedValues, referenceNames } from './export.ts';

const helpdesk = checkSpec(readFileSync(new URL('../../../../examples/helpdesk.md', import.meta.url), 'utf8')).model;
const me: Me = { user: null, access: {}, people: null, signUp: [], singleSignOn: null, twoFactor: null };

describe('words for names', () => {
  it('reads field names as words, abbreviations in capitals', () => {
    expect(label('due_date')).toBe('Due date');
    expect(label('dueDate')).toBe('Due date');
    expect(label('isbn')).toBe('ISBN');
    expect(label('vat_id')).toBe('VAT ID');
    expect(label('receipt_url')).toBe('Receipt URL');
    // A word that merely starts like one stays a word.
    expect(label('idea')).toBe('Idea');
  });

  it("prefers the spec's own label for a field", () => {
    expect(fieldLabel({ name: 'isbn', label: 'ISBN-13' })).toBe('ISBN-13');
    expect(fieldLabel({ name: 'time_spent' })).toBe('Time spent');
  });

  it('reads choice values as words, keeping codes as the spec writes them', () => {
    expect(choiceLabel('hardware')).toBe('Hardware');
    expect(choiceLabel('in_progress')).toBe('In progress');
    expect(choiceLabel('EUR')).toBe('EUR');
    expect(choiceLabel('A4')).toBe('A4');
  });
});

describe('CSV export of references', () => {
  it('knows which fields of an entity refer to users and records', () => {
    const ticket = helpdesk.entities.find((e) => e.name === 'Ticket');
    if (!ticket) throw new Error('helpdesk has no Ticket');
    expect(referenceNames(helpdesk, me, ticket).fields).toEqual({
      created_by: 'User',
      reporter: 'User',
      assignee: 'User',
    });
  });

  it('writes the names found for references, and the id of one not found', () => {
    const known = new Map([
      ['User', new Map([['u1', 'Sam Lee']])],
      ['Book', new Map([['b1', 'Dune']])],
    ]);
    const record = { id: 'l1', book: 'b1', borrower: 'u2', created_by: 'u1', due: '2026-12-01' };
    const fields = ['id', 'book', 'borrower', 'due', 'created_by'];
    const references = { book: 'Book', borrower: 'User', created_by: 'User' };
    expect(namedValues(record, fields, references, known)).toEqual(['l1', 'Dune', 'u2', '2026-12-01', 'Sam Lee']);
  });
});
