import { Alert, List, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import type { ApiError } from '../api/client.ts';
import { formatMessage } from '../format.ts';

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
      {children}
    </Alert>
  );
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
