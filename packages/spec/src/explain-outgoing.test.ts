import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { explainModel } from './explain.ts';
import { pointProgress } from './progress.ts';

const example = (name: string) =>
  checkSpec(readFileSync(new URL(`../../../examples/${name}.md`, import.meta.url), 'utf8')).model;

describe('explaining what the product does as records change', () => {
  it('names each notification’s event, recipients and subject in point 7 of explain and the Studio’s progress', () => {
    const helpdesk = example('helpdesk');
    const assigned =
      'Notification when Ticket: assign is taken, to the user in assignee: "Ticket assigned to you: {title}"';
    expect(explainModel(helpdesk)).toContain(assigned);
    const calls = pointProgress(helpdesk).find((p) => p.key === 'calls');
    expect(calls?.acts).toEqual([
      assigned,
      'Notification when Ticket: resolve is taken, to the user in reporter: "Your ticket is resolved: {title}"',
    ]);
  });

  it('names each call’s method, URL source, body and secret source, and what transitions set', () => {
    const expenses = example('expenses');
    const progress = pointProgress(expenses);
    const call = progress.find((p) => p.key === 'calls')?.acts ?? [];
    expect(call).toHaveLength(1);
    expect(call[0]).toMatch(
      /^POST to env FINANCE_WEBHOOK_URL when Expense: approve is taken, with (Expense \(.*\bid\b.*\)|the whole record), signed with env FINANCE_WEBHOOK_SECRET$/,
    );
    expect(explainModel(expenses)).toContain(call[0]);
    const states = progress.find((p) => p.key === 'states')?.acts ?? [];
    expect(states.find((l) => l.startsWith('Expense: approve sets'))).toMatch(/decided_by = user.*decided_on = today/);
    expect(progress.find((p) => p.key === 'entities')?.acts).toEqual([]);
  });

  it('names each recurring job and when it runs, and the call it sets off', () => {
    const helpdesk = readFileSync(new URL('../../../examples/helpdesk.md', import.meta.url), 'utf8').replace(
      '## 8. The error catalogue',
      `### Schedules

| job          | every              |
| ------------ | ------------------ |
| daily digest | every day at 07:00 |

### Calls to other systems

| on                    | url          | secret          |
| --------------------- | ------------ | --------------- |
| schedule daily digest | env HOOK_URL | env HOOK_SECRET |

## 8. The error catalogue`,
    );
    const acts = pointProgress(checkSpec(helpdesk).model).find((p) => p.key === 'calls')?.acts ?? [];
    expect(acts).toContain("Job daily digest runs every day at 07:00 (cron 0 7 * * *), in the product's time zone");
    expect(acts).toContain(
      'POST to env HOOK_URL when job daily digest falls due, with the job and the time it fell due, signed with env HOOK_SECRET',
    );
  });
});
