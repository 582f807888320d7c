import { describe, expect, it } from 'vitest';
import type { AccountEvent } from '../api/people.ts';
import { eventTitle } from './events.ts';

const at = '2026-11-25T09:00:00.000Z';
const event = (fields: Partial<AccountEvent> & Pick<AccountEvent, 'kind'>): AccountEvent => ({
  id: '0190f3c4-7a2b-7c3d-8e4f-5a6b7c8d9e0f',
  at,
  by: null,
  ...fields,
});

describe('an account history entry, in words', () => {
  it('says how the account was made and with which roles', () => {
    expect(eventTitle(event({ kind: 'created', how: 'terminal', roles: ['staff'] }))).toBe('Account added, with staff');
    expect(eventTitle(event({ kind: 'created', how: 'sign-up', roles: ['member'] }))).toBe('Signed up, with member');
    expect(eventTitle(event({ kind: 'created', how: 'invitation', roles: [] }))).toBe(
      'Joined by invitation, with no roles',
    );
  });

  it('says what roles changed from and to, and the other changes plainly', () => {
    expect(eventTitle(event({ kind: 'roles-changed', from: ['member'], to: ['member', 'editor'] }))).toBe(
      'Roles changed from member to member, editor',
    );
    expect(eventTitle(event({ kind: 'roles-changed', from: ['editor'], to: [] }))).toBe(
      'Roles changed from editor to no roles',
    );
    expect(eventTitle(event({ kind: 'deactivated' }))).toBe('Deactivated');
    expect(eventTitle(event({ kind: 'reactivated' }))).toBe('Reactivated');
    expect(eventTitle(event({ kind: 'password-reset', how: 'email' }))).toBe('Password reset by email');
    expect(eventTitle(event({ kind: 'two-factor-enabled' }))).toBe('Two-factor sign-in turned on');
    expect(eventTitle(event({ kind: 'two-factor-reset' }))).toBe('Two-factor sign-in reset');
    expect(eventTitle(event({ kind: 'recovery-code-used', left: 9 }))).toBe('Signed in with a recovery code (9 left)');
  });
});
