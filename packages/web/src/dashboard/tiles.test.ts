import { checkSpec, type Model } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import type { EntityAccess, Me } from '../api/session.ts';
import { choiceColor } from '../format.ts';
import { NO_ACCESS } from '../records/access.ts';
import { groupColor, groupLabel, groupOrder, recordsLink, shownTiles, tileTitle, unitOf, withUnit } from './tiles.ts';

const SPEC = `# Specification: Desk

## 1. What the product does and for whom

Tickets.

## 2. Screens and routes

| route | screen | shows | who |
|---|---|---|---|
| /tickets | list | Ticket | |
| /overview | dashboard | Ticket: count by state, sum of time_spent by category; Note: count | |

## 3. Entities and their fields

### Ticket

| field | type | rules | meaning |
|---|---|---|---|
| title | text | required |
| category | choice of hardware, software | |
| priority | choice of low, normal, high, urgent | |
| time_spent | decimal | | hours, to the quarter hour |

### Note

| field | type | rules |
|---|---|---|
| body | text | required |

## 4. States and transitions

### Ticket

| transition | from | to | who |
|---|---|---|---|
| open | (new) | new | |
| start | new | in_progress | |
`;

const model: Model = checkSpec(SPEC).model;
const NOBODY: Me = { user: null, access: {}, people: null, signUp: [], singleSignOn: null, twoFactor: null };
const tiles = model.screens.find((s) => s.kind === 'dashboard')?.tiles ?? [];
const access = (read: EntityAccess['read']): EntityAccess => ({ ...NO_ACCESS, read });

describe('the tiles of a dashboard', () => {
  it('are those of entities the user may read, each with its summary call and a title in words', () => {
    const me: Me = { ...NOBODY, access: { Ticket: access('own'), Note: access('none') } };
    expect(shownTiles(model, me, tiles)).toEqual([
      { tile: tiles[0], url: '/api/tickets/summary?by=state', title: 'Tickets by state' },
      { tile: tiles[1], url: '/api/tickets/summary?by=category&sum=time_spent', title: 'Time spent by category' },
    ]);
  });

  it('leave out a figure over a field the user does not see', () => {
    const me: Me = { ...NOBODY, access: { Ticket: access('all'), Note: access('all') } };
    const seen: Model = {
      ...model,
      entities: model.entities.map((e) =>
        e.name === 'Ticket' ? { ...e, fields: e.fields.filter((f) => f.name !== 'time_spent') } : e,
      ),
    };
    expect(shownTiles(seen, me, tiles).map((t) => t.title)).toEqual(['Tickets by state', 'Notes']);
  });

  it('name values as words', () => {
    expect([groupLabel('in_progress'), groupLabel(true), groupLabel(null)]).toEqual(['In progress', 'Yes', 'Not set']);
    expect(tileTitle({ entity: 'Ticket', measure: 'sum', field: 'time_spent', by: null })).toBe('Time spent');
  });
});

describe('the figures of a dashboard act', () => {
  const me = { ...NOBODY, user: { id: 'u1', roles: [] }, access: { Ticket: access('all') } } as unknown as Me;

  it("open the list filtered to the records a bar, slice or tile counts, in the list's own address", () => {
    expect(recordsLink(model, me, 'Ticket', 'priority', 'high')).toBe('/tickets?filter%5Bpriority%5D=high');
    expect(recordsLink(model, me, 'Ticket', 'state', 'in_progress')).toBe('/tickets?filter%5Bstate%5D=in_progress');
    expect(recordsLink(model, me, 'Ticket', null)).toBe('/tickets');
    // "Not set" is no value a list filters by, and a Note has no list.
    expect(recordsLink(model, me, 'Ticket', 'priority', null)).toBeNull();
    expect(recordsLink(model, me, 'Note', null)).toBeNull();
  });

  it("colour a scale calm to urgent in the spec's order, so High is never green", () => {
    expect(['low', 'normal', 'high', 'urgent'].map((v) => groupColor(model, 'Ticket', 'priority', v))).toEqual([
      'gray.6',
      'blue.6',
      'orange.6',
      'red.6',
    ]);
    // Values that name no scale take distinct colours instead.
    expect(
      new Set(['hardware', 'software'].map((v) => choiceColor('category', ['hardware', 'software'], v))).size,
    ).toBe(2);
    expect(groupColor(model, 'Ticket', 'state', 'new')).toBe('gray.6');
  });

  it('colour a choice as the spec declares it, where it declares one', () => {
    const declared = checkSpec(
      SPEC.replace('choice of low, normal, high, urgent', 'choice of low (green), normal, high (grape), urgent'),
    ).model;
    expect(['low', 'normal', 'high', 'urgent'].map((v) => groupColor(declared, 'Ticket', 'priority', v))).toEqual([
      'green.6',
      'blue.6',
      'grape.6',
      'red.6',
    ]);
  });

  it('show a choice in the spec\'s order and "Not set" last', () => {
    const order = groupOrder(model, 'Ticket', 'priority');
    expect(['urgent', null, 'low', 'high'].sort((a, b) => order(a) - order(b))).toEqual([
      'low',
      'high',
      'urgent',
      null,
    ]);
  });

  it('carry the unit the meaning of a summed field starts with', () => {
    expect(unitOf(model, 'Ticket', 'time_spent')).toBe('hours');
    expect(unitOf(model, 'Ticket', 'title')).toBeNull();
    expect([withUnit('1.5', 1.5, 'hours'), withUnit('1', 1, 'hours'), withUnit('3', 3, null)]).toEqual([
      '1.5 hours',
      '1 hour',
      '3',
    ]);
  });
});
