import { readFileSync } from 'node:fs';
import { checkSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { compileOutgoing, eventKey } from './outgoing.ts';

const EXPENSES = checkSpec(readFileSync(new URL('../../../../examples/expenses.md', import.meta.url), 'utf8')).model;
const SECRET = `whsec_${Buffer.from('finance gave us this secret').toString('base64')}`;

describe('compiling point 7 against the environment', () => {
  it('says the expenses call is not configured when FINANCE_WEBHOOK_URL or its secret is unset, and leaves it out', () => {
    const bare = compileOutgoing(EXPENSES, {});
    expect(bare.unconfigured).toEqual([
      'The call to env FINANCE_WEBHOOK_URL on Expense: approve is not configured: set FINANCE_WEBHOOK_URL to an http(s) URL.',
    ]);
    expect(bare.byEvent.size).toBe(0);
    const noSecret = compileOutgoing(EXPENSES, { FINANCE_WEBHOOK_URL: 'https://finance.example.com/hooks' });
    expect(noSecret.unconfigured[0]).toContain('set FINANCE_WEBHOOK_SECRET to a whsec_… secret');
    const weak = compileOutgoing(EXPENSES, {
      FINANCE_WEBHOOK_URL: 'https://finance.example.com/hooks',
      FINANCE_WEBHOOK_SECRET: 'hunter2',
    });
    expect(weak.unconfigured).toHaveLength(1);
  });

  it('sets off the call on approval when both are set', () => {
    const ready = compileOutgoing(EXPENSES, {
      FINANCE_WEBHOOK_URL: 'https://finance.example.com/hooks',
      FINANCE_WEBHOOK_SECRET: SECRET,
    });
    expect(ready.unconfigured).toEqual([]);
    expect(ready.byEvent.get(eventKey('Expense', 'transition', 'approve'))).toEqual([
      { kind: 'call', index: 0, target: 'POST env FINANCE_WEBHOOK_URL' },
    ]);
    expect(ready.byEvent.get(eventKey('Expense', 'transition', 'reject'))).toBeUndefined();
  });
});
