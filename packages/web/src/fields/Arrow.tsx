import { VisuallyHidden } from '@mantine/core';

/** An arrow between two values, read out as words ("to", "changed to"). */
export function Arrow({ words = 'to' }: { words?: string }) {
  return (
    <>
      <span aria-hidden="true">→</span>
      <VisuallyHidden>{words}</VisuallyHidden>
    </>
  );
}
