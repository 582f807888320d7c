import { readFileSync } from 'node:fs';
import { checkSpec, type Model } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { type LiveChange, touchedBy } from './live.ts';

const source = readFileSync(new URL('../../../../examples/lending-desk.md', import.meta.url), 'utf8');
const model: Model = checkSpec(source).model;

const change = (entity: string, id: string): LiveChange => ({ entity, id, kind: 'update', at: '2030-01-01T00:00:00Z' });

describe('what a live change refetches', () => {
  it('the lists, boards, figures and pickers of the changed entity, and the changed record with its history', () => {
    const touched = touchedBy(model, [change('Loan', 'a1')]);
    const keys: unknown[][] = [
      ['list', '/api/loans', 'sort=-created_at', null],
      ['list', '/api/books', '', null],
      ['board', 'Loan', 'out', ''],
      ['summary', 'Loan', '/api/loans/summary?by=state'],
      ['summary', 'Book', '/api/books/summary'],
      ['record', 'Loan', 'a1'],
      ['record', 'Loan', 'b2'],
      ['record', 'Book', 'a1'],
      ['history', 'Loan', 'a1'],
      ['reference-title', 'Loan', 'a1'],
      ['reference-options', 'Loan', ''],
      ['spec'],
      ['me'],
    ];
    expect(keys.filter((queryKey) => touched({ queryKey }))).toEqual([
      ['list', '/api/loans', 'sort=-created_at', null],
      ['board', 'Loan', 'out', ''],
      ['summary', 'Loan', '/api/loans/summary?by=state'],
      ['record', 'Loan', 'a1'],
      ['history', 'Loan', 'a1'],
      ['reference-title', 'Loan', 'a1'],
      ['reference-options', 'Loan', ''],
    ]);
  });
});
