import { readFileSync } from 'node:fs';
import { checkSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { compileOutgoing, eventKey, outgoingKey } from './outgoing.ts';

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
      {
        kind: 'call',
        key: expect.stringMatching(/^call:expense\.approve:[0-9a-f]{12}$/),
        target: 'POST env FINANCE_WEBHOOK_URL',
      },
    ]);
    expect(ready.byEvent.get(eventKey('Expense', 'transition', 'reject'))).toBeUndefined();
  });

  it('keys a declaration by what it says, not where point 7 puts it', () => {
    const webhook = EXPENSES.webhooks[0];
    if (!webhook) throw new Error('the expenses example declares a call');
    const moved = { ...webhook, span: { ...webhook.span, line: webhook.span.line + 40 } };
    expect(outgoingKey('call', moved)).toBe(outgoingKey('call', webhook));
    expect(outgoingKey('call', { ...webhook, fields: [...(webhook.fields ?? []), 'amount'] })).not.toBe(
      outgoingKey('call', webhook),
    );
  });
});
