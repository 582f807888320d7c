import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { mentionsTime } from './read-automatic.ts';

const sketch = readFileSync(new URL('../test/fixtures/sketch.md', import.meta.url), 'utf8');

/** The sketch with its Loan transitions replaced and constants added to point 9. */
function withTransitions(rows: string, constants = ''): string {
  const machine = sketch.slice(sketch.indexOf('| transition | from |'), sketch.indexOf('\n\n## 5.'));
  const table = `| transition | from | to | who | when |\n|---|---|---|---|---|\n| lend | (new) | out | staff | book.copies > 0 |\n| return | out, overdue | returned | staff | |\n${rows.trim()}`;
  const spec = sketch.replace(machine, () => table);
  return constants === '' ? spec : spec.replace('| MAX_LOANS | 5 |', () => `${constants.trim()}\n| MAX_LOANS | 5 |`);
}

const problems = (source: string) =>
  checkSpec(source).diagnostics.map((d) => ({
    code: d.code,
    line: d.line,
    hint: d.hint !== undefined && d.hint !== '',
  }));
const transition = (source: string, name: string) =>
  checkSpec(source).model.machines[0]?.transitions.find((t) => t.name === name);

describe('automatic transitions', () => {
  it('reads a condition over time taken by the system alone', () => {
    const source = withTransitions('| mark overdue | out | overdue | system | now > due |');
    expect(problems(source)).toEqual([]);
    expect(transition(source, 'mark overdue')).toMatchObject({
      who: [],
      guard: 'now > due',
      automatic: { kind: 'condition' },
    });
  });

  it('reads a wait in a state, by the system and a role, with a literal or a constant duration', () => {
    const source = withTransitions(
      `| mark overdue | out | overdue | system, staff | after 3 weeks in out |
| write off | overdue | lost | system | after LOST_AFTER |`,
      '| LOST_AFTER | 8 weeks | |',
    );
    expect(problems(source)).toEqual([]);
    expect(transition(source, 'mark overdue')).toMatchObject({
      who: ['staff'],
      guard: null,
      automatic: { kind: 'after', seconds: 21 * 86_400, constant: null, state: 'out' },
    });
    expect(transition(source, 'write off')?.automatic).toEqual({
      kind: 'after',
      seconds: 56 * 86_400,
      constant: 'LOST_AFTER',
      state: null,
    });
  });

  it('reports a duration that does not parse and a constant that is no duration', () => {
    expect(problems(withTransitions('| mark overdue | out | overdue | system | after a while |'))).toEqual([
      { code: 'invalid-duration', line: 35, hint: true },
    ]);
    expect(
      problems(withTransitions('| mark overdue | out | overdue | system | after MAX_COPIES |')).map((p) => p.code),
    ).toEqual(['invalid-duration']);
  });

  it('reports an unknown constant with a did-you-mean', () => {
    const source = withTransitions(
      '| mark overdue | out | overdue | system | after LOST_AFTR |',
      '| LOST_AFTER | 8 weeks | |',
    );
    const found = checkSpec(source).diagnostics.filter((d) => d.code !== 'unused-constant');
    expect(found.map((d) => [d.code, d.expected])).toEqual([['unknown-constant', ['LOST_AFTER']]]);
  });

  it('reports a condition that never changes with time, and a system transition with no when', () => {
    expect(problems(withTransitions('| mark overdue | out | overdue | system | book.copies > 0 |'))).toEqual([
      { code: 'timeless-automatic-transition', line: 35, hint: true },
    ]);
    expect(problems(withTransitions('| mark overdue | out | overdue | system | |')).map((p) => p.code)).toEqual([
      'timeless-automatic-transition',
    ]);
  });

  it('reports an after without system, a wait in a state it does not leave, and a creating transition for the system', () => {
    expect(
      problems(withTransitions('| mark overdue | out | overdue | staff | after 1 day |')).map((p) => p.code),
    ).toEqual(['after-without-system']);
    expect(
      problems(withTransitions('| mark overdue | out | overdue | system | after 1 day in returned |')).map(
        (p) => p.code,
      ),
    ).toEqual(['after-state-not-from']);
    const creating = sketch.replace('| lend | (new) | out | staff |', '| lend | (new) | out | staff, system |');
    expect(problems(creating).map((p) => p.code)).toEqual(['automatic-creating-transition']);
  });

  it('tells time from a condition, ignoring names inside text', () => {
    expect(mentionsTime('now - created_at > SLA')).toBe(true);
    expect(mentionsTime('due < today')).toBe(true);
    expect(mentionsTime('title == "now" && book.now_shown')).toBe(false);
  });
});

describe('TIME_ZONE', () => {
  it('accepts an IANA name and reports one that is not', () => {
    const spec = (zone: string) =>
      sketch.replace('| MAX_LOANS | 5 |', () => `| TIME_ZONE | ${zone} | |\n| MAX_LOANS | 5 |`);
    expect(problems(spec('Europe/Berlin'))).toEqual([]);
    expect(problems(spec('Europe/Berlim'))).toEqual([{ code: 'unknown-time-zone', line: 65, hint: true }]);
  });

  it('says which constant a wait names when point 9 lacks it or it holds no duration, with a suggestion', () => {
    const said = (rows: string, constants: string) =>
      checkSpec(withTransitions(`| mark overdue | out | overdue | system | now > due |\n${rows}`, constants))
        .diagnostics.filter((d) => d.code === 'unknown-constant' || d.code === 'invalid-duration')
        .map((d) => [d.code, d.message, d.expected, d.hint]);
    expect(said('| write off | overdue | lost | system | after LOST_AFTR |', '| LOST_AFTER | 8 weeks | |')).toEqual([
      [
        'unknown-constant',
        'Transition "write off" waits LOST_AFTR, which point 9 does not define.',
        ['LOST_AFTER'],
        'Did you mean "LOST_AFTER"? Add a row "| LOST_AFTR | 4 hours | … |" to point 9, or write the time, e.g. "after 4 hours".',
      ],
    ]);
    expect(said('| write off | overdue | lost | system | after LOST_AFTER |', '| LOST_AFTER | 8 | |')).toEqual([
      [
        'invalid-duration',
        'Transition "write off" waits LOST_AFTER, which is a integer, not a duration.',
        [],
        'Give LOST_AFTER a duration in point 9, e.g. "4 hours", "30 minutes" or "2 days".',
      ],
    ]);
  });
});
