import { Alert, Box, Code, Divider, Stack, Text, Title } from '@mantine/core';
import type { ScreenProps } from '../app/context.ts';
import { GrowProduct } from '../home/GrowProduct.tsx';
import { NextSteps } from '../home/NextSteps.tsx';
import { inline, Prose, splitFirstParagraph } from '../home/Prose.tsx';

/**
 * The `home` screen: the product as point 1 describes it (its summary first, then the rest of
 * the prose, the audience included), and what the user can do next: the screens they may open
 * and the records they may create. A product with no entities yet (the blank spec) says it has no
 * visible behaviour, lists the nine points and shows how to grow it.
 */
export function Home({ model, me }: ScreenProps) {
  const product = model.product;
  const described = model.points.find((p) => p.key === 'product')?.shown ?? false;
  const [summary, rest] = splitFirstParagraph(product.description);
  const blank = model.entities.length === 0;

  return (
    <Stack gap="xl" maw={1080}>
      <Box component="header">
        <Title order={1} size="h1">
          {product.name}
        </Title>
        {described && summary !== '' && (
          <Text size="lg" mt="sm" maw={760} lh={1.6}>
            {inline(summary.replace(/\s*\n\s*/g, ' '))}
          </Text>
        )}
        {!described && !blank && (
          <Alert color="gray" variant="light" mt="md" maw={760} title="What does this product do, and for whom?">
            Its spec does not say yet. Point 1 of the spec (<Code>## 1. What the product does and for whom</Code>) is
            shown here: its first paragraph as this line, the rest below it.
          </Alert>
        )}
      </Box>

      {blank ? <GrowProduct model={model} /> : <NextSteps model={model} me={me} />}

      {described && rest.trim() !== '' && (
        <>
          <Divider />
          <Box component="section" aria-labelledby="about-product" maw={760}>
            <Title order={2} id="about-product" size="h3" mb="sm">
              About {product.name}
            </Title>
            <Prose markdown={rest} headingOrder={3} />
          </Box>
        </>
      )}
    </Stack>
  );
}
