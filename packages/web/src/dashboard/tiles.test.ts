import { checkSpec, type Model } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import type { EntityAccess, Me } from '../api/session.ts';
import { groupLabel, shownTiles, tileTitle } from './tiles.ts';

const SPEC = `# Specification: Desk

## 1. What the product does and for whom

Tickets.

## 2. Screens and routes

| route | screen | shows | who |
|---|---|---|---|
| /overview | dashboard | Ticket: count by state, sum of time_spent by category; Note: count | |

## 3. Entities and their fields

### Ticket

| field | type | rules |
|---|---|---|
| title | text | required |
| category | choice of hardware, software | |
| time_spent | decimal | |

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
const tiles = model.screens[0]?.tiles ?? [];
const access = (read: EntityAccess['read']): EntityAccess => ({
  create: false,
  read,
  update: 'none',
  delete: 'none',
  transitions: {},
  createFields: null,
  updateFields: null,
  readFields: null,
  updateStates: null,
  deleteStates: null,
  ownedVia: false,
});

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
