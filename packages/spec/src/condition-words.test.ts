import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { conditionWords } from './condition-words.ts';
import type { Model } from './model.ts';

const example = (name: string): Model =>
  checkSpec(readFileSync(new URL(`../../../examples/${name}.md`, import.meta.url), 'utf8')).model;

/** Every guard of an example, by transition name, in words. */
function guardsInWords(model: Model): Record<string, string> {
  const said: Record<string, string> = {};
  for (const machine of model.machines) {
    const entity = model.entities.find((e) => e.name === machine.entity);
    if (!entity) continue;
    for (const t of machine.transitions) if (t.guard) said[t.name] = conditionWords(t.guard, entity, model);
  }
  return said;
}

describe('a guard in words', () => {
  it('says the lending desk’s guards with constants by value and dates as passing time', () => {
    expect(guardsInWords(example('lending-desk'))).toEqual({
      lend: 'the book’s copies are more than 0',
      renew: 'the renewals are less than 2',
      'mark overdue': 'the due date has passed',
      'write off': 'more than 8 weeks have passed since the due date',
    });
  });

  it('says who the acting user must be, and folds a false boolean constant away', () => {
    expect(guardsInWords(example('expenses'))).toEqual({
      submit: 'you created it',
      approve: 'you are the approver and you are not the employee’s person',
      reject: 'you are the approver and the decision note has at least 10 characters',
      'send back': 'you are the approver',
    });
  });

  it('says roles, lengths, service levels and a conditional', () => {
    expect(guardsInWords(example('helpdesk'))).toEqual({
      assign: 'the assignee has the role agent',
      escalate:
        'more than 30 minutes have passed since it was created if the priority is "urgent", ' +
        'and otherwise when more than 4 hours have passed since it was created',
      'miss service level':
        'more than 30 minutes have passed since it was created if the priority is "urgent", ' +
        'and otherwise when more than 4 hours have passed since it was created',
      start: 'you are the assignee',
      resolve: 'the resolution has at least 20 characters',
      reopen: 'less than 14 days have passed since it was last changed',
    });
  });

  it('reads negations, either-or inside and, literal durations, and quotes what it has no words for', () => {
    const model = example('lending-desk');
    const loan = model.entities.find((e) => e.name === 'Loan');
    if (!loan) throw new Error('no Loan');
    const say = (source: string) => conditionWords(source, loan, model);
    expect(say('due - today < duration("72h")')).toBe('the due date is less than 72 hours away');
    expect(say('!(renewals > MAX_RENEWALS)')).toBe('the renewals are at most 2');
    expect(say('"member" in user.roles && (due > today || size(condition_note) > 3)')).toBe(
      'you have the role member and either the due date is after today or the condition note has more than 3 characters',
    );
    expect(say('!("staff" in borrower.roles)')).toBe('the borrower does not have the role staff');
    expect(say('book.title.startsWith("A")')).toBe('book.title.startsWith("A") holds');
    expect(say('due >')).toBe('due > holds');
  });
});

/** A small product with text, a choice, a date-time and constants of every kind a guard names. */
const CLAIMS = `# Specification: Claims

## 3. Entities and their fields

### Claim

| field        | type                     | rules    |
| ------------ | ------------------------ | -------- |
| receipt      | text                     |          |
| priority     | choice of low, urgent    | required |
| items        | integer                  |          |
| submitted_at | datetime                 |          |

## 4. States and transitions

### Claim

| transition | from  | to        | when                                            |
| ---------- | ----- | --------- | ----------------------------------------------- |
| open       | (new) | draft     |                                                 |
| submit     | draft | submitted | receipt != "" \\|\\| items <= MAX_ITEMS     |
| hurry      | draft | submitted | priority == "urgent" && today <= DEADLINE      |
| late       | draft | submitted | submitted_at > timestamp(DEADLINE)              |
| wait       | draft | submitted | now - submitted_at > GRACE && priority == LEVEL |
| stamp      | draft | submitted | submitted_at < CUTOFF                           |

## 9. Business constants and limits

| name      | value                |
| --------- | -------------------- |
| MAX_ITEMS | 3                    |
| DEADLINE  | 2026-03-01           |
| CUTOFF    | 2026-03-01T09:00:00Z |
| GRACE     | 36 hours             |
| LEVEL     | "low"                |
`;

describe('literals and constants in words', () => {
  const { model, diagnostics } = checkSpec(CLAIMS);
  const claim = model.entities.find((e) => e.name === 'Claim');
  if (!claim) throw new Error('no Claim');
  const say = (source: string) => conditionWords(source, claim, model);

  it('checks the product they are said of cleanly, date constants in comparisons included', () => {
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('says a comparison with the empty string as empty or not, and quotes other text', () => {
    expect(guardsInWords(model).submit).toBe('the receipt is not empty or the items are at most 3');
    expect(say('receipt == ""')).toBe('the receipt is empty');
    expect(say('"" != receipt')).toBe('the receipt is not empty');
    expect(say('priority == "urgent"')).toBe('the priority is "urgent"');
    expect(say('priority in ["low", "urgent"]')).toBe('the priority is one of "low", "urgent"');
  });

  it('says constants by their value: a number, a duration and text as written, a date by its date', () => {
    const said = guardsInWords(model);
    expect(said.hurry).toBe('the priority is "urgent" and 2026-03-01 is today or later');
    expect(said.late).toBe('the submitted at is after 2026-03-01');
    expect(said.wait).toBe('more than 36 hours have passed since the submitted at and the priority is "low"');
    expect(said.stamp).toBe('the submitted at is before 2026-03-01T09:00:00Z');
    expect(say('items < MAX_ITEMS')).toBe('the items are less than 3');
  });
});
