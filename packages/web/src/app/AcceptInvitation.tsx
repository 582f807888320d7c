import { Alert, Anchor, Button, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { ApiError } from '../api/client.ts';
import { useAcceptInvitation, useInvitationLookup } from '../api/joining.ts';
import { useModel } from '../api/session.ts';
import { Loading } from './pages.tsx';
import { MIN_PASSWORD_LENGTH, newPasswordError } from './passwords.ts';

type Errors = { name?: string; password?: string; again?: string };

/**
 * The page an invitation's link opens (`/accept-invitation?token=…`): the invitee's name and a
 * password typed twice. Accepted, the account is made with the invitation's roles and signed in.
 */
export function AcceptInvitation() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const accept = useAcceptInvitation();
  const lookup = useInvitationLookup(token);
  const product = useModel().data?.product.name ?? 'the app';
  const navigate = useNavigate();
  const problem = ((accept.error ?? lookup.error) as ApiError | null)?.problem;

  if (token !== '' && lookup.isPending) return <Loading what="Opening the invitation" />;
  if (token === '' || problem?.code === 'INVITATION_INVALID') {
    return (
      <Paper maw={460} mx="auto" mt="xl" p="xl" withBorder>
        <Stack>
          <Title order={1} size="h3">
            This invitation does not work
          </Title>
          <Alert color="red" role="alert">
            {problem?.detail ??
              'The link has no token: open the whole link from the mail, or ask whoever invited you for a new one.'}
          </Alert>
          <Text size="sm">
            Have an account already?{' '}
            <Anchor component={Link} to="/sign-in">
              Sign in
            </Anchor>
          </Text>
        </Stack>
      </Paper>
    );
  }

  const serverPassword = problem?.errors?.find((e) => e.field === 'password')?.message;
  const passwordError = errors.password ?? serverPassword;
  return (
    <Paper maw={460} mx="auto" mt="xl" p="xl" withBorder>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          const found: Errors = {};
          if (name.trim() === '') found.name = 'Enter your name.';
          found.password = newPasswordError(password);
          if (!found.password && again !== password) found.again = 'Type the same password again.';
          setErrors(found);
          if (Object.values(found).some((e) => e !== undefined)) return;
          accept.mutate({ token, name: name.trim(), password }, { onSuccess: () => navigate('/', { replace: true }) });
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
            error={errors.name}
            aria-invalid={errors.name !== undefined}
            onChange={(e) => {
              setName(e.currentTarget.value);
              setErrors((current) => ({ ...current, name: undefined }));
            }}
          />
          <PasswordInput
            label="Password"
            autoComplete="new-password"
            required
            value={password}
            error={passwordError}
            aria-invalid={passwordError !== undefined}
            onChange={(e) => {
              setPassword(e.currentTarget.value);
              setErrors((current) => ({ ...current, password: undefined }));
            }}
          />
          <PasswordInput
            label="Password again"
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
          <Button type="submit" loading={accept.isPending}>
            Create my account
          </Button>
        </Stack>
      </form>
    </Paper>
  );
}
