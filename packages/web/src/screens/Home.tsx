import { Alert, Anchor, Box, Code, Group, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import type { ScreenProps } from '../app/context.ts';
import { ABOUT_PATH } from '../home/About.tsx';
import { GrowProduct } from '../home/GrowProduct.tsx';
import { NextSteps } from '../home/NextSteps.tsx';
import { inline, splitFirstParagraph } from '../home/Prose.tsx';
import { YourWork } from '../home/YourWork.tsx';

/**
 * The `home` screen: for a signed-in user, their work (the records that name them, counted per
 * state, with what changed since their last visit) and what they can do next; for a visitor, the
 * product's summary and what they may open. The rest of point 1's prose is on the About page. A
 * product with no entities yet (the blank spec) says it has no visible behaviour, lists the nine
 * points and shows how to grow it.
 */
export function Home({ model, me }: ScreenProps) {
  const product = model.product;
  const described = model.points.find((p) => p.key === 'product')?.shown ?? false;
  const [summary, rest] = splitFirstParagraph(product.description);
  const blank = model.entities.length === 0;
  const working = me.user !== null && !blank;

  return (
    <Stack gap="xl" maw={1080}>
      <Box component="header">
        <Group justify="space-between" align="baseline" gap="sm">
          <Title order={1} size="h1">
            {product.name}
          </Title>
          {described && (summary !== '' || rest.trim() !== '') && (
            <Anchor component={Link} to={ABOUT_PATH} size="sm">
              About {product.name}
            </Anchor>
          )}
        </Group>
        {!working && described && summary !== '' && (
          <Text size="lg" mt="sm" maw={760} lh={1.6}>
            {inline(summary.replace(/\s*\n\s*/g, ' '))}
          </Text>
        )}
        {!described && !blank && (
          <Alert color="gray" variant="light" mt="md" maw={760} title="What does this product do, and for whom?">
            Its spec does not say yet. Point 1 of the spec (<Code>## 1. What the product does and for whom</Code>) is
            shown on the About page: its first paragraph as a summary, the rest below it.
          </Alert>
        )}
      </Box>

      {working && <YourWork model={model} me={me} />}
      {blank ? <GrowProduct model={model} /> : <NextSteps model={model} me={me} />}
    </Stack>
  );
}
