import { Alert, Anchor, Button, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import type { ApiError } from '../api/client.ts';
import { useSecondStep } from '../api/two-factor.ts';

/**
 * The second step of a sign-in whose password was right: the code the authenticator app shows,
 * or one of the recovery codes. A sign-in that waited too long (or took too many wrong codes)
 * goes back to the password (`onRestart`).
 */
export function SecondStep({ onSignedIn, onRestart }: { onSignedIn: () => void; onRestart: (why: string) => void }) {
  const [recovery, setRecovery] = useState(false);
  const [code, setCode] = useState('');
  const step = useSecondStep();
  const problem = (step.error as ApiError | null)?.problem;
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        step.mutate(recovery ? { recoveryCode: code } : { code }, {
          onSuccess: onSignedIn,
          onError: (error) => {
            const refused = (error as ApiError).problem;
            if (refused.code === 'TWO_FACTOR_EXPIRED') onRestart(refused.detail);
          },
        });
      }}
    >
      <Stack>
        <Title order={1} size="h3">
          Two-factor sign-in
        </Title>
        <Text size="sm" c="dimmed">
          {recovery
            ? 'Type one of the recovery codes you saved when you set up two-factor sign-in. Each works once.'
            : 'Open your authenticator app and type the 6-digit code it shows for this account.'}
        </Text>
        {problem && (
          <Alert color="red" role="alert">
            {problem.detail}
          </Alert>
        )}
        {recovery ? (
          <TextInput
            key="recovery"
            label="Recovery code"
            autoComplete="off"
            spellCheck={false}
            required
            data-autofocus
            value={code}
            onChange={(e) => setCode(e.currentTarget.value)}
          />
        ) : (
          <TextInput
            key="code"
            label="Code"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="[0-9 ]{6,8}"
            maxLength={8}
            required
            data-autofocus
            value={code}
            onChange={(e) => setCode(e.currentTarget.value)}
          />
        )}
        <Button type="submit" loading={step.isPending}>
          Verify
        </Button>
        <Anchor
          component="button"
          type="button"
          size="sm"
          onClick={() => {
            setRecovery(!recovery);
            setCode('');
            step.reset();
          }}
        >
          {recovery ? 'Use a code from the app instead' : 'Use a recovery code instead'}
        </Anchor>
      </Stack>
    </form>
  );
}
