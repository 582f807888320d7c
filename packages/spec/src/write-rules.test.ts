import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { conditionWords } from './condition-words.ts';
import { compileExpressions } from './evaluate.ts';
import { MessageCatalogue } from './message-catalogue.ts';
import {
  defaultValueAt,
  expressionRule,
  guardRecord,
  guardRefusal,
  ruleMessageParams,
  ruleRuns,
  sharedRefusalCode,
} from './write-rules.ts';

const { model } = checkSpec(readFileSync(new URL('../../../examples/lending-desk.md', import.meta.url), 'utf8'));
const compiled = compileExpressions(model);
const loan = model.entities.find((e) => e.name === 'Loan');
if (!loan) throw new Error('no Loan');
const ruleNamed = (name: string) => {
  const rule = model.rules.find((r) => r.name === name);
  const expression = compiled.rules.get(name);
  if (!rule || !expression) throw new Error(`no rule ${name}`);
  return expressionRule(rule, expression, loan);
};

describe('the rules a write runs', () => {
  it("reports a failure at a field rule's field, or an entity rule's only own field, else at none", () => {
    expect(ruleNamed('due after lending').at).toBe('due');
    expect(ruleNamed('members only').at).toBe('borrower');
    expect(ruleNamed('standard loan period').at).toBeNull();
    expect([...ruleNamed('standard loan period').mentions].sort()).toEqual(['due', 'lent_on']);
  });

  it('runs every rule on create, and on an update only those mentioning a changed field', () => {
    const current = { id: 'l1', state: 'out', due: '2026-05-20', lent_on: '2026-05-01', borrower: 'u1' };
    const due = ruleNamed('due after lending');
    expect(ruleRuns(due, null, current, null)).toBe(true);
    expect(ruleRuns(due, null, { ...current, borrower: 'u2' }, current)).toBe(false);
    expect(ruleRuns(due, null, { ...current, due: '2026-05-21' }, current)).toBe(true);
  });

  it('runs a transition rule only on its transition, whatever changed', () => {
    const current = { id: 'l1', state: 'out', due: '2026-05-20' };
    const lending = ruleNamed('standard loan period');
    expect(ruleRuns(lending, 'lend', current, null)).toBe(true);
    expect(ruleRuns(lending, 'return', { ...current, due: '2026-05-21' }, current)).toBe(false);
    expect(ruleRuns(lending, null, { ...current, due: '2026-05-21' }, null)).toBe(false);
  });

  it('fills messages from the record, and guards see the from-state', () => {
    const next = { id: 'l1', state: 'returned', due: '2026-05-20', lent_on: null, updated_at: 'now' };
    expect(ruleMessageParams(loan, next, 'due')).toEqual({
      entity: 'Loan',
      due: '2026-05-20',
      state: 'returned',
      field: 'due',
    });
    expect(guardRecord(next, { state: 'out', updated_at: 'then' })).toMatchObject({ state: 'out', updated_at: 'then' });
  });

  it("answers with the rules' code when they share one (a 422 too), else VALIDATION_FAILED's null", () => {
    expect(sharedRefusalCode(['LOAN_LIMIT', 'LOAN_LIMIT'])).toBe('LOAN_LIMIT');
    expect(sharedRefusalCode(['LOAN_LIMIT', 'NOT_A_MEMBER'])).toBeNull();
    expect(sharedRefusalCode(['NOT_A_MEMBER'])).toBe('NOT_A_MEMBER');
  });

  it("fills in a create's defaults as the server stores them", () => {
    const at = '2026-05-01T22:30:00.000Z';
    expect(defaultValueAt({ dynamic: 'today' }, at, 'u1')).toBe('2026-05-01');
    expect(defaultValueAt({ dynamic: 'now' }, at, 'u1')).toBe(at);
    expect(defaultValueAt({ dynamic: 'me' }, at, null)).toBeNull();
    expect(defaultValueAt({ literal: 500 }, at, 'u1')).toBe(500);
    expect(defaultValueAt(null, at, 'u1')).toBeNull();
  });

  it('words a guard’s refusal as what the transition needs, unless the spec’s own message fits a guard', () => {
    const params = { transition: 'lend', entity: 'Loan', state: '(new)' };
    if (!loan) throw new Error('no Loan');
    const words = conditionWords('book.copies > 0', loan, model);
    expect(guardRefusal(new MessageCatalogue(model), words, params)).toBe(
      'Lend is allowed only when the book’s copies are more than 0.',
    );
    const own = (message: string) =>
      new MessageCatalogue({
        ...model,
        errors: [{ code: 'TRANSITION_NOT_ALLOWED', status: 409, message, builtin: false, span: null }],
      });
    // A message about the state would blame the wrong thing: the guard's wording is said instead.
    expect(guardRefusal(own('You cannot {transition} a loan that is {state}.'), words, params)).toBe(
      'Lend is allowed only when the book’s copies are more than 0.',
    );
    expect(guardRefusal(own('The desk cannot {transition} this {entity} now.'), words, params)).toBe(
      'The desk cannot lend this Loan now.',
    );
  });
});
