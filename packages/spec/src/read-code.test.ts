import { describe, expect, it } from 'vitest';
import { composeSnippet } from '../test/compose-snippet.ts';
import { checkSpec } from './check.ts';
import { checkModules, codeNeeds, type ModuleFacts } from './code-modules.ts';
import { explainOutgoing } from './explain-outgoing.ts';

const CALLS = `## 7. The calls it makes

| method | path                   | payload   | does                     | answer |
| ------ | ---------------------- | --------- | ------------------------ | ------ |
| GET    | /api/loans             |           | list Loan                |        |
| POST   | /api/loans/:id/extend  | Loan (due) | code extend from code/loans.ts | Loan |
| POST   | /api/loans/:id/remind  |           | code reminders.ts        |        |

### Schedules

| job          | every              |
| ------------ | ------------------ |
| nightly tidy | every day at 03:00 |

### Code

| on                  | code              |
| ------------------- | ----------------- |
| before create Loan  | checks.ts         |
| after Loan: return  | thanks from ./code/../after.ts |
| schedule nightly tidy | tidy.ts         |
`;

const codes = (source: string) => checkSpec(composeSnippet(source)).diagnostics.map((d) => `${d.code} ${d.message}`);

describe("point 7's code", () => {
  it('reads custom calls with their payload and answer, and hooks before, after and on a schedule', () => {
    const { model, diagnostics } = checkSpec(composeSnippet(CALLS));
    expect(diagnostics).toEqual([]);
    const extend = model.calls.find((c) => c.path === '/api/loans/:id/extend');
    expect(extend?.action).toMatchObject({
      kind: 'code',
      entity: 'Loan',
      code: { file: 'code/loans.ts', export: 'extend' },
    });
    expect(extend?.payload).toEqual({ entity: 'Loan', fields: ['due'] });
    expect(extend?.answer).toEqual({ entity: 'Loan', fields: null });
    expect(model.calls.find((c) => c.path.endsWith('remind'))?.answer).toBeNull();
    expect(model.hooks.map((h) => [h.moment, h.event, h.code.file, h.code.export])).toEqual([
      ['before', { kind: 'create', entity: 'Loan' }, 'checks.ts', 'default'],
      ['after', { kind: 'transition', entity: 'Loan', transition: 'return' }, 'after.ts', 'thanks'],
      ['schedule', { kind: 'schedule', job: 'nightly tidy' }, 'tidy.ts', 'default'],
    ]);
    expect(explainOutgoing(model).slice(1)).toEqual([
      'The module checks.ts runs before a Loan is created, which may refuse the write',
      'The module thanks from after.ts runs after Loan: return is taken, once the write has committed',
      'The module tidy.ts runs each time job nightly tidy falls due',
    ]);
    expect(codeNeeds(model).map((n) => `${n.use} ${n.export} ${n.file}`)).toEqual([
      'call extend code/loans.ts',
      'call default reminders.ts',
      'hook default checks.ts',
      'hook thanks after.ts',
      'job default tidy.ts',
    ]);
  });

  it('refuses a module outside the folder, a file that is not TypeScript, an event that is not one, a hook without a moment', () => {
    const bad = `## 7. The calls it makes

| method | path                  | does                |
| ------ | --------------------- | ------------------- |
| POST   | /api/loans/:id/extend | code ../loans.ts    |
| POST   | /api/loans/:id/remind | code /etc/remind.ts |
| POST   | /api/loans/:id/other  | code other.js       |
| POST   | /api/tickets/:id/go   | code go.ts          |

### Code

| on                 | code      |
| ------------------ | --------- |
| before frob Loan   | checks.ts |
| create Loan        | checks.ts |
| after Loan: lose   | checks.ts |
| schedule nightly   | tidy.ts   |
`;
    expect(codes(bad)).toEqual([
      'invalid-module Call POST /api/loans/:id/extend names "../loans.ts", which is outside the spec\'s folder.',
      'invalid-module Call POST /api/loans/:id/remind names "/etc/remind.ts", which is outside the spec\'s folder.',
      'invalid-module Call POST /api/loans/:id/other names "other.js", which is not a TypeScript file.',
      "call-mismatch Call POST /api/tickets/:id/go is a code call under /api/tickets, which is no entity's collection.",
      'invalid-event A hook is set off by "frob Loan", which is not an event.',
      'invalid-event The hook on "create Loan" does not say when it runs.',
      'unknown-transition A hook on "Loan: lose" names transition "lose", which Loan does not have.',
      'invalid-schedule The hook on "schedule nightly" names job "nightly", which point 7\'s Schedules do not declare.',
    ]);
  });

  it('judges what the modules hold: missing, not exported, not a function, made for another use', () => {
    const { model } = checkSpec(composeSnippet(CALLS));
    const found = checkModules(
      model,
      new Map<string, ModuleFacts>([
        ['code/loans.ts', { found: true, exports: { extnd: 'call' } }],
        ['reminders.ts', { found: false, why: 'is not there' }],
        ['checks.ts', { found: true, exports: { default: 'call' } }],
        ['after.ts', { found: true, exports: { thanks: 'other' } }],
        ['tidy.ts', { found: true, exports: { default: 'function' } }],
      ]),
    );
    expect(found.map((d) => [d.code, d.message, d.expected])).toEqual([
      [
        'missing-export',
        'Call POST /api/loans/:id/extend runs "extend" of code/loans.ts, which it does not export.',
        ['extnd'],
      ],
      ['missing-module', 'Call POST /api/loans/:id/remind runs reminders.ts, which is not there.', []],
      [
        'missing-export',
        'The hook before create Loan runs a default export of checks.ts, which is made with defineCall, for another use.',
        [],
      ],
      ['missing-export', 'The hook after Loan: return runs "thanks" of after.ts, which is not a function.', []],
    ]);
  });
});
