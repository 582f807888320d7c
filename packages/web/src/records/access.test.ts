import { checkSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import type { EntityAccess, Me } from '../api/session.ts';
import { pathLabel } from '../app/screens.ts';
import { covers, movesOf } from './access.ts';
import type { ApiRecord } from './calls.ts';

const SPEC = `# Specification: Claims

## 1. What the product does and for whom

Employees file claims and submit them; managers approve them.

## 2. Screens and routes

Not shown.

## 3. Entities and their fields

### Claim

| field  | type    | rules    |
| ------ | ------- | -------- |
| amount | integer | required |

## 4. States and transitions

### Claim

| transition | from      | to        | who     |
| ---------- | --------- | --------- | ------- |
| file       | (new)     | draft     |         |
| submit     | draft     | submitted |         |
| recall     | submitted | draft     |         |
| approve    | submitted | approved  | manager |

## 5. Validation rules

Not shown.

## 6. Roles and permissions

| role     | Claim                                         |
| -------- | --------------------------------------------- |
| employee | create, read own, update own while draft      |
| manager  | read, update while submitted                  |

## 7. The calls it makes

Not shown.

## 8. The error catalogue

Not shown.

## 9. Business constants and limits

Not shown.
`;

const checked = checkSpec(SPEC);
const model = checked.model;
const ANA = '01900000-0000-7000-8000-00000000000a';

/** What `GET /api/auth/me` answers an employee (the server's `accessSummary`). */
const employee: Me = {
  user: { id: ANA, email: 'ana@example.test', name: 'Ana', roles: ['employee'], createdAt: '2026-01-01T00:00:00.000Z' },
  people: { mayInvite: false, inviteRoles: [], manage: false },
  signUp: [],
  singleSignOn: null,
  twoFactor: null,
  access: {
    Claim: {
      create: true,
      read: 'own',
      update: 'own',
      delete: 'none',
      transitions: { file: 'all', submit: 'own', recall: 'own', approve: 'none' },
      createFields: null,
      updateFields: null,
      updateStates: ['draft'],
      deleteStates: null,
      ownedVia: false,
      readFields: null,
    } satisfies EntityAccess,
  },
};

const claim = (state: string, by = ANA): ApiRecord => ({
  id: '01900000-0000-7000-8000-000000000c1a',
  created_at: '2026-11-01T09:00:00.000Z',
  updated_at: '2026-11-01T09:00:00.000Z',
  created_by: by,
  state,
  amount: 40,
});

const moves = (me: Me, record: ApiRecord) => movesOf(model, me, 'Claim', record).map((m) => m.transition.name);

describe('what a user may do with a record', () => {
  it('checks the spec it tests', () => {
    expect(checked.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('offers a transition with an empty who only in the states the update grant holds in (`update own while draft`)', () => {
    expect(moves(employee, claim('draft'))).toEqual(['submit']);
    // Recalling a submitted claim needs update access, which ends once it is submitted.
    expect(moves(employee, claim('submitted'))).toEqual([]);
  });

  it('offers nothing on a record that is not the user’s own', () => {
    expect(moves(employee, claim('draft', '01900000-0000-7000-8000-00000000000b'))).toEqual([]);
  });

  it('covers a record by its access, ownership and state', () => {
    expect(covers('own', true, ['draft'], 'draft')).toBe(true);
    expect(covers('own', true, ['draft'], 'submitted')).toBe(false);
    expect(covers('own', false, null, 'draft')).toBe(false);
    expect(covers('all', false, null, 'submitted')).toBe(true);
  });
});

describe('a screen filter in words', () => {
  it('reads a field as its label and a chain through references as a possessive', () => {
    expect(pathLabel('borrower')).toBe('Borrower');
    expect(pathLabel('doctor.account')).toBe('Doctor’s account');
    expect(pathLabel('talk.speaker.home_city')).toBe('Talk’s speaker’s home city');
  });
});
