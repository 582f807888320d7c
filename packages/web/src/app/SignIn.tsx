import { Alert, Anchor, Button, Group, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import type { ApiError } from '../api/client.ts';
import { useMe, useSignIn } from '../api/session.ts';
import { DevSignIn } from '../studio/DevSignIn.tsx';
import { PasskeySignIn } from './Passkeys.tsx';
import { SecondStep } from './SecondStep.tsx';
import { SingleSignOn, SingleSignOnRefusal } from './SingleSignOn.tsx';

/**
 * Sign-in with email and password; on success, back to where the user was going. After a
 * password reset (`ResetPassword`) it says so, with the account's email filled in.
 */
export function SignIn() {
  const location = useLocation();
  const state = location.state as { passwordReset?: unknown; email?: unknown } | null;
  const afterReset = state?.passwordReset === true;
  const [email, setEmail] = useState(typeof state?.email === 'string' ? state.email : '');
  const [password, setPassword] = useState('');
  const signIn = useSignIn();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = params.get('next');
  // Only a path of this app: never an open redirect.
  const target = next?.startsWith('/') && !next.startsWith('//') ? next : '/';
  const problem = (signIn.error as ApiError | null)?.problem;
  const mayJoin = (useMe().data?.signUp ?? []).length > 0;
  // After a right password, for an account with two-factor sign-in on: the code, on this page.
  // Single sign-on sends an account with two-factor sign-in on here (`?step=two-factor`) for its code.
  const [secondStep, setSecondStep] = useState(params.get('step') === 'two-factor');
  const [restarted, setRestarted] = useState<string | null>(null);
  if (secondStep) {
    return (
      <Paper maw={420} mx="auto" mt="xl" p="xl" withBorder>
        <SecondStep
          onSignedIn={() => navigate(target, { replace: true })}
          onRestart={(why) => {
            setSecondStep(false);
            setPassword('');
            signIn.reset();
            setRestarted(why);
          }}
        />
      </Paper>
    );
  }
  return (
    <Paper maw={420} mx="auto" mt="xl" p="xl" withBorder>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setRestarted(null);
          signIn.mutate(
            { email, password },
            {
              onSuccess: ({ body }) => {
                if ('secondStep' in body) setSecondStep(true);
                else navigate(target, { replace: true });
              },
            },
          );
        }}
      >
        <Stack>
          <Title order={1} size="h3">
            Sign in
          </Title>
          {afterReset && !problem && (
            <Alert color="green" role="status">
              Your password is changed, and your account was signed out everywhere. Sign in with the new password.
            </Alert>
          )}
          {!problem && <SingleSignOnRefusal reason={params.get('sso')} />}
          {!problem && restarted && (
            <Alert color="yellow" role="alert">
              {restarted}
            </Alert>
          )}
          {problem && (
            <Alert color="red" role="alert">
              {problem.detail}
            </Alert>
          )}
          <TextInput
            label="Email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
          />
          <PasswordInput
            label="Password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
          />
          <Button type="submit" loading={signIn.isPending}>
            Sign in
          </Button>
          <Group justify={mayJoin ? 'space-between' : 'flex-end'}>
            {mayJoin && (
              <Anchor component={Link} to="/sign-up" size="sm">
                Create an account
              </Anchor>
            )}
            <Anchor component={Link} to="/forgot-password" state={{ email }} size="sm">
              Forgot your password?
            </Anchor>
          </Group>
        </Stack>
      </form>
      <PasskeySignIn onSignedIn={() => navigate(target, { replace: true })} />
      <SingleSignOn next={target} />
      <DevSignIn onSignedIn={() => navigate(target, { replace: true })} />
    </Paper>
  );
}
