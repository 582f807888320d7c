import { Badge, Box, Button, Group, Stack, Text, ThemeIcon, UnstyledButton } from '@mantine/core';
import type { QuickFix } from '@ninepoint/spec';
import type { Located } from './locate.ts';

export interface ProblemsPanelProps {
  located: readonly Located[];
  /** Moves the editor's cursor to an offset of the checked text. */
  onGo(offset: number): void;
  /** Applies a quick fix; false when the text changed under it. */
  onFix(located: Located, fix: QuickFix): void;
  /** False while the editor holds a newer text than the one checked (the fixes wait for the next check). */
  current: boolean;
}

/** The checker's diagnostics, in the order of the text: where, what, what to do, and a fix when there is one. */
export function ProblemsPanel({ located, onGo, onFix, current }: ProblemsPanelProps) {
  if (located.length === 0) {
    return (
      <Group gap="sm" p="md" wrap="nowrap">
        <ThemeIcon color="teal" variant="light" radius="xl" aria-hidden="true">
          ✓
        </ThemeIcon>
        <Text size="sm">No problems: the checker finds nothing to fix in the spec.</Text>
      </Group>
    );
  }
  return (
    <Box component="ul" aria-label="Problems" m={0} p={0} style={{ listStyle: 'none' }}>
      {located.map((entry) => {
        const { diagnostic: d } = entry;
        const where = `${d.line}:${d.column}`;
        return (
          <Box
            component="li"
            key={`${entry.from}-${entry.to} ${d.code} ${d.message}`}
            px="md"
            py="sm"
            style={{ borderBottom: '1px solid var(--mantine-color-gray-2)' }}
          >
            <UnstyledButton
              onClick={() => onGo(entry.from)}
              w="100%"
              p={4}
              style={{ borderRadius: 6 }}
              title={`Go to line ${d.line}, column ${d.column}`}
            >
              <Group gap="xs" wrap="nowrap" align="flex-start">
                <Badge
                  color={d.severity === 'error' ? 'red' : 'yellow'}
                  variant="light"
                  size="sm"
                  miw={64}
                  style={{ flexShrink: 0 }}
                >
                  {d.severity}
                </Badge>
                <Stack gap={2} miw={0}>
                  <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                    <Text span ff="monospace" fw={600} size="sm">
                      {where}
                    </Text>{' '}
                    <Text span ff="monospace" c="dimmed" size="xs">
                      {d.code}
                    </Text>{' '}
                    {d.message}
                  </Text>
                  {d.hint && (
                    <Text size="xs" c="dimmed">
                      {d.hint}
                    </Text>
                  )}
                </Stack>
              </Group>
            </UnstyledButton>
            {entry.fixes.length > 0 && (
              <Group gap="xs" mt={6} ml={76}>
                {entry.fixes.map((fix) => (
                  <Button
                    key={fix.title}
                    size="compact-xs"
                    variant="light"
                    disabled={!current}
                    onClick={() => onFix(entry, fix)}
                  >
                    Fix: {fix.title}
                  </Button>
                ))}
              </Group>
            )}
          </Box>
        );
      })}
    </Box>
  );
}
