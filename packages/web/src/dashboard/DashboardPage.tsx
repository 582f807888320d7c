import '@mantine/charts/styles.css';
import { BarChart, DonutChart } from '@mantine/charts';
import {
  Box,
  Card,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
  UnstyledButton,
  VisuallyHidden,
} from '@mantine/core';
import type { Entity, Model, Screen } from '@ninepoint/spec';
import { type QueryClient, useQuery } from '@tanstack/react-query';
import { type ReactNode, useId } from 'react';
import { Link, useNavigate } from 'react-router';
import { api } from '../api/client.ts';
import type { Me } from '../api/session.ts';
import type { ScreenProps } from '../app/context.ts';
import { Failure } from '../app/pages.tsx';
import { label, screenDoc, screenTitle } from '../app/screens.ts';
import { counted, formatNumber } from '../format.ts';
import { machineOf } from '../list/query.ts';
import { collectionLabel } from '../records/labels.ts';
import {
  groupColor,
  groupLabel,
  groupOrder,
  recordsLink,
  type ShownTile,
  type Summary,
  shownTiles,
  unitOf,
  withUnit,
} from './tiles.ts';

/**
 * The `dashboard` screen: each figure of point 2 the user may see, counted by the server over the
 * records they may read. Counts per state are headline tiles; a figure by a field is a bar chart
 * (a donut for yes/no) coloured as the spec orders the values, with its total on top. Every tile,
 * bar and slice opens the list filtered to the records it counts; the numbers' table (what one
 * copies from) is folded away under the chart, which says the same in words to screen readers.
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
            <TileCard key={shown.url} shown={shown} model={model} me={me} />
          ))}
        </SimpleGrid>
      )}
    </Stack>
  );
}

/** A tile's figures, counted by the server (`GET /api/…/summary?by=…`). */
function summaryQuery(shown: ShownTile) {
  return {
    queryKey: ['summary', shown.tile.entity, shown.url],
    queryFn: async () => (await api<Summary>('GET', shown.url)).body,
  };
}

/**
 * Fetches the figures of every tile a dashboard shows the user, as its tiles will ask for them:
 * called when a link to the screen is hovered, focused or pressed (`screens/route-data.ts`).
 */
export function prefetchDashboardScreen(client: QueryClient, model: Model, me: Me, screen: Screen): void {
  for (const shown of shownTiles(model, me, screen.tiles ?? [])) {
    client.prefetchQuery(summaryQuery(shown)).catch(() => undefined);
  }
}

interface Row {
  name: string;
  value: number;
  color: string;
  link: string | null;
}

function TileCard({ shown, model, me }: { shown: ShownTile; model: Model; me: Me }) {
  const headingId = useId();
  const { tile } = shown;
  const query = useQuery(summaryQuery(shown));
  const entity = model.entities.find((e) => e.name === tile.entity);
  const sum = tile.measure === 'sum' && tile.field !== null;
  const unit = sum ? unitOf(model, tile.entity, tile.field) : null;
  const format = (value: number) => formatFigure(value, entity, tile.field);
  const withUnits = (value: number) => withUnit(format(value), value, unit);
  const figureOf = (row: { count: number; sums: Record<string, number> }) =>
    sum && tile.field ? (row.sums[tile.field] ?? 0) : row.count;
  const countOf = (n: number) =>
    counted(n, label(tile.entity).toLowerCase(), collectionLabel(tile.entity).toLowerCase());
  const all = recordsLink(model, me, tile.entity, null);

  let body: ReactNode;
  if (query.isPending) body = <Skeleton h={tile.by ? 220 : 48} mt="md" />;
  else if (query.isError)
    body = (
      <Box mt="md">
        <Failure error={query.error} retry={() => void query.refetch()} />
      </Box>
    );
  else {
    const data = query.data;
    const total = figureOf(data);
    const headline = (
      <Headline text={sum ? withUnits(total) : countOf(total)} link={tile.by === null || sum ? all : null} />
    );
    if (tile.by === null) body = headline;
    else {
      const by = tile.by;
      const order = groupOrder(model, tile.entity, by);
      const groups = [...(data.groups ?? [])].sort((a, b) => order(a.value) - order(b.value));
      const rows: Row[] = groups.map((g) => ({
        name: groupLabel(g.value),
        value: figureOf(g),
        color: groupColor(model, tile.entity, by, g.value),
        link: recordsLink(model, me, tile.entity, by, g.value),
      }));
      if (by === 'state' && !sum) {
        // Every state in the machine's order, those with no records too: a zero is news.
        const machine = machineOf(model, tile.entity);
        const seen = new Map(rows.map((r) => [r.name, r]));
        const states: Row[] = (machine?.states ?? []).map(
          (s) =>
            seen.get(groupLabel(s.name)) ?? {
              name: groupLabel(s.name),
              value: 0,
              color: groupColor(model, tile.entity, by, s.name),
              link: recordsLink(model, me, tile.entity, by, s.name),
            },
        );
        body = (
          <>
            {headline}
            <StateTiles rows={states.length > 0 ? states : rows} format={format} title={shown.title} />
          </>
        );
      } else {
        body = (
          <>
            {headline}
            <Grouped
              rows={rows}
              title={shown.title}
              groupName={label(by)}
              valueName={sum ? `Total${unit ? ` (${unit})` : ''}` : 'Count'}
              format={format}
              donut={entity?.fields.find((f) => f.name === by)?.type.kind === 'boolean'}
            />
          </>
        );
      }
    }
  }
  return (
    <Card withBorder padding="lg" radius="md" component="section" aria-labelledby={headingId}>
      <Title order={2} size="h4" id={headingId}>
        {shown.title}
      </Title>
      {body}
    </Card>
  );
}

