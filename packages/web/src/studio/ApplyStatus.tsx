import { Alert, Box, Code, Text } from '@mantine/core';
import type { StudioStatus } from '../api/dev.ts';

const LOOK: Record<StudioStatus['outcome'], { color: string; title: string }> = {
  applied: { color: 'teal', title: 'Applied' },
  unchanged: { color: 'gray', title: 'Saved: nothing to apply' },
  invalid: { color: 'red', title: 'Not applied: the spec has errors' },
  refused: { color: 'orange', title: 'Not applied: the migration was refused' },
  failed: { color: 'red', title: 'Not applied: the server could not apply it' },
};

/**
 * What the server did with the spec file the last time it read it: applied, or why not (with the
 * migration plan when one was refused). The running app keeps the last good spec meanwhile.
 */
export function ApplyStatus({ status }: { status: StudioStatus }) {
  const look = LOOK[status.outcome] ?? LOOK.failed;
  const at = new Date(status.at);
  const time = Number.isNaN(at.getTime()) ? '' : at.toLocaleTimeString();
  return (
    <Alert
      color={look.color}
      variant="light"
      py="xs"
      title={look.title}
      role="status"
      aria-live="polite"
      aria-atomic="true"
      styles={{ message: { minWidth: 0 } }}
      data-outcome={status.outcome}
    >
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {status.message}
      </Text>
      {/* Not dimmed: grey text on the alert's tint falls under 4.5:1. */}
      <Text size="xs" mt={2}>
        Version {status.version}
        {time && ` · ${time}`}
      </Text>
      {status.plan && (
        <Box component="details" mt="xs" open={status.outcome === 'refused'}>
          <Text component="summary" size="sm" fw={500} style={{ cursor: 'pointer' }}>
            Migration plan
          </Text>
          {/* A scrolled region takes the keyboard, so the whole plan can be read without a mouse. */}
          <Code
            block
            tabIndex={0}
            mt={4}
            fz="xs"
            style={{ maxHeight: 220, overflow: 'auto', whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}
          >
            {status.plan}
          </Code>
        </Box>
      )}
    </Alert>
  );
}
