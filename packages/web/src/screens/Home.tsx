import { Title } from '@mantine/core';
import type { ScreenProps } from '../app/context.ts';
import { screenTitle } from '../app/screens.ts';

/** The `home` screen. */
export function Home({ model, screen }: ScreenProps) {
  return <Title order={1}>{screenTitle(screen, model)}</Title>;
}
