import { readFileSync } from 'node:fs';
import { checkSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client.ts';
import type { Me } from '../api/session.ts';
import { bulkTransitions } from './BulkBar.tsx';
import { runBulk, selectionCsv } from './bulk.ts';

const records = Array.from({ length: 9 }, (_, i) => ({ id: `r${i}`, title: `T${i}` }));

describe('bulk actions', () => {
  it('runs one call per row, never more than the bound at once, and answers each row in order', async () => {
    let running = 0;
    let most = 0;
    const progress: number[] = [];
    const outcomes = await runBulk(
      records,
      async (record) => {
        running++;
        most = Math.max(most, running);
        // Let the other workers start before this one finishes.
        await new Promise((resolve) => setImmediate(resolve));
        running--;
        if (record.id === 'r4') {
          throw new ApiError({
            status: 409,
            code: 'TRANSITION_NOT_ALLOWED',
            title: 'x',
            detail: 'Return is not allowed.',
          });
        }
      },
      { concurrency: 3, onProgress: (done) => progress.push(done) },
    );
    expect(most).toBe(3);
    expect(outcomes.map((o) => o.id)).toEqual(records.map((r) => r.id));
    expect(outcomes.filter((o) => !o.ok)).toEqual([{ id: 'r4', ok: false, message: 'Return is not allowed.' }]);
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('lists a refusal’s field messages after its detail', async () => {
    const [outcome] = await runBulk([{ id: 'a' }], async () => {
      throw new ApiError({
        status: 422,
        code: 'VALIDATION_FAILED',
        title: 'x',
        detail: 'Some fields are not valid.',
        errors: [{ field: 'due', code: 'X', message: 'The due date must be in the future.' }],
      });
    });
    expect(outcome).toEqual({
      id: 'a',
      ok: false,
      message: 'Some fields are not valid. The due date must be in the future.',
    });
  });

  it('exports the selected rows as CSV, formulas defused', async () => {
    const blob = selectionCsv(
      ['id', 'title'],
      [
        { id: 'a', title: '=cmd' },
        { id: 'b', title: null },
      ],
    );
    // The BOM tells spreadsheets the file is UTF-8; `blob.text()` would drop it.
    expect(new TextDecoder('utf-8', { ignoreBOM: true }).decode(await blob.arrayBuffer())).toBe(
      "\uFEFFid,title\r\na,'=cmd\r\nb,\r\n",
    );
  });
});

describe('bulk transitions', () => {
  const { model } = checkSpec(readFileSync(new URL('../../../../examples/helpdesk.md', import.meta.url), 'utf8'));
  const machine = model.machines.find((m) => m.entity === 'Ticket');
  const access = (transitions: Record<string, 'all' | 'own' | 'none'>): Me => ({
    user: { id: 'u', email: 'u@example.test', name: 'U', roles: ['lead'], createdAt: '2026-01-01T00:00:00.000Z' },
    access: { Ticket: { transitions } as never },
    people: null,
    signUp: [],
    singleSignOn: null,
    twoFactor: null,
  });

  it('offers the transitions the user is granted, that have a call, and need nothing typed in', () => {
    const names = (me: Me) => bulkTransitions(model, me, 'Ticket', machine).map((t) => t.name);
    // `open` creates: it has no call of its own.
    expect(names(access({ open: 'all', close: 'all', withdraw: 'own', assign: 'none' }))).toEqual([
      'close',
      'withdraw',
    ]);
    expect(names(access({}))).toEqual([]);
  });
});