/** The figure in large type: a link to the records it counts when there is a list of them. */
function Headline({ text, link }: { text: string; link: string | null }) {
  const figure = (
    <Text fz={34} fw={700} lh={1.1} data-headline>
      {text}
    </Text>
  );
  return (
    <Box mt="xs">
      {link ? (
        <UnstyledButton component={Link} to={link}>
          {figure}
        </UnstyledButton>
      ) : (
        figure
      )}
    </Box>
  );
}

/** Counts per state as tiles, one per state in the machine's order, each opening those records. */
function StateTiles({ rows, format, title }: { rows: Row[]; format: (n: number) => string; title: string }) {
  return (
    <SimpleGrid
      component="ul"
      aria-label={title}
      cols={{ base: 2, sm: 3 }}
      spacing="xs"
      mt="md"
      p={0}
      m={0}
      style={{ listStyle: 'none' }}
    >
      {rows.map((row) => {
        const inner = (
          <>
            <Text size="sm" c="dimmed" truncate>
              {row.name}
            </Text>
            <Text fz={26} fw={700} lh={1.2} c={row.value === 0 ? 'dimmed' : undefined}>
              {format(row.value)}
            </Text>
          </>
        );
        const style = {
          display: 'block',
          borderLeft: `4px solid var(--mantine-color-${row.color.replace('.', '-')})`,
          background: 'var(--mantine-color-gray-0)',
          borderRadius: 6,
          padding: '6px 10px',
          height: '100%',
        } as const;
        return (
          <Box component="li" key={row.name}>
            {row.link ? (
              <UnstyledButton component={Link} to={row.link} style={style} data-tile={row.name}>
                {inner}
              </UnstyledButton>
            ) : (
              <Box style={style} data-tile={row.name}>
                {inner}
              </Box>
            )}
          </Box>
        );
      })}
    </SimpleGrid>
  );
}

function Grouped({
  rows,
  title,
  groupName,
  valueName,
  format,
  donut,
}: {
  rows: Row[];
  title: string;
  groupName: string;
  valueName: string;
  format: (value: number) => string;
  donut: boolean;
}) {
  const navigate = useNavigate();
  if (rows.length === 0) {
    return (
      <Text c="dimmed" mt="md">
        No records yet.
      </Text>
    );
  }
  const described = rows.map((r) => `${r.name}: ${format(r.value)}`).join(', ');
  // Recharts hands a click the drawn item's data: the row it was drawn from, with its link.
  const open = (item: unknown) => {
    const link = (item as { payload?: Partial<Row> } | undefined)?.payload?.link;
    if (typeof link === 'string') void navigate(link);
  };
  return (
    <Box mt="md">
      <Box role="img" aria-label={`${title}: ${described}`} style={{ minWidth: 0 }}>
        {donut ? (
          <DonutChart
            data={rows}
            size={160}
            thickness={28}
            withTooltip={false}
            valueFormatter={format}
            mx="auto"
            pieProps={{ onClick: open, cursor: 'pointer', isAnimationActive: false }}
          />
        ) : (
          <BarChart
            h={Math.max(120, rows.length * 36)}
            data={rows}
            dataKey="name"
            orientation="vertical"
            series={[{ name: 'value', label: valueName, color: 'indigo.6' }]}
            barProps={{ isAnimationActive: false, onClick: open, cursor: 'pointer' }}
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
      <Box component="details" mt="xs">
        <Text component="summary" size="sm" c="dimmed" style={{ cursor: 'pointer' }}>
          The numbers
        </Text>
        <Table withRowBorders={false} verticalSpacing={4} mt={4} maw={320}>
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
                  {row.link ? <Link to={row.link}>{row.name}</Link> : row.name}
                </Table.Th>
                <Table.Td ta="right">{format(row.value)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Box>
    </Box>
  );
}

/** A count as a whole number; a sum as its field shows numbers (a decimal's places). */
function formatFigure(value: number, entity: Entity | undefined, field: string | null): string {
  const type = field ? entity?.fields.find((f) => f.name === field)?.type : undefined;
  return formatNumber(value, type?.kind === 'decimal' ? type.scale : null);
}
