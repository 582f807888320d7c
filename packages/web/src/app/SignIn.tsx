import { Alert, Button, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import type { ApiError } from '../api/client.ts';
import { useSignIn } from '../api/session.ts';
import { DevSignIn } from '../studio/DevSignIn.tsx';

/** Sign-in with email and password; on success, back to where the user was going. */
export function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useSignIn();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = params.get('next');
  // Only a path of this app: never an open redirect.
  const target = next?.startsWith('/') && !next.startsWith('//') ? next : '/';
  const problem = (signIn.error as ApiError | null)?.problem;
  return (
    <Paper maw={420} mx="auto" mt="xl" p="xl" withBorder>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          signIn.mutate({ email, password }, { onSuccess: () => navigate(target, { replace: true }) });
        }}
      >
        <Stack>
          <Title order={1} size="h3">
            Sign in
          </Title>
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
        </Stack>
      </form>
      <DevSignIn onSignedIn={() => navigate(target, { replace: true })} />
    </Paper>
  );
}
