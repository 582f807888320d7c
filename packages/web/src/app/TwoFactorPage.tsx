import {
  Alert,
  Anchor,
  Button,
  Code,
  Group,
  Image,
  List,
  Paper,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { ApiError } from '../api/client.ts';
import { useMe } from '../api/session.ts';
import { useConfirmTwoFactor, useDisableTwoFactor, useEnrolTwoFactor, useFinishEnrolment } from '../api/two-factor.ts';
import { PasskeysSection } from './Passkeys.tsx';
import { Loading, NotAllowed } from './pages.tsx';

/** Where a signed-in user sets up, or turns off, two-factor sign-in. */
export const TWO_FACTOR_PATH = '/two-factor';

/**
 * Two-factor sign-in for the signed-in user: set it up (a QR code for an authenticator app, a code
 * to confirm, then the recovery codes, shown once), or see that it is on and turn it off. A user
 * whose role requires it is sent here (`Shell`) and can open nothing else until it is on.
 */
export function TwoFactorPage() {
  const me = useMe();
  // The recovery codes stay on screen until the user says they saved them, whatever `me` says meanwhile.
  const [codes, setCodes] = useState<string[] | null>(null);
  if (me.isPending) return <Loading what="Loading your account" />;
  const status = me.data?.twoFactor ?? null;
  if (!me.data?.user || status === null) return <NotAllowed reason="sign-in" />;
  return (
    <Paper maw={560} mx="auto" mt="md" p="xl" withBorder>
      <Stack>
        <Title order={1} size="h3">
          Two-factor sign-in
        </Title>
        {codes ? (
          <RecoveryCodes codes={codes} />
        ) : status.enabled ? (
          <TurnedOn required={status.required} left={status.recoveryCodesLeft} />
        ) : (
          <SetUp required={status.required} onConfirmed={setCodes} />
        )}
        {!codes && <PasskeysSection />}
      </Stack>
    </Paper>
  );
}

function SetUp({ required, onConfirmed }: { required: boolean; onConfirmed: (codes: string[]) => void }) {
  const enrol = useEnrolTwoFactor();
  const confirm = useConfirmTwoFactor();
  const [code, setCode] = useState('');
  const problem = ((enrol.error ?? confirm.error) as ApiError | null)?.problem;
  return (
    <Stack>
      {required && (
        <Alert color="blue" role="status">
          Your role requires two-factor sign-in. Set it up to go on: until then the app shows only this page.
        </Alert>
      )}
      <Text size="sm">
        With two-factor sign-in, signing in takes your password and a code from an authenticator app on your phone (such
        as Google Authenticator, Microsoft Authenticator, 1Password or Aegis).
      </Text>
      {problem && (
        <Alert color="red" role="alert">
          {problem.detail}
        </Alert>
      )}
      {!enrol.data ? (
        <Button w="fit-content" loading={enrol.isPending} onClick={() => enrol.mutate()}>
          Set up two-factor sign-in
        </Button>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            confirm.mutate(code, { onSuccess: onConfirmed });
          }}
        >
          <Stack>
            <Text size="sm">1. Scan this QR code with your authenticator app.</Text>
            <Image src={enrol.data.qr} alt="QR code to scan with your authenticator app" w={200} h={200} />
            <Text size="sm">
              Or type this key into the app: <Code data-testid="two-factor-secret">{enrol.data.secret}</Code>
            </Text>
            <TextInput
              label="2. Type the 6-digit code the app shows"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9 ]{6,8}"
              maxLength={8}
              required
              value={code}
              onChange={(e) => setCode(e.currentTarget.value)}
              maw={240}
            />
            <Button type="submit" w="fit-content" loading={confirm.isPending}>
              Turn on
            </Button>
          </Stack>
        </form>
      )}
    </Stack>
  );
}

function RecoveryCodes({ codes }: { codes: string[] }) {
  const finish = useFinishEnrolment();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = params.get('next');
  const target = next?.startsWith('/') && !next.startsWith('//') ? next : '/';
  return (
    <Stack>
      <Alert color="green" role="status">
        Two-factor sign-in is on. From now on, signing in asks for a code from your app.
      </Alert>
      <Text size="sm">
        Save these recovery codes somewhere safe (a password manager, or on paper). Each one signs you in once if you
        lose your phone. They are shown only now.
      </Text>
      <List aria-label="Recovery codes" ff="monospace" spacing={2} listStyleType="none">
        {codes.map((code) => (
          <List.Item key={code}>{code}</List.Item>
        ))}
      </List>
      <Button
        w="fit-content"
        onClick={() => {
          // Once `me` says it is on: a user held to this page is let through only then.
          void finish().then(() => navigate(target, { replace: true }));
        }}
      >
        I have saved these codes
      </Button>
    </Stack>
  );
}

function TurnedOn({ required, left }: { required: boolean; left: number }) {
  const disable = useDisableTwoFactor();
  const [password, setPassword] = useState('');
  const problem = (disable.error as ApiError | null)?.problem;
  return (
    <Stack>
      <Alert color="green" role="status">
        Two-factor sign-in is on. You have {left === 1 ? 'one recovery code' : `${left} recovery codes`} left.
      </Alert>
      {required ? (
        <Text size="sm" c="dimmed">
          Your role requires it, so it cannot be turned off. If you lose your phone and your recovery codes, ask whoever
          manages people to reset it.
        </Text>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            disable.mutate({ password });
          }}
        >
          <Stack>
            {problem && (
              <Alert color="red" role="alert">
                {problem.detail}
              </Alert>
            )}
            <PasswordInput
              label="Your password"
              description="To turn two-factor sign-in off."
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              maw={320}
            />
            <Group>
              <Button type="submit" color="red" variant="light" loading={disable.isPending}>
                Turn off
              </Button>
              <Anchor component={Link} to="/" size="sm">
                Back to the app
              </Anchor>
            </Group>
          </Stack>
        </form>
      )}
    </Stack>
  );
}
