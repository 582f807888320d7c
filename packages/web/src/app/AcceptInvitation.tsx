import { Alert, Anchor, Button, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { ApiError } from '../api/client.ts';
import { useAcceptInvitation, useInvitationLookup } from '../api/joining.ts';
import { useModel } from '../api/session.ts';
import { DeadLink, useNewPassword } from './new-password.tsx';
import { Loading } from './pages.tsx';
import { MIN_PASSWORD_LENGTH } from './passwords.ts';

/**
 * The page an invitation's link opens (`/accept-invitation?token=…`): the invitee's name and a
 * password typed twice. Accepted, the account is made with the invitation's roles and signed in.
 */
export function AcceptInvitation() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | undefined>(undefined);
  const accept = useAcceptInvitation();
  const lookup = useInvitationLookup(token);
  const product = useModel().data?.product.name ?? 'the app';
  const navigate = useNavigate();
  const problem = ((accept.error ?? lookup.error) as ApiError | null)?.problem;
  const serverPassword = problem?.errors?.find((e) => e.field === 'password')?.message;
  const newPassword = useNewPassword('Password', serverPassword);

  if (token !== '' && lookup.isPending) return <Loading what="Opening the invitation" />;
  if (token === '' || problem?.code === 'INVITATION_INVALID') {
    return (
      <DeadLink
        title="This invitation does not work"
        why={
          problem?.detail ??
          'The link has no token: open the whole link from the mail, or ask whoever invited you for a new one.'
        }
      >
        <Text size="sm">
          Have an account already?{' '}
          <Anchor component={Link} to="/sign-in">
            Sign in
          </Anchor>
        </Text>
      </DeadLink>
    );
  }

  return (
    <Paper maw={460} mx="auto" mt="xl" p="xl" withBorder>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const named = name.trim() !== '';
          setNameError(named ? undefined : 'Enter your name.');
          if (!newPassword.check() || !named) return;
          accept.mutate(
            { token, name: name.trim(), password: newPassword.password },
            { onSuccess: () => navigate('/', { replace: true }) },
          );
        }}
      >
        <Stack>
          <Title order={1} size="h3">
            Accept the invitation
          </Title>
          {lookup.data && (
            <Text>
              {lookup.data.invitedBy} invites you to {product}
              {lookup.data.roles.length > 0 ? ` as ${lookup.data.roles.join(' and ')}` : ''}. You will sign in with{' '}
              <strong>{lookup.data.email}</strong>.
            </Text>
          )}
          <Text size="sm">
            Choose the name others will see and a password of at least {MIN_PASSWORD_LENGTH} characters: your account is
            made, and you are signed in.
          </Text>
          {problem && !serverPassword && (
            <Alert color="red" role="alert">
              {problem.detail}
            </Alert>
          )}
          <TextInput
            label="Name"
            autoComplete="name"
            required
            value={name}
            error={nameError}
            aria-invalid={nameError !== undefined}
            onChange={(e) => {
              setName(e.currentTarget.value);
              setNameError(undefined);
            }}
          />
          {newPassword.fields}
          <Button type="submit" loading={accept.isPending}>
            Create the account
          </Button>
        </Stack>
      </form>
    </Paper>
  );
}
