import { Alert, Paper, PasswordInput, Stack, Title } from '@mantine/core';
import { type ReactNode, useState } from 'react';
import { newPasswordError } from './passwords.ts';

/** A new password typed twice: its value, a check that shows what is wrong at the fields, and the fields. */
export interface NewPassword {
  password: string;
  /** Checks both fields and shows what is wrong at them; true when they will do. */
  check(): boolean;
  fields: ReactNode;
}

/**
 * The new-password fields of the reset, email confirmation and invitation pages. `serverError`
 * is what the server said of the password (shown at the field until it is changed); `label` is
 * "Password" or "New password".
 */
export function useNewPassword(label: string, serverError: string | undefined): NewPassword {
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [errors, setErrors] = useState<{ password?: string; again?: string }>({});
  const passwordError = errors.password ?? serverError;
  const check = () => {
    const found = { password: newPasswordError(password), again: undefined as string | undefined };
    if (!found.password && again !== password) found.again = 'Type the same password again.';
    setErrors(found);
    return found.password === undefined && found.again === undefined;
  };
  const fields = (
    <>
      <PasswordInput
        label={label}
        autoComplete="new-password"
        required
        value={password}
        error={passwordError}
        // Mantine marks its inner input only with data-invalid: screen readers need aria-invalid.
        aria-invalid={passwordError !== undefined}
        onChange={(e) => {
          setPassword(e.currentTarget.value);
          setErrors((current) => ({ ...current, password: undefined }));
        }}
      />
      <PasswordInput
        label={`${label} again`}
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
    </>
  );
  return { password, check, fields };
}

/**
 * What a mailed link's page shows when the link cannot be used (no token, used, expired, revoked):
 * why, and `children`, the ways on (a new link, sign-in).
 */
export function DeadLink({ title, why, children }: { title: string; why: string; children: ReactNode }) {
  return (
    <Paper maw={460} mx="auto" mt="xl" p="xl" withBorder>
      <Stack>
        <Title order={1} size="h3">
          {title}
        </Title>
        <Alert color="red" role="alert">
          {why}
        </Alert>
        {children}
      </Stack>
    </Paper>
  );
}
