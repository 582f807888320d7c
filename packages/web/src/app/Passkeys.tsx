import { Alert, Button, Group, List, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import type { ApiError } from '../api/client.ts';
import { passkeysSupported, useAddPasskey, usePasskeySignIn, usePasskeys, useRemovePasskey } from '../api/passkeys.ts';

/** What went wrong, from the server (a problem) or from the browser (cancelled, not allowed). */
function message(error: unknown): string | null {
  if (error === null || error === undefined) return null;
  const problem = (error as ApiError).problem;
  if (problem) return problem.detail ?? problem.title ?? 'The passkey was not accepted.';
  return error instanceof Error ? error.message : String(error);
}

/** The signed-in user's passkeys: add one (a name to know it by), see them, remove one. */
export function PasskeysSection() {
  const list = usePasskeys();
  const add = useAddPasskey();
  const remove = useRemovePasskey();
  const [name, setName] = useState('');
  const error = message(add.error ?? remove.error);
  return (
    <Stack>
      <Title order={2} size="h4">
        Passkeys
      </Title>
      <Text size="sm">
        A passkey signs you in with this device’s screen lock or security key instead of your password, and needs no
        code: it works only on this app’s own address, so it cannot be phished.
      </Text>
      {error && (
        <Alert color="red" role="alert">
          {error}
        </Alert>
      )}
      {list.data && list.data.length > 0 ? (
        <List aria-label="Your passkeys" listStyleType="none" spacing={4}>
          {list.data.map((passkey) => (
            <List.Item key={passkey.id}>
              <Group gap="sm">
                <Text size="sm">{passkey.name}</Text>
                <Text size="xs" c="dimmed">
                  added {passkey.createdAt.slice(0, 10)}
                  {passkey.lastUsedAt ? `, last used ${passkey.lastUsedAt.slice(0, 10)}` : ''}
                </Text>
                <Button
                  size="compact-xs"
                  color="red"
                  variant="subtle"
                  aria-label={`Remove passkey ${passkey.name}`}
                  loading={remove.isPending && remove.variables === passkey.id}
                  onClick={() => remove.mutate(passkey.id)}
                >
                  Remove
                </Button>
              </Group>
            </List.Item>
          ))}
        </List>
      ) : (
        list.data && (
          <Text size="sm" c="dimmed">
            No passkeys yet.
          </Text>
        )
      )}
      {add.isSuccess && (
        <Alert color="green" role="status">
          Passkey added. Next time, choose “Sign in with a passkey”.
        </Alert>
      )}
      {passkeysSupported() ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            add.mutate(name, { onSuccess: () => setName('') });
          }}
        >
          <Group align="end">
            <TextInput
              label="Name"
              placeholder="Work laptop"
              maxLength={100}
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              maw={240}
            />
            <Button type="submit" variant="light" loading={add.isPending}>
              Add a passkey
            </Button>
          </Group>
        </form>
      ) : (
        <Text size="sm" c="dimmed">
          This browser cannot make passkeys.
        </Text>
      )}
    </Stack>
  );
}

/** On the sign-in page: sign in with a passkey this browser's authenticator holds. */
export function PasskeySignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const signIn = usePasskeySignIn();
  if (!passkeysSupported()) return null;
  const error = message(signIn.error);
  return (
    <Stack mt="md" gap="xs">
      {error && (
        <Alert color="red" role="alert">
          {error}
        </Alert>
      )}
      <Button
        variant="default"
        loading={signIn.isPending}
        onClick={() => signIn.mutate(undefined, { onSuccess: onSignedIn })}
      >
        Sign in with a passkey
      </Button>
    </Stack>
  );
}
