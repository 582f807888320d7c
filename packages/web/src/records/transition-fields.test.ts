import { readFileSync } from 'node:fs';
import { checkSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { transitionFields } from './transitions.tsx';

const lending = readFileSync(new URL('../../../../examples/lending-desk.md', import.meta.url), 'utf8');

describe("a transition's dialog", () => {
  it('asks for the payload of its call but never for a field the transition sets', () => {
    // renew's call carries what renew sets (a warning, set-field-in-payload) and a note besides.
    const source = lending.replace(
      '| POST   | /api/loans/:id/renew        |                                                     |',
      '| POST   | /api/loans/:id/renew        | Loan (due, renewals, condition_note)                |',
    );
    const { model, ok, diagnostics } = checkSpec(source);
    expect(ok).toBe(true);
    expect(diagnostics.filter((d) => d.code === 'set-field-in-payload').map((d) => d.message)).toHaveLength(2);
    const renew = model.machines[0]?.transitions.find((t) => t.name === 'renew');
    if (!renew) throw new Error('no renew');
    expect(transitionFields(model, 'Loan', renew).map((f) => f.name)).toEqual(['condition_note']);
    // Without sets, the dialog asks for the whole payload.
    expect(transitionFields(model, 'Loan', { ...renew, sets: [] }).map((f) => f.name)).toEqual([
      'due',
      'renewals',
      'condition_note',
    ]);
  });
});
