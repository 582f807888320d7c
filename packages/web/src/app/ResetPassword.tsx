import { Alert, Anchor, Button, Paper, Stack, Text, Title } from '@mantine/core';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { ApiError } from '../api/client.ts';
import { useConfirmPasswordReset } from '../api/session.ts';
import { DeadLink, useNewPassword } from './new-password.tsx';
import { MIN_PASSWORD_LENGTH } from './passwords.ts';

/**
 * The page a reset link opens (`/reset-password?token=…`): a new password, typed twice, then
 * sign-in with it. A link that was used, expired or never existed says so and offers a new one.
 */
export function ResetPassword() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const confirm = useConfirmPasswordReset();
  const navigate = useNavigate();
  const problem = (confirm.error as ApiError | null)?.problem;
  const serverError = problem?.errors?.find((e) => e.field === 'password')?.message;
  const newPassword = useNewPassword('New password', serverError ? sentence(serverError) : undefined);

  if (token === '' || problem?.code === 'RESET_LINK_INVALID') {
    return (
      <DeadLink
        title="This link does not work"
        why={problem?.detail ?? 'The link has no token: open the whole link from the mail, or ask for a new one.'}
      >
        <Button component={Link} to="/forgot-password">
          Ask for a new link
        </Button>
        <Anchor component={Link} to="/sign-in" size="sm">
          Back to sign in
        </Anchor>
      </DeadLink>
    );
  }

  return (
    <Paper maw={420} mx="auto" mt="xl" p="xl" withBorder>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (!newPassword.check()) return;
          confirm.mutate(
            { token, password: newPassword.password },
            {
              onSuccess: ({ body }) =>
                navigate('/sign-in', { replace: true, state: { passwordReset: true, email: body.email } }),
            },
          );
        }}
      >
        <Stack>
          <Title order={1} size="h3">
            Choose a new password
          </Title>
          <Text size="sm">
            At least {MIN_PASSWORD_LENGTH} characters. Setting it signs your account out everywhere; then sign in with
            it.
          </Text>
          {problem && !serverError && (
            <Alert color="red" role="alert">
              {problem.detail}
            </Alert>
          )}
          {newPassword.fields}
          <Button type="submit" loading={confirm.isPending}>
            Set the password
          </Button>
        </Stack>
      </form>
    </Paper>
  );
}

/** The server's "password must be …" as a sentence. */
function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
