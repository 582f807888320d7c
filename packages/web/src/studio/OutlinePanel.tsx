import { Badge, Box, Group, Text, UnstyledButton } from '@mantine/core';
import type { ReactNode } from 'react';
import type { OutlineEntry } from './guided.ts';

export interface OutlinePanelProps {
  entries: readonly OutlineEntry[];
  /** Puts the editor at a 1-based line, at the top of its view. */
  onGo(line: number): void;
}

/** The nine points in order, each a jump to its heading, with the entities and state machines under 3 and 4. */
export function OutlinePanel({ entries, onGo }: OutlinePanelProps) {
  return (
    <Box component="nav" aria-label="Outline of the spec" p="sm">
      <Box component="ol" m={0} p={0} style={{ listStyle: 'none' }}>
        {entries.map((entry) => (
          <Box component="li" key={entry.key} py={2}>
            {entry.line === null ? (
              <Group gap="xs" px={8} py={4} wrap="nowrap">
                <Text size="sm" c="dimmed">
                  {entry.label}
                </Text>
                <Badge color="gray" variant="light" size="sm">
                  missing
                </Badge>
              </Group>
            ) : (
              <Jump line={entry.line} onGo={onGo} strong>
                {entry.label}
                {!entry.shown && (
                  <Badge color="gray" variant="light" size="sm" ml="xs">
                    not shown
                  </Badge>
                )}
              </Jump>
            )}
            {entry.children.length > 0 && (
              <Box component="ul" m={0} pl="lg" style={{ listStyle: 'none' }}>
                {entry.children.map((child) => (
                  <Box component="li" key={`${child.label}-${child.line}`}>
                    <Jump line={child.line} onGo={onGo}>
                      {child.label}
                    </Jump>
                  </Box>
                ))}
              </Box>
            )}
          </Box>
        ))}
      </Box>
    </Box>
  );
}

function Jump({
  line,
  onGo,
  strong = false,
  children,
}: {
  line: number;
  onGo(line: number): void;
  strong?: boolean;
  children: ReactNode;
}) {
  return (
    <UnstyledButton
      onClick={() => onGo(line)}
      px={8}
      py={4}
      w="100%"
      className="studio-outline-jump"
      style={{ borderRadius: 6 }}
      title={`Go to line ${line}`}
    >
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Text size="sm" fw={strong ? 600 : 400} truncate>
          {children}
        </Text>
        <Text size="xs" c="dimmed" ff="monospace" style={{ flexShrink: 0 }}>
          {line}
        </Text>
      </Group>
    </UnstyledButton>
  );
}
