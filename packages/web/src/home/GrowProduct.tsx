import {
  Badge,
  Box,
  Code,
  CopyButton,
  Group,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  ThemeIcon,
  Title,
  UnstyledButton,
  VisuallyHidden,
} from '@mantine/core';
import { type Model, summarizePoints } from '@ninepoint/spec';

/**
 * For a product with no visible behaviour yet (no entities: the blank spec `ninepoint new`
 * writes): the nine points and which of them the spec shows, and how to grow it.
 */
export function GrowProduct({ model }: { model: Model }) {
  const points = summarizePoints(model);
  const shown = points.filter((p) => p.shown).length;
  return (
    <Stack gap="xl">
      <Paper withBorder radius="lg" p="lg" bg="var(--mantine-color-indigo-light)">
        <Text fw={600} size="lg">
          {model.product.name} has no visible behaviour yet.
        </Text>
        <Text mt={4}>
          {shown === 0
            ? 'Its spec shows none of the nine points: every one of them says “Not shown.” That is a valid spec, and where every product starts.'
            : `Its spec shows ${shown} of the nine points, but no entities yet, so there are no records to list, open or create.`}
        </Text>
      </Paper>

      <Box component="section" aria-labelledby="nine-points">
        <Title order={2} id="nine-points" size="h3" mb="sm">
          The nine points
        </Title>
        <Paper withBorder radius="lg" component="ol" p={0} m={0} style={{ listStyle: 'none' }}>
          {points.map((point, i) => (
            <Group
              component="li"
              key={point.key}
              justify="space-between"
              wrap="nowrap"
              px="md"
              py="sm"
              style={i > 0 ? { borderTop: '1px solid var(--mantine-color-default-border)' } : undefined}
            >
              <Group gap="sm" wrap="nowrap">
                <ThemeIcon
                  variant="light"
                  radius="xl"
                  size={28}
                  color={point.shown ? 'teal' : 'gray'}
                  aria-hidden="true"
                >
                  <Text size="xs" fw={700}>
                    {point.number}
                  </Text>
                </ThemeIcon>
                <Text>
                  <VisuallyHidden component="span">{`Point ${point.number}: `}</VisuallyHidden>
                  {point.title}
                </Text>
              </Group>
              <Badge
                variant={point.shown ? 'light' : 'default'}
                color={point.shown ? 'teal' : 'gray'}
                style={{ flexShrink: 0 }}
              >
                {point.shown ? point.detail : 'Not shown'}
              </Badge>
            </Group>
          ))}
        </Paper>
      </Box>

      <Box component="section" aria-labelledby="grow-it">
        <Title order={2} id="grow-it" size="h3" mb={4}>
          How to grow it
        </Title>
        <Text c="dimmed" mb="md">
          Everything this app does comes from one Markdown file. Describe the product in it, and the app follows.
        </Text>
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
          <Step number={1} title="Write a spec">
            <Text size="sm">Start a new spec file: nine sections, each “Not shown.”, like this product’s.</Text>
            <Command text="npx ninepoint new spec.md" />
          </Step>
          <Step number={2} title="Fill in the points">
            <Text size="sm">
              Start with point 1 (what the product does and for whom) and point 3 (its entities and fields). The format,
              with an example of every construct, is described in <Code>docs/spec-format.md</Code>: in the repository,
              or where Ninepoint is installed from npm, at{' '}
              <Code style={{ overflowWrap: 'anywhere' }}>node_modules/@ninepoint/cli/docs/spec-format.md</Code>.
            </Text>
          </Step>
          <Step number={3} title="Or start from an example">
            <Text size="sm">
              A complete library lending desk, with screens, states, rules and roles, comes with Ninepoint: write it
              beside your spec and serve it. <Code>npx ninepoint new --help</Code> names the other examples (a helpdesk,
              expense approval, quotes priced by code).
            </Text>
            <Command text="npx ninepoint new --example lending-desk lending.md" />
            <Command text="npx ninepoint serve lending.md" />
          </Step>
          <Step number={4} title="Check it and run it">
            <Text size="sm">The checker reports every problem with its line and column; then serve the spec.</Text>
            <Command text="npx ninepoint check spec.md" />
            <Command text="npx ninepoint serve spec.md" />
          </Step>
        </SimpleGrid>
      </Box>
    </Stack>
  );
}

function Step({ number, title, children }: { number: number; title: string; children: React.ReactNode }) {
  return (
    <Paper withBorder radius="lg" p="md">
      <Group gap="sm" mb="xs" wrap="nowrap">
        <ThemeIcon radius="xl" size={26} aria-hidden="true">
          <Text size="xs" fw={700}>
            {number}
          </Text>
        </ThemeIcon>
        <Title order={3} size="h5">
          {title}
        </Title>
      </Group>
      <Stack gap="xs">{children}</Stack>
    </Paper>
  );
}

/** A shell command with a button that copies it. */
function Command({ text }: { text: string }) {
  return (
    <Group
      gap="xs"
      wrap="nowrap"
      justify="space-between"
      bg="var(--mantine-color-default-hover)"
      px="sm"
      py={6}
      style={{ borderRadius: 8 }}
    >
      {/* Wrapped, not scrolled: a scrolling box needs a keyboard stop of its own (axe's
          scrollable-region-focusable), and the Copy button gives the command whole anyway. */}
      <Code bg="transparent" style={{ overflow: 'visible', overflowWrap: 'anywhere', minWidth: 0 }}>
        {text}
      </Code>
      <CopyButton value={text}>
        {({ copied, copy }) => (
          <UnstyledButton
            onClick={copy}
            aria-label={copied ? `Copied: ${text}` : `Copy: ${text}`}
            px={6}
            py={2}
            style={{ borderRadius: 6, flexShrink: 0 }}
          >
            <Text size="xs" c={copied ? 'teal' : 'dimmed'} fw={500}>
              {copied ? 'Copied' : 'Copy'}
            </Text>
          </UnstyledButton>
        )}
      </CopyButton>
    </Group>
  );
}
