import { Notification, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { type StudioStatus, useDevEvents, useDevMode } from '../api/dev.ts';

/** How long the "spec changed" notice stays. */
const NOTICE_MS = 8000;

/**
 * Under `ninepoint dev`, keeps every open page of the app in step with the spec file: when the
 * server applies a new version, every query is fetched again (the model too, so new fields,
 * screens and transition buttons appear without a reload) and a short notice says what changed.
 * Under `serve` it asks nothing: the page says it is not in dev mode.
 */
export function DevLoop() {
  const dev = useDevMode() === true;
  const client = useQueryClient();
  const seen = useRef<number | null>(null);
  const [notice, setNotice] = useState<StudioStatus | null>(null);

  useDevEvents(dev, (status) => {
    const before = seen.current;
    if (before !== null && status.version <= before) return;
    seen.current = status.version;
    // The first event only says where the server is; the page just loaded that version.
    if (before === null) return;
    void client.invalidateQueries();
    // The Studio shows every outcome itself.
    if (!window.location.pathname.startsWith('/studio')) setNotice(status);
  });

  useEffect(() => {
    if (!notice) return;
    const timer = setTimeout(() => setNotice(null), NOTICE_MS);
    return () => clearTimeout(timer);
  }, [notice]);

  if (!notice) return null;
  return (
    <Notification
      title="The spec changed"
      color="indigo"
      onClose={() => setNotice(null)}
      closeButtonProps={{ 'aria-label': 'Dismiss' }}
      role="status"
      aria-live="polite"
      withBorder
      style={{ position: 'fixed', right: 16, bottom: 16, zIndex: 400, maxWidth: 420 }}
    >
      <Text size="sm">The spec changed: {notice.message}</Text>
    </Notification>
  );
}
