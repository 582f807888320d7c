import { Alert, Button, Divider } from '@mantine/core';
import { useMe } from '../api/session.ts';

/** What the sign-in page says when the provider's sign-in did not sign anyone in (`?sso=<reason>`). */
const REFUSALS: Record<string, string> = {
  cancelled: 'Signing in with single sign-on was cancelled.',
  expired: 'That single sign-on took too long or was already used. Please try again.',
  failed: 'Single sign-on did not work this time. Please try again.',
  unavailable:
    'The single sign-on provider cannot be reached right now. Try again later, or sign in with your password.',
  unverified: 'Your single sign-on provider has not confirmed your email address, so it cannot sign you in here.',
  'no-account': 'There is no account for your email address here. Ask someone who manages this app for an invitation.',
  deactivated: 'This account is deactivated. Ask an administrator to reactivate it.',
};

/** Why the last single sign-on did not sign anyone in, as an alert; nothing without one. */
export function SingleSignOnRefusal({ reason }: { reason: string | null }) {
  const text = reason === null ? undefined : REFUSALS[reason];
  if (text === undefined) return null;
  return (
    <Alert color="red" role="alert">
      {text}
    </Alert>
  );
}

/**
 * "Sign in with …" for a server configured with an OpenID Connect provider: a plain link, since
 * the sign-in leaves the app for the provider's pages and comes back to `next`.
 */
export function SingleSignOn({ next }: { next: string }) {
  const me = useMe();
  const sso = me.data?.singleSignOn;
  if (!sso) return null;
  return (
    <>
      <Divider label="or" labelPosition="center" my="md" />
      <Button component="a" href={`${sso.start}?next=${encodeURIComponent(next)}`} variant="default" fullWidth>
        Sign in with {sso.name}
      </Button>
    </>
  );
}
