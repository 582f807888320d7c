import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { explainModel } from './explain.ts';
import { peopleAccess, requiresTwoFactor, signUpRoles } from './people-access.ts';

const BASE = readFileSync(new URL('../test/fixtures/docs-base.md', import.meta.url), 'utf8');

/** The docs' base spec with this roles table as point 6. */
function withRoles(table: string) {
  const source = BASE.replace(
    /## 6\. Roles and permissions\n[\s\S]*?(?=\n## 7\.)/,
    `## 6. Roles and permissions\n\n${table}\n`,
  );
  expect(source).not.toBe(BASE);
  return checkSpec(source);
}

const CLINIC = `| role    | Book | Loan     | joins                                | people                  | meaning |
| ------- | ---- | -------- | ------------------------------------ | ----------------------- | ------- |
| admin   | all  | all      | -                                    | manage                  | runs it |
| staff   | read | all      | sign up (@Clinic.example, example.org) | invite (member)         |         |
| member  | read | read own | sign up                              | -                       |         |
| guest   | read | -        | invitation                           | invite                  |         |`;

describe('who joins and who manages people (point 6)', () => {
  it('reads sign up, domains, invitation, invite and manage from the roles table', () => {
    const { ok, model, diagnostics } = withRoles(CLINIC);
    expect(diagnostics).toEqual([]);
    expect(ok).toBe(true);
    const role = (name: string) => model.roles.find((r) => r.name === name);
    expect(role('admin')).toMatchObject({ joins: { kind: 'invitation' }, people: { invite: 'any', manage: true } });
    expect(role('staff')).toMatchObject({
      joins: { kind: 'sign-up', domains: ['clinic.example', 'example.org'] },
      people: { invite: ['member'], manage: false },
    });
    expect(role('member')).toMatchObject({ joins: { kind: 'sign-up', domains: [] }, people: { invite: [] } });
    expect(role('guest')).toMatchObject({ joins: { kind: 'invitation' }, people: { invite: 'any', manage: false } });
    // The columns are not entities: no permission is read from them.
    expect(model.permissions.every((p) => p.entity === 'Book' || p.entity === 'Loan')).toBe(true);
    expect(signUpRoles(model)).toEqual([
      { role: 'staff', domains: ['clinic.example', 'example.org'] },
      { role: 'member', domains: [] },
    ]);
  });

  it('unions what a user’s roles allow, and lets everyone do everything without roles', () => {
    const { model } = withRoles(CLINIC);
    expect(peopleAccess(model, ['staff'])).toEqual({ mayInvite: true, inviteRoles: ['member'], manage: false });
    expect(peopleAccess(model, ['member'])).toEqual({ mayInvite: false, inviteRoles: [], manage: false });
    expect(peopleAccess(model, ['admin'])).toEqual({
      mayInvite: true,
      inviteRoles: ['admin', 'staff', 'member', 'guest'],
      manage: true,
    });
    expect(peopleAccess(model, ['staff', 'guest']).inviteRoles).toEqual(['admin', 'staff', 'member', 'guest']);
    const blank = checkSpec('# Specification: Nothing\n').model;
    expect(peopleAccess(blank, [])).toEqual({ mayInvite: true, inviteRoles: [], manage: true });
    expect(signUpRoles(blank)).toEqual([]);
  });

  it('explains how people join and what a role may do with them', () => {
    const text = explainModel(withRoles(CLINIC).model);
    expect(text).toContain(
      "admin may create, read, update and delete Book; create, read, update and delete Loan; manages people's accounts and roles",
    );
    expect(text).toContain(
      'people may sign up to it (emails at clinic.example or example.org only); may invite people as member',
    );
  });

  it('reports what is not a way to join or a thing to do with people, with hints', () => {
    const { ok, diagnostics } = withRoles(`| role   | Book | Loan | joins              | people                     |
| ------ | ---- | ---- | ------------------ | -------------------------- |
| staff  | all  | all  | signup (not a dom) | invite (membr), promote    |
| member | read | -    | by application     | invite ()                  |
| anyone | read | -    | sign up            | manage                     |`);
    expect(ok).toBe(false);
    expect(diagnostics.map((d) => [d.code, d.message, d.expected])).toEqual([
      ['invalid-joins', '"not a dom" is not an email domain.', []],
      ['unknown-role', 'The people cell of staff names role "membr", which point 6 does not define.', ['member']],
      ['invalid-joins', '"by application" does not say how people get the role member.', []],
      ['invalid-people', '"invite ()" names no role to invite into.', []],
      ['invalid-joins', 'Signed-out visitors (anyone) are not a role people join.', []],
      ['invalid-people', 'Signed-out visitors (anyone) cannot invite or manage people.', []],
    ]);
    expect(diagnostics.every((d) => d.hint !== undefined && d.hint !== '')).toBe(true);
  });

  it('merges a role described in two tables', () => {
    const { model, diagnostics } = withRoles(`| role   | Book | Loan | joins                 |
| ------ | ---- | ---- | --------------------- |
| member | read | -    | sign up (a.example)   |

| role   | people          | joins               |
| ------ | --------------- | ------------------- |
| member | invite (member) | sign up (b.example) |
| staff  | manage          |                     |`);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(model.roles.find((r) => r.name === 'member')).toMatchObject({
      joins: { kind: 'sign-up', domains: ['a.example', 'b.example'] },
      people: { invite: ['member'], manage: false },
    });
  });
});

describe('who must sign in with a second factor (point 6, sign in column)', () => {
  it('reads requires two-factor per role, and requiresTwoFactor holds for any role that says so', () => {
    const { ok, model, diagnostics } = withRoles(`| role   | Book | Loan     | people | sign in             |
| ------ | ---- | -------- | ------ | ------------------- |
| admin  | all  | all      | manage | requires two-factor |
| staff  | read | all      | -      | 2FA                 |
| member | read | read own | -      | -                   |
| guest  | read | -        | -      | password            |`);
    expect(diagnostics).toEqual([]);
    expect(ok).toBe(true);
    const twoFactor = Object.fromEntries(model.roles.map((r) => [r.name, r.twoFactor]));
    expect(twoFactor).toEqual({ admin: true, staff: true, member: false, guest: false });
    expect(model.permissions.every((p) => p.entity === 'Book' || p.entity === 'Loan')).toBe(true);
    expect(requiresTwoFactor(model, ['member', 'staff'])).toBe(true);
    expect(requiresTwoFactor(model, ['member', 'guest'])).toBe(false);
    expect(explainModel(model)).toContain(
      'admin may create, read, update and delete Book; create, read, update and delete Loan; ' +
        "manages people's accounts and roles; must sign in with two-factor (nothing else until it is set up)",
    );
  });

  it('refuses words it does not know, and the cell on the anyone row', () => {
    const { ok, diagnostics } = withRoles(`| role   | Book | Loan | sign in             |
| ------ | ---- | ---- | ------------------- |
| admin  | all  | all  | requires a token    |
| anyone | read | -    | requires two-factor |`);
    expect(ok).toBe(false);
    const found = diagnostics.filter((d) => d.code === 'invalid-sign-in');
    expect(found.map((d) => d.message)).toEqual([
      '"requires a token" does not say how holders of admin sign in.',
      'Signed-out visitors (anyone) do not sign in.',
    ]);
    expect(found[0]?.hint).toContain('requires two-factor');
  });
});
