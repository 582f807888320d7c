import type { Assignment, State, StateMachine, Transition } from './model.ts';
import { plain, STATE_NAME, TRANSITION_NAME, transitionSlug } from './names.ts';
import type { Section, Subsection } from './parse-sections.ts';
import type { Cell } from './parse-tables.ts';
import { keyedRows, mapColumns, splitList } from './parse-tables.ts';
import { readAutomatic } from './read-automatic.ts';
import { readAssignments } from './read-effects.ts';
import { cellOf, docOf, NameSet, requiredCell, validName } from './read-helpers.ts';
import type { Scope } from './scope.ts';

const STATE_COLUMNS = [{ key: 'state', names: ['state', 'states'], required: true }];
const TRANSITION_COLUMNS = [
  { key: 'transition', names: ['transition', 'action', 'name'], required: true },
  { key: 'from', names: ['from'], required: true },
  { key: 'to', names: ['to'], required: true },
  { key: 'who', names: ['who', 'roles', 'by'] },
  { key: 'when', names: ['when', 'guard', 'if', 'condition'] },
  { key: 'error', names: ['error', 'code', 'error code'] },
  { key: 'sets', names: ['sets', 'set', 'effects'] },
];
const NEW = /^\((new|start|create)\)$/i;
const STATE_RULE = 'State names are lowercase words joined by _ or -, e.g. in_review';

/** Point 4: one `### Entity` per state machine, with an optional states table and a transitions table. */
export function readStates(section: Section, scope: Scope): StateMachine[] {
  const { bag } = scope;
  for (const table of section.tables) {
    bag.report('misplaced-table', table.span, 'This table in point 4 is not under an entity heading.', {
      hint: 'Put a "### EntityName" heading (the entity whose states these are) right above it.',
    });
  }
  const names = new NameSet(bag, 'state machine');
  const machines: StateMachine[] = [];
  for (const sub of section.subsections) {
    const cell = { text: plain(sub.name), span: sub.span };
    if (!scope.entity(cell, 'This state machine') || !names.add(cell)) continue;
    const machine = readMachine(sub, cell.text, scope);
    machines.push(machine);
    scope.machines.set(machine.entity, machine);
  }
  return machines;
}

function readMachine(sub: Subsection, entity: string, scope: Scope): StateMachine {
  const { bag } = scope;
  const states: State[] = [];
  const stateNames = new NameSet(bag, `state of ${entity}`);
  let declared = false;
  const transitions: Transition[] = [];
  const transitionNames = new NameSet(bag, `transition of ${entity}`);
  const mentions: Cell[] = [];
  for (const table of sub.tables) {
    const first = table.header[0]?.text.toLowerCase().replace(/[`*]/g, '').trim();
    if (first === 'state' || first === 'states') {
      declared = true;
      const { keys } = mapColumns(table, STATE_COLUMNS, bag, `${entity} states`);
      for (const row of keyedRows(table, keys)) {
        const name = requiredCell(row, 'state', bag, `A state of ${entity}`);
        if (!name || !validName(name, STATE_NAME, bag, 'state', STATE_RULE) || !stateNames.add(name)) continue;
        states.push({ name: name.text, doc: docOf(row), span: name.span });
      }
      continue;
    }
    const { keys, ok } = mapColumns(table, TRANSITION_COLUMNS, bag, `${entity} transitions`);
    if (!ok) continue;
    for (const row of keyedRows(table, keys)) {
      const name = requiredCell(row, 'transition', bag, `A transition of ${entity}`);
      const fromCell = requiredCell(row, 'from', bag, `Transition ${name?.text ?? ''}`.trim());
      const to = requiredCell(row, 'to', bag, `Transition ${name?.text ?? ''}`.trim());
      if (!name || !fromCell || !to) continue;
      if (
        !validName(
          name,
          TRANSITION_NAME,
          bag,
          'transition',
          'Transition names are lowercase words, e.g. "mark overdue"',
        )
      )
        continue;
      if (!transitionNames.add(name, transitionSlug(name.text))) continue;
      const from: string[] = [];
      let creates = false;
      for (const item of splitList(fromCell)) {
        if (NEW.test(item.text)) creates = true;
        else if (validName(item, STATE_NAME, bag, 'state', STATE_RULE)) {
          from.push(item.text);
          mentions.push(item);
        }
      }
      if (!validName(to, STATE_NAME, bag, 'state', STATE_RULE)) continue;
      mentions.push(to);
      const when = cellOf(row, 'when');
      const timing = readAutomatic(
        name.text,
        splitList(cellOf(row, 'who')),
        when,
        { states: from, creates, cell: fromCell },
        scope,
      );
      const who = timing.roles.filter((r) => scope.role(r, `Transition "${name.text}"`));
      const errorCell = cellOf(row, 'error');
      const error =
        errorCell.text !== '' && !/^[-—–]$/.test(errorCell.text) && scope.code(errorCell, `Transition "${name.text}"`)
          ? errorCell.text
          : null;
      transitions.push({
        name: name.text,
        slug: transitionSlug(name.text),
        from: creates ? [] : from,
        to: to.text,
        creates,
        who: who.map((r) => r.text),
        guard: timing.guard,
        error,
        ...withSets(readAssignments(cellOf(row, 'sets'), bag, name.text)),
        doc: docOf(row),
        span: row.span,
        guardSpan: timing.guard === null ? null : when.span,
        ...(timing.automatic ? { automatic: timing.automatic } : {}),
      });
      if (creates && from.length > 0) {
        bag.report('invalid-name', fromCell.span, `Transition "${name.text}" comes from (new) and from other states.`, {
          hint: 'A creating transition has only (new) in its from cell; add a separate transition for the other states.',
        });
      }
    }
  }
  // States come from the states table when there is one; otherwise from the transitions, in order.
  for (const mention of mentions) {
    if (states.some((s) => s.name === mention.text)) continue;
    if (declared) {
      scope.state(
        { entity, states, initial: '', transitions: [], doc: '', span: sub.span },
        entity,
        mention,
        'This transition',
      );
    } else states.push({ name: mention.text, doc: '', span: mention.span });
  }
  const initial = transitions.find((t) => t.creates)?.to ?? states[0]?.name ?? '';
  return { entity, states, initial, transitions, doc: sub.prose, span: sub.span };
}

/** `sets` only when the transition sets something, so models without effects stay as they were. */
function withSets(sets: Assignment[]): { sets?: Assignment[] } {
  return sets.length > 0 ? { sets } : {};
}
