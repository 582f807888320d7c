import type { AccountEvent } from '../api/people.ts';

const list = (roles: readonly string[] | undefined) => (roles && roles.length > 0 ? roles.join(', ') : 'no roles');

/** What happened to an account, in a sentence for its history: "Roles changed from member to editor". */
export function eventTitle(event: AccountEvent): string {
  switch (event.kind) {
    case 'created': {
      const how =
        event.how === 'sign-up' ? 'Signed up' : event.how === 'invitation' ? 'Joined by invitation' : 'Account added';
      return `${how}, with ${list(event.roles)}`;
    }
    case 'roles-changed':
      return `Roles changed from ${list(event.from)} to ${list(event.to)}`;
    case 'deactivated':
      return 'Deactivated';
    case 'reactivated':
      return 'Reactivated';
    case 'password-reset':
      return event.how === 'email' ? 'Password reset by email' : 'Password set at the terminal';
    default:
      // A kind a newer server records: shown as it is called.
      return String((event as { kind: string }).kind);
  }
}
