import { Alert, Anchor, Button, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useLocation } from 'react-router';
import type { ApiError } from '../api/client.ts';
import { useDevMailer, useDevMode } from '../api/dev.ts';
import { useRequestPasswordReset } from '../api/session.ts';

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * Asks for a link to choose a new password. The server answers the same whether or not an
 * account has the email, so the page says what will happen if one has, never whether one has.
 */
export function ForgotPassword() {
  const location = useLocation();
  const given = (location.state as { email?: unknown } | null)?.email;
  const [email, setEmail] = useState(typeof given === 'string' ? given : '');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const request = useRequestPasswordReset();
  const problem = (request.error as ApiError | null)?.problem;
  const devMode = useDevMode() === true;
  const outbox = useDevMailer(devMode && sentTo !== null).data === 'outbox';

  if (sentTo !== null) {
    return (
      <Paper maw={420} mx="auto" mt="xl" p="xl" withBorder>
        <Stack>
          <Title order={1} size="h3">
            Check your email
          </Title>
          <Text role="status">
            If an account has the email address <strong>{sentTo}</strong>, a link to choose a new password is on its way
            to it. The link works once, for a limited time.
          </Text>
          {outbox ? (
            <Alert color="yellow" title="Development mode">
              Mails are not sent: the link is printed in the terminal running ninepoint dev, and kept at{' '}
              <Anchor href="/api/dev/outbox">/api/dev/outbox</Anchor>.
            </Alert>
          ) : (
            <Text size="sm" c="dimmed">
              No mail after a few minutes? Look in the spam folder, or check the address and ask again.
            </Text>
          )}
          <Button
            variant="light"
            onClick={() => {
              request.reset();
              setSentTo(null);
            }}
          >
            Ask again
          </Button>
          <Anchor component={Link} to="/sign-in" size="sm">
            Back to sign in
          </Anchor>
        </Stack>
      </Paper>
    );
  }

  return (
    <Paper maw={420} mx="auto" mt="xl" p="xl" withBorder>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const trimmed = email.trim();
          const wrong =
            trimmed === ''
              ? 'Enter the email address you sign in with.'
              : EMAIL.test(trimmed)
                ? null
                : 'Enter an email address, such as ada@example.org.';
          setFieldError(wrong);
          if (wrong) return;
          request.mutate(trimmed, {
            onSuccess: () => setSentTo(trimmed),
            onError: (error) => {
              if ((error as ApiError).problem?.code === 'INVALID_PAYLOAD') {
                setFieldError('Enter an email address, such as ada@example.org.');
              }
            },
          });
        }}
      >
        <Stack>
          <Title order={1} size="h3">
            Forgot your password?
          </Title>
          <Text size="sm">
            Enter the email address you sign in with: we will send it a link to choose a new password.
          </Text>
          {problem && problem.code !== 'INVALID_PAYLOAD' && (
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
            error={fieldError}
            onChange={(e) => {
              setEmail(e.currentTarget.value);
              setFieldError(null);
            }}
          />
          <Button type="submit" loading={request.isPending}>
            Send the link
          </Button>
          <Anchor component={Link} to="/sign-in" size="sm">
            Back to sign in
          </Anchor>
        </Stack>
      </form>
    </Paper>
  );
}
