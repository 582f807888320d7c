import type { StateMachine } from '@ninepoint/spec';
import { type Move, stateLabel, transitionLabel } from './access.ts';
import type { ApiRecord } from './calls.ts';

/** States no step leads out of (closed, archived): a board folds them to their count. */
export function terminalStates(machine: StateMachine): Set<string> {
  const leaving = new Set(machine.transitions.filter((t) => !t.creates).flatMap((t) => t.from));
  return new Set(machine.states.map((s) => s.name).filter((s) => !leaving.has(s)));
}

/**
 * Why a dragged card may not enter a column, in a few words, or null when it may (or the column is
 * its own): no step leads there from its state, the steps that do are someone else's, or each of
 * them is refused now (`refusals`: a guard or rule's own message, by transition).
 */
export function dropRefusal(
  machine: StateMachine,
  record: ApiRecord,
  moves: readonly Move[],
  state: string,
  refusals: ReadonlyMap<string, string>,
): string | null {
  const from = String(record.state ?? '');
  if (from === state) return null;
  const mine = moves.filter((m) => m.to === state);
  const open = mine.filter((m) => !refusals.has(m.transition.name));
  if (open.length > 0) return null;
  const [first] = mine;
  if (first) return refusals.get(first.transition.name) ?? null;
  const steps = machine.transitions.filter((t) => !t.creates && t.to === state && t.from.includes(from));
  if (steps.length === 0) return `no step leads from ${stateLabel(from)} to ${stateLabel(state)}`;
  // An automatic step whose `who` names nobody is the app's alone.
  const bySystem = (t: (typeof steps)[number]) => t.automatic !== undefined && t.who.length === 0;
  const people = steps.filter((t) => !bySystem(t));
  if (people.length === 0) {
    return `only the app moves it there (${steps.map((t) => transitionLabel(t).toLowerCase()).join(' or ')})`;
  }
  const names = people.map((t) => transitionLabel(t)).join(' or ');
  const who = [...new Set(people.flatMap((t) => t.who))];
  return who.length > 0 ? `${names} is for ${who.join(', ')}` : `you may not ${names.toLowerCase()} it`;
}

/** Words that say how pressing a choice is, calm to urgent. */
const URGENCY: [RegExp, string][] = [
  [/^(urgent|critical|blocker|highest|emergency|p0)$/, 'red'],
  [/^(high|major|important|p1)$/, 'orange'],
  [/^(normal|medium|moderate|p2)$/, 'blue'],
  [/^(low|minor|lowest|trivial|p3|p4)$/, 'gray'],
];
const PALETTE = ['blue', 'grape', 'cyan', 'lime', 'orange', 'pink', 'violet', 'teal'];

/**
 * A choice's colour on a card: by urgency when the value says how pressing it is (low grey,
 * urgent red), else one hue per value by its place in the choice, the same on every card.
 */
export function choiceColor(field: string, values: readonly string[], value: string): string {
  const name = value.toLowerCase();
  for (const [pattern, color] of URGENCY) if (pattern.test(name)) return color;
  const at = Math.max(values.indexOf(value), 0);
  // Two choices of one entity should not start on the same hue.
  const shift = [...field].reduce((sum, c) => sum + c.charCodeAt(0), 0);
  return PALETTE[(at + shift) % PALETTE.length] ?? 'blue';
}
