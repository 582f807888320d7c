import { Alert, Anchor, Button, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { ApiError } from '../api/client.ts';
import { useConfirmPasswordReset } from '../api/session.ts';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './passwords.ts';

/**
 * The page a reset link opens (`/reset-password?token=…`): a new password, typed twice, then
 * sign-in with it. A link that was used, expired or never existed says so and offers a new one.
 */
export function ResetPassword() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [errors, setErrors] = useState<{ password?: string; again?: string }>({});
  const confirm = useConfirmPasswordReset();
  const navigate = useNavigate();
  const problem = (confirm.error as ApiError | null)?.problem;

  if (token === '' || problem?.code === 'RESET_LINK_INVALID') {
    return (
      <Paper maw={420} mx="auto" mt="xl" p="xl" withBorder>
        <Stack>
          <Title order={1} size="h3">
            This link does not work
          </Title>
          <Alert color="red" role="alert">
            {problem?.detail ?? 'The link has no token: open the whole link from the mail, or ask for a new one.'}
          </Alert>
          <Button component={Link} to="/forgot-password">
            Ask for a new link
          </Button>
          <Anchor component={Link} to="/sign-in" size="sm">
            Back to sign in
          </Anchor>
        </Stack>
      </Paper>
    );
  }

  const serverError = problem?.errors?.find((e) => e.field === 'password')?.message;
  const passwordError = errors.password ?? (serverError ? sentence(serverError) : undefined);
  return (
    <Paper maw={420} mx="auto" mt="xl" p="xl" withBorder>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const found: { password?: string; again?: string } = {};
          if (password.length < MIN_PASSWORD_LENGTH) found.password = `Use at least ${MIN_PASSWORD_LENGTH} characters.`;
          else if (password.length > MAX_PASSWORD_LENGTH)
            found.password = `Use at most ${MAX_PASSWORD_LENGTH} characters.`;
          else if (again !== password) found.again = 'Type the same password again.';
          setErrors(found);
          if (found.password || found.again) return;
          confirm.mutate(
            { token, password },
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
          <PasswordInput
            label="New password"
            autoComplete="new-password"
            required
            value={password}
            error={passwordError}
            // Mantine marks its inner input only with data-invalid: screen readers need aria-invalid.
            aria-invalid={passwordError !== undefined}
            onChange={(e) => {
              setPassword(e.currentTarget.value);
              setErrors((current) => ({ ...current, password: undefined }));
            }}
          />
          <PasswordInput
            label="New password again"
            autoComplete="new-password"
            required
            value={again}
            error={errors.again}
            aria-invalid={errors.again !== undefined}
            onChange={(e) => {
              setAgain(e.currentTarget.value);
              setErrors((current) => ({ ...current, again: undefined }));
            }}
          />
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
