import { type Model, rolesDeclared } from './model.ts';

/**
 * What a user may do with people's accounts: invite (into `inviteRoles`), and manage everyone's
 * accounts (list them with emails and roles, change roles, deactivate, read their history).
 */
export interface PeopleAccess {
  mayInvite: boolean;
  inviteRoles: string[];
  manage: boolean;
}

/**
 * What a user holding `roles` may do with people's accounts, the union over their roles. When
 * point 6 declares no roles, every signed-in user may do everything, people included (there are
 * no roles to give).
 */
export function peopleAccess(model: Pick<Model, 'roles' | 'permissions'>, roles: readonly string[]): PeopleAccess {
  if (!rolesDeclared(model)) return { mayInvite: true, inviteRoles: [], manage: true };
  const all = model.roles.map((r) => r.name);
  const held = model.roles.filter((r) => roles.includes(r.name));
  const manage = held.some((r) => r.people.manage);
  const any = manage || held.some((r) => r.people.invite === 'any');
  const named = new Set(held.flatMap((r) => (r.people.invite === 'any' ? [] : r.people.invite)));
  const inviteRoles = any ? all : all.filter((name) => named.has(name));
  return { mayInvite: inviteRoles.length > 0, inviteRoles, manage };
}

/** The roles people may sign up to themselves, each with the email domains it accepts ([] = any). */
export function signUpRoles(model: Pick<Model, 'roles'>): { role: string; domains: string[] }[] {
  return model.roles.flatMap((r) => (r.joins.kind === 'sign-up' ? [{ role: r.name, domains: r.joins.domains }] : []));
}

/** Whether a user holding `roles` must sign in with a second factor (point 6's `sign in` column). */
export function requiresTwoFactor(model: Pick<Model, 'roles'>, roles: readonly string[]): boolean {
  return model.roles.some((r) => r.twoFactor && roles.includes(r.name));
}
