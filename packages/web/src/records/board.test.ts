import { readFileSync } from 'node:fs';
import { checkSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { choiceColor } from '../format.ts';
import { columnsWithValues, defaultWidth } from '../list/layout.ts';
import type { ListField } from '../list/query.ts';
import { dropRefusal, terminalStates } from './board.ts';

const { model } = checkSpec(readFileSync(new URL('../../../../examples/helpdesk.md', import.meta.url), 'utf8'));
const machine = model.machines.find((m) => m.entity === 'Ticket');
if (!machine) throw new Error('the helpdesk has a ticket machine');
const move = (name: string) => {
  const transition = machine.transitions.find((t) => t.name === name);
  if (!transition) throw new Error(name);
  return { transition, to: transition.to };
};
const ticket = (state: string) => ({ id: 'x', state, created_at: '', updated_at: '', created_by: null });

describe('the board', () => {
  it('folds only the states no step leads out of', () => {
    expect([...terminalStates(machine)]).toEqual(['closed']);
  });

  it('says why a dragged card may not enter a column, or nothing when it may', () => {
    const resolved = ticket('resolved');
    const moves = [move('close')];
    expect(dropRefusal(machine, resolved, moves, 'closed', new Map())).toBeNull();
    expect(dropRefusal(machine, resolved, moves, 'resolved', new Map())).toBeNull();
    expect(dropRefusal(machine, resolved, moves, 'new', new Map())).toBe('no step leads from Resolved to New');
    // Reopen leads there, but it is the requester's.
    expect(dropRefusal(machine, resolved, moves, 'in_progress', new Map())).toBe('Reopen is for requester');
    // A step the user may take whose check fails now: the check's own words.
    expect(dropRefusal(machine, resolved, moves, 'closed', new Map([['close', 'Set a resolution first']]))).toBe(
      'Set a resolution first',
    );
    // A step the app also takes (miss service level) is not named to a person.
    expect(dropRefusal(machine, ticket('new'), [], 'escalated', new Map())).toBe('Escalate is for agent, lead');
    const system = { ...machine, transitions: machine.transitions.filter((t) => t.name !== 'escalate') };
    expect(dropRefusal(system, ticket('new'), [], 'escalated', new Map())).toBe(
      'only the app moves it there (miss service level)',
    );
  });

  it('colours a choice by the urgency its value says, else one hue per value', () => {
    const priorities = ['low', 'normal', 'high', 'urgent'];
    expect(priorities.map((p) => choiceColor('priority', priorities, p))).toEqual(['gray', 'blue', 'orange', 'red']);
    const categories = ['hardware', 'software', 'access', 'network', 'other'];
    const hues = categories.map((c) => choiceColor('category', categories, c));
    expect(new Set(hues).size).toBe(categories.length);
    expect(choiceColor('category', categories, 'access')).toBe(hues[2]);
  });

  it('colours a choice value as the spec declares it, before urgency or order', () => {
    const priorities = ['low', 'normal', 'high', 'urgent'];
    const declared = { low: 'teal', high: 'grey' } as const;
    expect(priorities.map((p) => choiceColor('priority', priorities, p, declared))).toEqual([
      'teal',
      'blue',
      'gray',
      'red',
    ]);
  });
});

describe('dense list columns', () => {
  const field = (name: string, type: ListField['type']): ListField => ({ name, label: name, type, field: null });
  it('collapses a column empty on every row, keeping the title and the sorted one', () => {
    const columns = [
      field('title', { kind: 'text' }),
      field('notify', { kind: 'email' }),
      field('due', { kind: 'date' }),
    ];
    const rows = [{ id: '1', title: 'a', notify: null, due: null, created_at: '', updated_at: '', created_by: null }];
    const { shown, collapsed } = columnsWithValues(columns, rows, new Set(['title', 'due']));
    expect(shown.map((c) => c.name)).toEqual(['title', 'due']);
    expect(collapsed.map((c) => c.name)).toEqual(['notify']);
    // No rows yet: every column stays.
    expect(columnsWithValues(columns, [], new Set()).shown).toHaveLength(3);
  });

  it('gives a badge column room for its longest value', () => {
    expect(defaultWidth(field('state', { kind: 'choice', values: ['new', 'in_progress'] }))).toBe(40 + 7 * 11);
    expect(defaultWidth(field('created_at', { kind: 'datetime' }))).toBe(124);
  });
});
