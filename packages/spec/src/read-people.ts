import type { Joining, PeopleGrant } from './model.ts';
import { ANYONE } from './model.ts';
import { plain } from './names.ts';
import { type Cell, cellPart, splitList } from './parse-tables.ts';
import type { Scope } from './scope.ts';
import { suggest } from './suggest.ts';

/** Headers of the roles table's column saying how people get a role. */
export const JOINS_HEADERS: readonly string[] = ['joins', 'join', 'joining'];
/** Headers of the roles table's column saying what a role may do with people's accounts. */
export const PEOPLE_HEADERS: readonly string[] = ['people', 'users', 'accounts'];

/** Headers of the roles table's column saying how holders of a role sign in. */
export const SIGN_IN_HEADERS: readonly string[] = ['sign in', 'sign-in', 'signs in', 'sign-ins'];

/** Nobody joins by themselves and nobody invites: the default of a role without those cells. */
export const BY_INVITATION: Joining = Object.freeze({ kind: 'invitation' });
export const NO_PEOPLE_GRANT: PeopleGrant = Object.freeze({ invite: [], manage: false });

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/;
const NOTHING = /^(-|—|–|none|no)$/i;

/**
 * A `joins` cell: `sign up`, `sign up (clinic.example, example.org)` (an `@` before a domain is
 * allowed), `invitation`, or `-`/empty. Null, reported, when it is none of these.
 */
export function readJoins(cell: Cell, role: string, scope: Scope): Joining | null {
  const text = plain(cell.text).trim();
  if (text === '' || NOTHING.test(text) || /^(by\s+)?invitation$/i.test(text)) return BY_INVITATION;
  const signUp = /^sign[\s-]?up\b\s*(?:\((.*)\))?\s*$/i.exec(text);
  if (!signUp) {
    scope.bag.report('invalid-joins', cell.span, `"${text}" does not say how people get the role ${role}.`, {
      expected: suggest(text.toLowerCase(), ['sign up', 'invitation']),
      hint: 'Write "sign up" (people create their own account), "sign up (example.org)" (only emails at that domain), or "invitation" (only an invitation gives the role).',
    });
    return null;
  }
  if (role === ANYONE) {
    scope.bag.report('invalid-joins', cell.span, 'Signed-out visitors (anyone) are not a role people join.', {
      hint: 'Leave the joins cell of the anyone row empty; write "sign up" on the role people take when they join.',
    });
    return null;
  }
  const list = signUp[1];
  if (list === undefined) return { kind: 'sign-up', domains: [] };
  const open = cell.text.indexOf('(');
  const inner = cellPart(cell, open + 1, Math.max(0, cell.text.lastIndexOf(')') - open - 1));
  const domains: string[] = [];
  for (const item of splitList(inner)) {
    const domain = plain(item.text).trim().replace(/^@/, '').toLowerCase();
    if (!DOMAIN.test(domain)) {
      scope.bag.report('invalid-joins', item.span, `"${item.text}" is not an email domain.`, {
        hint: 'Name domains as in email addresses, e.g. "sign up (clinic.example, example.org)".',
      });
      return null;
    }
    if (!domains.includes(domain)) domains.push(domain);
  }
  if (domains.length === 0) {
    scope.bag.report('invalid-joins', cell.span, `"${text}" names no domain in its parentheses.`, {
      hint: 'Write "sign up" for any email address, or name the domains: "sign up (example.org)".',
    });
    return null;
  }
  return { kind: 'sign-up', domains };
}

/**
 * A `people` cell: `invite`, `invite (member, staff)`, `manage`, or `-`/empty, several joined by
 * commas. The roles an invitation names are checked against point 6 (call after every role is
 * known). Null, reported, when an item is not understood.
 */
export function readPeople(cell: Cell, role: string, scope: Scope): PeopleGrant | null {
  const text = plain(cell.text).trim();
  if (text === '' || NOTHING.test(text)) return NO_PEOPLE_GRANT;
  if (role === ANYONE) {
    scope.bag.report('invalid-people', cell.span, 'Signed-out visitors (anyone) cannot invite or manage people.', {
      hint: 'Leave the people cell of the anyone row empty, and grant it to a role.',
    });
    return null;
  }
  let invite: string[] | 'any' = [];
  let manage = false;
  for (const item of splitList(cell, ',', { parentheses: true })) {
    const words = plain(item.text).trim();
    if (/^manage$/i.test(words)) {
      manage = true;
      continue;
    }
    const inviting = /^invite\s*(?:\((.*)\))?$/i.exec(words);
    if (!inviting) {
      scope.bag.report('invalid-people', item.span, `"${item.text}" is not something a role may do with people.`, {
        expected: suggest(words.toLowerCase(), ['invite', 'manage']),
        hint: 'Write "invite" (into any role), "invite (member, staff)" (into those roles), "manage" (everyone\'s accounts and roles), or -.',
      });
      return null;
    }
    if (inviting[1] === undefined) {
      invite = 'any';
      continue;
    }
    const open = item.text.indexOf('(');
    const inner = cellPart(item, open + 1, Math.max(0, item.text.lastIndexOf(')') - open - 1));
    const named: string[] = [];
    for (const name of splitList(inner)) {
      const roleCell = { text: plain(name.text).trim(), span: name.span };
      if (roleCell.text === ANYONE) {
        scope.bag.report('invalid-people', name.span, 'Nobody can be invited as anyone: visitors hold no account.', {
          hint: 'Name the roles an invitation gives, e.g. "invite (member)".',
        });
        return null;
      }
      if (!scope.role(roleCell, `The people cell of ${role}`)) return null;
      if (!named.includes(roleCell.text)) named.push(roleCell.text);
    }
    if (named.length === 0) {
      scope.bag.report('invalid-people', item.span, `"${item.text}" names no role to invite into.`, {
        hint: 'Write "invite" for any role, or name the roles: "invite (member)".',
      });
      return null;
    }
    if (invite !== 'any') invite = [...new Set([...invite, ...named])];
  }
  return { invite: manage ? 'any' : invite, manage };
}

/**
 * A `sign in` cell: `requires two-factor` (also `two-factor`, `2fa`, `requires 2fa`): the role's
 * holders must set up a second factor before they may do anything; `password`, `-` or empty: a
 * second factor is each person's own choice. Null, reported, when it is neither, or on `anyone`.
 */
export function readSignIn(cell: Cell, role: string, scope: Scope): boolean | null {
  const text = plain(cell.text).trim();
  if (text === '' || NOTHING.test(text) || /^(a\s+)?password$/i.test(text)) return false;
  const twoFactor = /^(requires?\s+)?(two[\s-]?factor|2fa|totp)(\s+sign[\s-]?in)?$/i.test(text);
  if (!twoFactor) {
    scope.bag.report('invalid-sign-in', cell.span, `"${text}" does not say how holders of ${role} sign in.`, {
      expected: suggest(text.toLowerCase(), ['requires two-factor', 'password']),
      hint: 'Write "requires two-factor" (they must set up a code from an authenticator app before anything else), or "-" (a second factor is their own choice).',
    });
    return null;
  }
  if (role === ANYONE) {
    scope.bag.report('invalid-sign-in', cell.span, 'Signed-out visitors (anyone) do not sign in.', {
      hint: 'Leave the sign in cell of the anyone row empty; write "requires two-factor" on the roles that must use it.',
    });
    return null;
  }
  return true;
}
