import { Title } from '@mantine/core';
import type { ScreenProps } from '../app/context.ts';
import { screenTitle } from '../app/screens.ts';

/** The `detail` screen. */
export function Detail({ model, screen }: ScreenProps) {
  return <Title order={1}>{screenTitle(screen, model)}</Title>;
}
