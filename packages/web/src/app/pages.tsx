import { Alert, Anchor, Button, Skeleton, Stack, Text, Title } from '@mantine/core';
import { Link, useLocation } from 'react-router';
import type { ApiError } from '../api/client.ts';

/**
 * A page's outline while it loads (a heading, a toolbar, rows), so the page does not jump when it
 * arrives; screen readers hear the label.
 */
export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <Stack gap="sm" py="md" role="status" aria-live="polite" aria-label={what} aria-busy="true" data-skeleton>
      <Skeleton height={30} width="35%" radius="sm" />
      <Skeleton height={34} width="60%" radius="sm" mb="xs" />
      {[92, 85, 96, 80, 88, 74].map((w) => (
        <Skeleton key={w} height={22} width={`${w}%`} radius="sm" />
      ))}
    </Stack>
  );
}

/** A failed call: the catalogue's message, and a way to try again. */
export function Failure({ error, retry }: { error: unknown; retry?: () => void }) {
  const problem = (error as ApiError | undefined)?.problem;
  return (
    <Alert color="red" title={problem?.title ?? 'Something went wrong'} role="alert">
      <Stack gap="xs">
        <Text size="sm">{problem?.detail ?? String((error as Error | undefined)?.message ?? error)}</Text>
        {retry && (
          <Button size="xs" variant="light" color="red" onClick={retry} w="fit-content">
            Try again
          </Button>
        )}
      </Stack>
    </Alert>
  );
}

export function NotFound() {
  const location = useLocation();
  return (
    <Stack gap="sm" py="xl">
      <Title order={1}>Page not found</Title>
      <Text c="dimmed">There is no page at {location.pathname}.</Text>
      <Anchor component={Link} to="/">
        Go to the home page
      </Anchor>
    </Stack>
  );
}

/** A screen the user may not open: signing in may help a visitor; a user is told plainly. */
export function NotAllowed({ reason }: { reason: 'sign-in' | 'forbidden' }) {
  const location = useLocation();
  if (reason === 'sign-in') {
    return (
      <Stack gap="sm" py="xl">
        <Title order={1}>Sign in to continue</Title>
        <Text c="dimmed">This page is for signed-in users.</Text>
        <Button
          component={Link}
          to={`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`}
          w="fit-content"
        >
          Sign in
        </Button>
      </Stack>
    );
  }
  return (
    <Stack gap="sm" py="xl">
      <Title order={1}>Not available to you</Title>
      <Text c="dimmed">Your roles do not give access to this page. Ask an administrator if you need it.</Text>
      <Anchor component={Link} to="/">
        Go to the home page
      </Anchor>
    </Stack>
  );
}
