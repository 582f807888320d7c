import type { AccountEvent } from '../api/people.ts';

const list = (roles: readonly string[] | undefined) => (roles && roles.length > 0 ? roles.join(', ') : 'no roles');

/** What happened to an account, in a sentence for its history: "Roles changed from member to editor". */
export function eventTitle(event: AccountEvent): string {
  switch (event.kind) {
    case 'created': {
      const how =
        event.how === 'sign-up'
          ? 'Signed up'
          : event.how === 'invitation'
            ? 'Joined by invitation'
            : event.how === 'single-sign-on'
              ? 'Joined by single sign-on'
              : 'Account added';
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
    case 'two-factor-enabled':
      return 'Two-factor sign-in turned on';
    case 'two-factor-disabled':
      return 'Two-factor sign-in turned off';
    case 'two-factor-reset':
      return 'Two-factor sign-in reset';
    case 'passkey-added':
      return 'Passkey added';
    case 'passkey-removed':
      return 'Passkey removed';
    case 'recovery-code-used':
      return `Signed in with a recovery code (${event.left ?? 0} left)`;
    default:
      // A kind a newer server records: shown as it is called.
      return String((event as { kind: string }).kind);
  }
}
