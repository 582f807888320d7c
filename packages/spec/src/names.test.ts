import { describe, expect, it } from 'vitest';
import { collectionName, plain, transitionSlug } from './names.ts';

describe('names', () => {
  it('strips matched Markdown marks around a name but keeps a trailing underscore', () => {
    expect(plain('`title`')).toBe('title');
    expect(plain('**Book**')).toBe('Book');
    expect(plain('count_')).toBe('count_');
    expect(plain('_x_')).toBe('x');
  });

  it('makes kebab-case plural collections and slugs', () => {
    expect(collectionName('ExpenseReport')).toBe('expense-reports');
    expect(collectionName('Person')).toBe('people');
    expect(transitionSlug('mark overdue')).toBe('mark-overdue');
  });
});
