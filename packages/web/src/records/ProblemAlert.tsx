import { Alert, Anchor, Group, List, Text } from '@mantine/core';
import type { SpecLine } from '@ninepoint/spec';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { ApiError } from '../api/client.ts';
import { useDevMode } from '../api/dev.ts';
import { formatMessage } from '../format.ts';
import { studioLineRoute } from './navigation.ts';

/**
 * A refusal the user must read: the catalogue's message, and the messages of its errors (by
 * default all of them; a form passes those no field of it shows). Announced as it appears.
 */
export function ProblemAlert({
  error,
  messages,
  title,
  children,
  onClose,
}: {
  error: ApiError;
  messages?: string[];
  title?: string;
  children?: ReactNode;
  onClose?: () => void;
}) {
  const detail = formatMessage(error.problem.detail);
  const listed = (messages ?? (error.problem.errors ?? []).map((e) => capitalized(e.message))).map(formatMessage);
  const extra = [...new Set(listed)].filter((m) => m !== detail);
  // Outside a form, "Some fields are not valid." says less than the messages listed under it.
  const generic = error.problem.code === 'VALIDATION_FAILED' && messages === undefined;
  return (
    <Alert
      color={error.status === 409 ? 'orange' : 'red'}
      title={title ?? titleOf(error)}
      role="alert"
      withCloseButton={Boolean(onClose)}
      onClose={onClose}
      closeButtonLabel="Dismiss"
    >
      {!(generic && extra.length > 0) && <Text size="sm">{detail}</Text>}
      {extra.length > 0 && (
        <List size="sm" mt={generic ? 0 : 4}>
          {extra.map((m) => (
            <List.Item key={m}>{m}</List.Item>
          ))}
        </List>
      )}
      <WhyLinks error={error} />
      {children}
    </Alert>
  );
}

/**
 * Under `ninepoint dev`, a "why?" per spec line behind the refusal (its rule, guard, limit, field
 * or permission: the problem's `spec`, else each error's), opening the Studio at that line.
 * Under `serve` the lines are in the API only: there is no Studio to open.
 */
function WhyLinks({ error }: { error: ApiError }) {
  const dev = useDevMode();
  if (!dev) return null;
  const lines = specLinesOf(error);
  if (lines.length === 0) return null;
  return (
    <Group gap="sm" mt={4}>
      {lines.map((spec) => (
        <Anchor key={spec.line} component={Link} to={studioLineRoute(spec.line, spec.text)} size="sm" title={spec.text}>
          Why? Spec line {spec.line}
        </Anchor>
      ))}
    </Group>
  );
}

/** The refusal's spec line, or the distinct lines of its errors when several rules refused. */
export function specLinesOf(error: ApiError): SpecLine[] {
  if (error.problem.spec) return [error.problem.spec];
  const seen = new Map<number, SpecLine>();
  for (const e of error.problem.errors ?? []) if (e.spec && !seen.has(e.spec.line)) seen.set(e.spec.line, e.spec);
  return [...seen.values()];
}

/** A short heading for a refusal: what kind of no it is, not its code. */
function titleOf(error: ApiError): string {
  switch (error.status) {
    case 0:
      return 'No connection';
    case 401:
      return 'Sign in again';
    case 403:
      return 'Not allowed';
    case 404:
      return 'Not found';
    case 409:
      return error.problem.code === 'CONFLICT' ? 'Changed by someone else' : 'Not possible right now';
    case 422:
      return 'Please check the form';
    default:
      return error.status >= 500 ? 'Something went wrong' : 'Not accepted';
  }
}

function capitalized(message: string): string {
  return message.charAt(0).toUpperCase() + message.slice(1);
}
