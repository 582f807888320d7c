import { Alert, Anchor, Button, Paper, Radio, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import type { ApiError } from '../api/client.ts';
import { useDevMailer, useDevMode } from '../api/dev.ts';
import { useSignUp } from '../api/joining.ts';
import { useMe } from '../api/session.ts';
import { Loading } from './pages.tsx';
import { domainOf, EMAIL } from './passwords.ts';

type Errors = { name?: string; email?: string; role?: string };

/**
 * "Create an account" for the roles point 6 opens to sign-up (`signUp` of `GET /api/auth/me`): a
 * choice of role when there are several, a hint when a role takes only some email domains. The
 * server answers the same whether or not the email has an account, so the page then says what
 * happens next, never whether the account exists.
 */
export function SignUp() {
  const me = useMe();
  const roles = me.data?.signUp ?? [];
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [picked, setPicked] = useState<string | null>(null);
  const [errors, setErrors] = useState<Errors>({});
  const [sentTo, setSentTo] = useState<string | null>(null);
  const signUp = useSignUp();
  const devMode = useDevMode() === true;
  const outbox = useDevMailer(devMode && sentTo !== null).data === 'outbox';

  if (me.isPending) return <Loading what="Loading" />;
  const role = roles.length === 1 ? roles[0] : roles.find((r) => r.role === picked);
  const problem = (signUp.error as ApiError | null)?.problem;

  const signedIn = me.data?.user;
  if (signedIn && sentTo === null) {
    return (
      <Paper maw={460} mx="auto" mt="xl" p="xl" withBorder>
        <Stack>
          <Title order={1} size="h3">
            Create an account
          </Title>
          <Text>You are signed in as {signedIn.name}. To create another account, sign out first.</Text>
          <Anchor component={Link} to="/" size="sm">
            Go to the home page
          </Anchor>
        </Stack>
      </Paper>
    );
  }

  if (roles.length === 0) {
    return (
      <Paper maw={460} mx="auto" mt="xl" p="xl" withBorder>
        <Stack>
          <Title order={1} size="h3">
            Create an account
          </Title>
          <Text>Accounts of this app come by invitation: ask someone who uses it to invite you.</Text>
          <Anchor component={Link} to="/sign-in" size="sm">
            Back to sign in
          </Anchor>
        </Stack>
      </Paper>
    );
  }

  if (sentTo !== null) {
    return (
      <Paper maw={460} mx="auto" mt="xl" p="xl" withBorder>
        <Stack>
          <Title order={1} size="h3">
            Check your email
          </Title>
          <Text role="status">
            We sent a link to <strong>{sentTo}</strong>. Open it to confirm the address and choose your password: your
            account is made then, and you are signed in. The link works once, for a limited time.
          </Text>
          {outbox ? (
            <Alert color="yellow" title="Development mode">
              Mails are not sent: the link is printed in the terminal running ninepoint dev, and kept at{' '}
              <Anchor href="/api/dev/outbox">/api/dev/outbox</Anchor>.
            </Alert>
          ) : (
            <Text size="sm" c="dimmed">
              No mail after a few minutes? Look in the spam folder, or check the address and sign up again.
            </Text>
          )}
          <Anchor component={Link} to="/sign-in" size="sm">
            Back to sign in
          </Anchor>
        </Stack>
      </Paper>
    );
  }

  const emailError =
    errors.email ??
    (problem?.code === 'SIGN_UP_DOMAIN' || problem?.code === 'INVALID_PAYLOAD' ? problem.detail : undefined);
  const fieldProblem = problem && emailError === problem.detail;

  const submit = () => {
    const found: Errors = {};
    const trimmed = email.trim();
    if (name.trim() === '') found.name = 'Enter your name.';
    if (trimmed === '') found.email = 'Enter your email address.';
    else if (!EMAIL.test(trimmed)) found.email = 'Enter an email address, such as ada@example.org.';
    else if (role && role.domains.length > 0 && !role.domains.includes(domainOf(trimmed))) {
      found.email = `Use an address at ${role.domains.join(' or ')}.`;
    }
    if (!role) found.role = 'Choose how you join.';
    setErrors(found);
    if (Object.values(found).some((e) => e !== undefined) || !role) return;
    signUp.mutate(
      { email: trimmed, name: name.trim(), ...(roles.length > 1 ? { role: role.role } : {}) },
      { onSuccess: () => setSentTo(trimmed) },
    );
  };

  return (
    <Paper maw={460} mx="auto" mt="xl" p="xl" withBorder>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <Stack>
          <Title order={1} size="h3">
            Create an account
          </Title>
          {problem && !fieldProblem && (
            <Alert color="red" role="alert">
              {problem.detail}
            </Alert>
          )}
          {roles.length > 1 && (
            <Radio.Group
              label="Join as"
              required
              value={picked}
              onChange={(value) => {
                setPicked(value);
                setErrors((current) => ({ ...current, role: undefined, email: undefined }));
              }}
              error={errors.role}
            >
              <Stack gap="xs" mt={4}>
                {roles.map((r) => (
                  <Radio
                    key={r.role}
                    value={r.role}
                    label={r.role}
                    description={r.domains.length > 0 ? `Email addresses at ${r.domains.join(', ')} only` : undefined}
                  />
                ))}
              </Stack>
            </Radio.Group>
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
          <TextInput
            label="Email"
            type="email"
            autoComplete="email"
            required
            value={email}
            description={role && role.domains.length > 0 ? `An address at ${role.domains.join(' or ')}.` : undefined}
            error={emailError}
            aria-invalid={emailError !== undefined}
            onChange={(e) => {
              setEmail(e.currentTarget.value);
              setErrors((current) => ({ ...current, email: undefined }));
              if (signUp.error) signUp.reset();
            }}
          />
          <Button type="submit" loading={signUp.isPending}>
            Create the account
          </Button>
          <Text size="sm">
            Have an account?{' '}
            <Anchor component={Link} to="/sign-in">
              Sign in
            </Anchor>
          </Text>
        </Stack>
      </form>
    </Paper>
  );
}
