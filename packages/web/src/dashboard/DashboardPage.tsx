import '@mantine/charts/styles.css';
import { BarChart, DonutChart } from '@mantine/charts';
import { Box, Card, Group, SimpleGrid, Skeleton, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import type { Entity, Model } from '@ninepoint/spec';
import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { api } from '../api/client.ts';
import type { ScreenProps } from '../app/context.ts';
import { Failure } from '../app/pages.tsx';
import { label, screenDoc, screenTitle } from '../app/screens.ts';
import { formatNumber } from '../format.ts';
import { stateColor } from '../records/access.ts';
import { groupLabel, type ShownTile, type Summary, shownTiles } from './tiles.ts';

const PALETTE = ['indigo.6', 'teal.6', 'orange.6', 'grape.6', 'cyan.6', 'lime.7', 'pink.6', 'yellow.7'];

/**
 * The `dashboard` screen: each figure of point 2 the user may see, counted by the server over the
 * records they may read. A figure by a field is a bar chart (a donut for yes/no) with its numbers
 * in a table beside it: the table is what screen readers read and what one copies from.
 */
export function DashboardPage({ model, me, screen }: ScreenProps) {
  const tiles = shownTiles(model, me, screen.tiles ?? []);
  const doc = screenDoc(screen);
  return (
    <Stack gap="lg">
      <Box component="header">
        <Title order={1}>{screenTitle(screen, model)}</Title>
        {doc !== '' && (
          <Text c="dimmed" mt={4}>
            {doc}
          </Text>
        )}
      </Box>
      {tiles.length === 0 ? (
        <Text>Nothing here is yours to see yet.</Text>
      ) : (
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
          {tiles.map((shown) => (
            <TileCard key={shown.url} shown={shown} model={model} />
          ))}
        </SimpleGrid>
      )}
    </Stack>
  );
}

function TileCard({ shown, model }: { shown: ShownTile; model: Model }) {
  const headingId = useId();
  const { tile } = shown;
  const query = useQuery({
    queryKey: ['summary', tile.entity, shown.url],
    queryFn: async () => (await api<Summary>('GET', shown.url)).body,
  });
  const entity = model.entities.find((e) => e.name === tile.entity);
  const format = (value: number) => formatFigure(value, entity, tile.field);
  const figureOf = (row: { count: number; sums: Record<string, number> }) =>
    tile.measure === 'sum' && tile.field ? (row.sums[tile.field] ?? 0) : row.count;
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby={headingId}>
      <Title order={2} size="h4" id={headingId}>
        {shown.title}
      </Title>
      {query.isPending ? (
        <Skeleton h={tile.by ? 220 : 48} mt="md" />
      ) : query.isError ? (
        <Box mt="md">
          <Failure error={query.error} retry={() => void query.refetch()} />
        </Box>
      ) : tile.by === null ? (
        <Text fz={40} fw={700} mt="sm" lh={1.1}>
          {format(figureOf(query.data))}
        </Text>
      ) : (
        <Grouped
          summary={query.data}
          title={shown.title}
          groupName={label(tile.by)}
          valueName={tile.measure === 'sum' ? 'Total' : 'Count'}
          figureOf={figureOf}
          format={format}
          colorOf={(value) =>
            tile.by === 'state' && typeof value === 'string'
              ? `${stateColor(
                  model.machines.find((m) => m.entity === tile.entity),
                  value,
                )}.6`
              : undefined
          }
          donut={entity?.fields.find((f) => f.name === tile.by)?.type.kind === 'boolean'}
        />
      )}
    </Card>
  );
}

function Grouped({
  summary,
  title,
  groupName,
  valueName,
  figureOf,
  format,
  colorOf,
  donut,
}: {
  summary: Summary;
  title: string;
  groupName: string;
  valueName: string;
  figureOf: (row: { count: number; sums: Record<string, number> }) => number;
  format: (value: number) => string;
  colorOf: (value: string | boolean | null) => string | undefined;
  donut: boolean;
}) {
  const groups = summary.groups ?? [];
  if (groups.length === 0) {
    return (
      <Text c="dimmed" mt="md">
        No records yet.
      </Text>
    );
  }
  const rows = groups.map((g, i) => ({
    name: groupLabel(g.value),
    value: figureOf(g),
    color: colorOf(g.value) ?? PALETTE[i % PALETTE.length] ?? 'indigo.6',
  }));
  const described = rows.map((r) => `${r.name}: ${format(r.value)}`).join(', ');
  return (
    <Group align="flex-start" gap="lg" mt="md" wrap="wrap">
      {/* The table below says the same: the chart is a picture of it. */}
      <Box role="img" aria-label={`${title}: ${described}`} style={{ flex: '1 1 240px', minWidth: 0 }}>
        {donut ? (
          <DonutChart data={rows} size={160} thickness={28} withTooltip={false} valueFormatter={format} mx="auto" />
        ) : (
          <BarChart
            h={Math.max(120, rows.length * 36)}
            data={rows}
            dataKey="name"
            orientation="vertical"
            series={[{ name: 'value', label: valueName, color: 'indigo.6' }]}
            barProps={{ isAnimationActive: false }}
            withTooltip={false}
            withBarValueLabel
            valueFormatter={format}
            gridAxis="none"
            tickLine="none"
            yAxisProps={{ width: 110 }}
            // Counts are whole: no tick at 0.75 of a ticket.
            xAxisProps={{ allowDecimals: valueName !== 'Count' }}
          />
        )}
      </Box>
      <Table withRowBorders={false} verticalSpacing={4} style={{ flex: '0 1 220px' }}>
        <VisuallyHidden component="caption">{title}</VisuallyHidden>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">{groupName}</Table.Th>
            <Table.Th scope="col" ta="right">
              {valueName}
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={row.name}>
              <Table.Th scope="row" fw={400}>
                {row.name}
              </Table.Th>
              <Table.Td ta="right">{format(row.value)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Group>
  );
}

/** A count as a whole number; a sum as its field shows numbers (a decimal's places). */
function formatFigure(value: number, entity: Entity | undefined, field: string | null): string {
  const type = field ? entity?.fields.find((f) => f.name === field)?.type : undefined;
  return formatNumber(value, type?.kind === 'decimal' ? type.scale : null);
}
