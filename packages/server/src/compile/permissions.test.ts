import { describe, expect, it } from 'vitest';
import { LENDING_DESK, modelOf } from '../../test/helpers.ts';
import { compilePermissions, SYSTEM_ROLE, VISITOR } from './permissions.ts';

const loans = compilePermissions(modelOf(LENDING_DESK)).get('Loan');

describe('an entity’s grants', () => {
  it('are worked out once per roles array and operation, and stay each role’s own', () => {
    if (!loans) throw new Error('no Loan permissions');
    const memberRoles = ['member'];
    const member = { userId: 'u1', roles: memberRoles };
    const read = loans.grants(member, 'read');
    expect(read).toHaveLength(1);
    expect(read[0]?.paths).not.toBeNull();
    // Another call with the same roles (the same session's next call) gets the same frozen answer.
    expect(loans.grants({ userId: 'u1', roles: memberRoles }, 'read')).toBe(read);
    expect(Object.isFrozen(read) && Object.isFrozen(read[0])).toBe(true);
    expect(loans.grants(member, 'update')).toEqual([]);
    // Staff read every loan; a member with the same user id but other roles is asked afresh.
    expect(loans.grants({ userId: 'u1', roles: ['staff'] }, 'read')).toEqual([{ paths: null, states: null }]);
    expect(loans.grants({ userId: 'u1', roles: ['member'] }, 'read')).toEqual(read);
    // A visitor's roles say nothing: no grant, however the actor is built.
    expect(loans.grants(VISITOR, 'read')).toEqual([]);
    expect(loans.grants({ userId: null, roles: ['staff'] }, 'read')).toEqual([]);
    expect(loans.grants({ userId: 's', roles: [SYSTEM_ROLE] }, 'delete')).toEqual([{ paths: null, states: null }]);
  });
});
