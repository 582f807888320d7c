import { Alert, Anchor, Button, Paper, Stack, Text, Title } from '@mantine/core';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { ApiError } from '../api/client.ts';
import { useVerifyEmail } from '../api/joining.ts';

/**
 * The page a sign-up's link opens (`/verify-email?token=…`). Confirming takes a click, not the
 * opening of the page: mail scanners that open links must not make accounts. Confirmed, the
 * person is signed in and taken to the app's home.
 */
export function VerifyEmail() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const verify = useVerifyEmail();
  const navigate = useNavigate();
  const problem = (verify.error as ApiError | null)?.problem;

  if (token === '' || problem?.code === 'VERIFY_LINK_INVALID') {
    return (
      <Paper maw={460} mx="auto" mt="xl" p="xl" withBorder>
        <Stack>
          <Title order={1} size="h3">
            This link does not work
          </Title>
          <Alert color="red" role="alert">
            {problem?.detail ?? 'The link has no token: open the whole link from the mail, or sign up again.'}
          </Alert>
          <Button component={Link} to="/sign-up">
            Sign up again
          </Button>
          <Anchor component={Link} to="/sign-in" size="sm">
            Back to sign in
          </Anchor>
        </Stack>
      </Paper>
    );
  }

  return (
    <Paper maw={460} mx="auto" mt="xl" p="xl" withBorder>
      <Stack>
        <Title order={1} size="h3">
          Confirm your email
        </Title>
        <Text>Confirm the address to finish signing up: your account is made, and you are signed in.</Text>
        {problem && (
          <Alert color="red" role="alert">
            {problem.detail}
          </Alert>
        )}
        <Button
          loading={verify.isPending}
          onClick={() => verify.mutate(token, { onSuccess: () => navigate('/', { replace: true }) })}
        >
          Confirm and sign in
        </Button>
      </Stack>
    </Paper>
  );
}
