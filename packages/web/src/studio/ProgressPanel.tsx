import { Badge, Box, Button, Group, Progress, Stack, Text } from '@mantine/core';
import type { InsertablePoint, PointProgress } from '@ninepoint/spec';

export interface ProgressPanelProps {
  points: readonly PointProgress[];
  /** Writes what the runtime derives for the point into the editor's text. */
  onInsert(point: InsertablePoint): void;
}

const DERIVED: Record<InsertablePoint, string> = {
  screens: 'the derived screens',
  calls: 'the derived calls',
};

/** The nine points: which are shown and how much they hold, and what the app does for those that are not. */
export function ProgressPanel({ points, onInsert }: ProgressPanelProps) {
  const shown = points.filter((p) => p.shown).length;
  return (
    <Stack gap="sm" p="md">
      <Box>
        <Text size="sm" fw={600} id="studio-progress-label">
          {shown} of {points.length} points shown
        </Text>
        <Progress value={(shown / Math.max(points.length, 1)) * 100} mt={6} aria-labelledby="studio-progress-label" />
      </Box>
      <Box component="ol" m={0} p={0} style={{ listStyle: 'none' }} aria-label="The nine points">
        {points.map((point) => (
          <Box component="li" key={point.key} py="sm" style={{ borderBottom: '1px solid var(--mantine-color-gray-2)' }}>
            <Group justify="space-between" wrap="nowrap" align="flex-start" gap="sm">
              <Stack gap={2} miw={0}>
                <Text size="sm" fw={600}>
                  {point.number}. {point.title}
                </Text>
                <Text size="sm" c={point.shown ? undefined : 'dimmed'}>
                  {point.shown ? point.detail : point.instead}
                </Text>
                {point.acts.length > 0 && (
                  <Box
                    component="ul"
                    m={0}
                    pl="md"
                    aria-label={
                      point.key === 'states' ? 'What transitions set' : 'Notifications and calls to other systems'
                    }
                  >
                    {point.acts.map((line) => (
                      <Text component="li" size="xs" c="dimmed" key={line}>
                        {line}
                      </Text>
                    ))}
                  </Box>
                )}
              </Stack>
              <Badge color={point.shown ? 'teal' : 'gray'} variant="light" style={{ flexShrink: 0 }}>
                {point.shown ? 'shown' : 'not shown'}
              </Badge>
            </Group>
            {point.insertable && (
              <Button
                size="compact-sm"
                variant="light"
                mt="xs"
                onClick={() => point.insertable && onInsert(point.insertable)}
                aria-label={`Insert into the spec: ${DERIVED[point.insertable]}`}
              >
                Insert into the spec
              </Button>
            )}
          </Box>
        ))}
      </Box>
    </Stack>
  );
}
