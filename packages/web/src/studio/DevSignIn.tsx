import { Alert, Button, Divider, Group, Stack, Text } from '@mantine/core';
import type { ApiError } from '../api/client.ts';
import { useDemoRoles, useDevMode, useSignInAs } from '../api/dev.ts';

/**
 * Under `ninepoint dev`: one button per role that signs in as its demo user without a password,
 * so trying the app as each role is one click. Nothing under `serve`.
 */
export function DevSignIn({ onSignedIn }: { onSignedIn(): void }) {
  const dev = useDevMode() === true;
  const roles = useDemoRoles(dev);
  const signInAs = useSignInAs();
  if (!dev || !roles.data || roles.data.length === 0) return null;
  const problem = (signInAs.error as ApiError | null)?.problem;
  return (
    <Stack gap="sm" mt="lg">
      <Divider label="Development mode" labelPosition="center" />
      <Text size="sm" c="dimmed">
        Try the app as a role: its demo user signs in without a password.
      </Text>
      {problem && (
        <Alert color="red" role="alert">
          {problem.detail}
        </Alert>
      )}
      <Group gap="xs">
        {roles.data.map(({ role, email }) => (
          <Button
            key={role}
            variant="light"
            title={email}
            loading={signInAs.isPending && signInAs.variables === role}
            onClick={() => signInAs.mutate(role, { onSuccess: onSignedIn })}
          >
            Sign in as {role}
          </Button>
        ))}
      </Group>
    </Stack>
  );
}
