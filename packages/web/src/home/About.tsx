import { Anchor, Box, Stack, Text, Title } from '@mantine/core';
import type { Model } from '@ninepoint/spec';
import { Link } from 'react-router';
import { inline, Prose, splitFirstParagraph } from './Prose.tsx';

/** Where the About page is, unless a screen of the spec takes the route. */
export const ABOUT_PATH = '/about';

/** The product as point 1 of its spec describes it: its summary, then the rest of the prose. */
export function AboutPage({ model }: { model: Model }) {
  const product = model.product;
  const described = model.points.find((p) => p.key === 'product')?.shown ?? false;
  const [summary, rest] = splitFirstParagraph(product.description);
  return (
    <Stack gap="lg" maw={760}>
      <Anchor component={Link} to="/" size="sm" w="fit-content">
        ← Home
      </Anchor>
      <Title order={1}>About {product.name}</Title>
      {described && summary !== '' ? (
        <Text size="lg" lh={1.6}>
          {inline(summary.replace(/\s*\n\s*/g, ' '))}
        </Text>
      ) : (
        <Text c="dimmed">The spec does not say yet what this product does, nor for whom (its point 1).</Text>
      )}
      {described && rest.trim() !== '' && (
        <Box>
          <Prose markdown={rest} headingOrder={2} />
        </Box>
      )}
    </Stack>
  );
}
