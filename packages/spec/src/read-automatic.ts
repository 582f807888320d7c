import type { AutomaticTiming } from './model.ts';
import type { Cell } from './parse-tables.ts';
import { readValue } from './read-constants.ts';
import type { Scope } from './scope.ts';
import { suggest } from './suggest.ts';

/** The word in a transition's who column that says the app takes it by itself. */
export const SYSTEM_ACTOR = 'system';

/** `after 4 hours`, `after SLA_RESPONSE in new`: the when column of a transition taken after a time in a state. */
const AFTER = /^after\s+(.+?)(?:\s+in\s+(\S+))?$/i;

/** What a transition row's who and when cells say about the system taking it. */
export interface AutomaticReading {
  /** The who cells naming roles (`system` left out). */
  roles: Cell[];
  automatic: AutomaticTiming | undefined;
  /** The when cell as a CEL guard, or null: an `after` clause is no guard. */
  guard: string | null;
}

/**
 * Reads `system` in a transition's who column and the when column that then says when the app
 * takes it: `after <duration or constant> [in <state>]`, or a condition over `now` or `today`.
 * Reports a duration that does not parse, a constant that is no duration, an `after` state that
 * is not a from-state, an `after` without `system`, a creating transition for the system, and a
 * condition that never changes with time.
 */
export function readAutomatic(
  transition: string,
  who: readonly Cell[],
  when: Cell,
  from: { states: readonly string[]; creates: boolean; cell: Cell },
  scope: Scope,
): AutomaticReading {
  const { bag } = scope;
  const systemCell = who.find((c) => c.text.toLowerCase() === SYSTEM_ACTOR);
  const roles = who.filter((c) => c !== systemCell);
  const after = AFTER.exec(when.text);
  if (!systemCell) {
    if (after) {
      bag.report(
        'after-without-system',
        when.span,
        `Transition "${transition}" waits "${when.text}", but nobody takes it then.`,
        {
          hint: `Add "${SYSTEM_ACTOR}" to its who column so the app takes it by itself once the time has passed.`,
        },
      );
      return { roles, automatic: undefined, guard: null };
    }
    return { roles, automatic: undefined, guard: when.text === '' ? null : when.text };
  }
  if (from.creates) {
    bag.report(
      'automatic-creating-transition',
      systemCell.span,
      `The system cannot take "${transition}": it creates records.`,
      {
        hint: `Remove "${SYSTEM_ACTOR}" from its who column; a record is created by a person or a call.`,
      },
    );
    return { roles, automatic: undefined, guard: when.text === '' ? null : when.text };
  }
  if (after) {
    const timing = readAfter(transition, after[1] ?? '', after[2] ?? null, when, from, scope);
    return { roles, automatic: timing ?? undefined, guard: null };
  }
  if (when.text === '' || !mentionsTime(when.text)) {
    bag.report(
      'timeless-automatic-transition',
      when.text === '' ? systemCell.span : when.span,
      when.text === ''
        ? `The system takes "${transition}" but its when column does not say when.`
        : `The system takes "${transition}" when "${when.text}" holds, which never changes with time.`,
      {
        hint: 'Write "after 4 hours" (time in its state), or a condition over now or today such as "now > due".',
      },
    );
    return { roles, automatic: undefined, guard: when.text === '' ? null : when.text };
  }
  return { roles, automatic: { kind: 'condition' }, guard: when.text };
}

function readAfter(
  transition: string,
  amount: string,
  state: string | null,
  when: Cell,
  from: { states: readonly string[]; cell: Cell },
  scope: Scope,
): AutomaticTiming | null {
  const { bag } = scope;
  let seconds: number | null = null;
  let constant: string | null = null;
  if (/^[A-Z][A-Z0-9_]*$/.test(amount)) {
    seconds = scope.duration(amount, when, `Transition "${transition}" waits`);
    if (seconds === null) return null;
    constant = amount;
  } else {
    const value = readValue(amount);
    if (value.type !== 'duration' || Number(value.value) <= 0) {
      bag.report('invalid-duration', when.span, `Transition "${transition}": "${amount}" is not a duration.`, {
        hint: 'Write a number and a unit: seconds, minutes, hours, days or weeks, e.g. "after 4 hours".',
      });
      return null;
    }
    seconds = Number(value.value);
  }
  if (state !== null && !from.states.includes(state)) {
    bag.report(
      'after-state-not-from',
      when.span,
      `Transition "${transition}" waits in "${state}", which it does not leave.`,
      {
        expected: suggest(state, from.states),
        hint: `Name one of its from states (${from.states.join(', ')}), or leave "in ${state}" out to wait in any of them.`,
      },
    );
    return null;
  }
  return { kind: 'after', seconds, constant, state };
}

/** Whether a CEL condition mentions `now` or `today` outside its string literals. */
export function mentionsTime(condition: string): boolean {
  const code = condition.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
  return /(?<![\w.])(now|today)(?!\w)/.test(code);
}
