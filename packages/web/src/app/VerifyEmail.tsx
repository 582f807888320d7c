import { Alert, Anchor, Button, Paper, Stack, Text, Title } from '@mantine/core';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { ApiError } from '../api/client.ts';
import { useVerifyEmail } from '../api/joining.ts';
import { DeadLink, useNewPassword } from './new-password.tsx';
import { MIN_PASSWORD_LENGTH } from './passwords.ts';

/**
 * The page a sign-up's link opens (`/verify-email?token=…`): the holder of the mail chooses the
 * password here (never whoever typed the address at sign-up). Confirming takes a click, not the
 * opening of the page: mail scanners that open links must not make accounts. Confirmed, the
 * person is signed in and taken to the app's home.
 */
export function VerifyEmail() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const verify = useVerifyEmail();
  const navigate = useNavigate();
  const problem = (verify.error as ApiError | null)?.problem;
  const serverPassword = problem?.errors?.find((e) => e.field === 'password')?.message;
  const newPassword = useNewPassword('Password', serverPassword);

  if (token === '' || problem?.code === 'VERIFY_LINK_INVALID') {
    return (
      <DeadLink
        title="This link does not work"
        why={problem?.detail ?? 'The link has no token: open the whole link from the mail, or sign up again.'}
      >
        <Button component={Link} to="/sign-up">
          Sign up again
        </Button>
        <Anchor component={Link} to="/sign-in" size="sm">
          Back to sign in
        </Anchor>
      </DeadLink>
    );
  }

  return (
    <Paper maw={460} mx="auto" mt="xl" p="xl" withBorder>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (!newPassword.check()) return;
          verify.mutate(
            { token, password: newPassword.password },
            { onSuccess: () => navigate('/', { replace: true }) },
          );
        }}
      >
        <Stack>
          <Title order={1} size="h3">
            Confirm your email
          </Title>
          <Text>
            Choose a password of at least {MIN_PASSWORD_LENGTH} characters to finish signing up: your account is made,
            and you are signed in.
          </Text>
          {problem && serverPassword === undefined && (
            <Alert color="red" role="alert">
              {problem.detail}
            </Alert>
          )}
          {newPassword.fields}
          <Button type="submit" loading={verify.isPending}>
            Confirm and sign in
          </Button>
        </Stack>
      </form>
    </Paper>
  );
}
