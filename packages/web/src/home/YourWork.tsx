import { Anchor, Badge, Box, Card, Group, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { type Entity, type Model, threadOf } from '@ninepoint/spec';
import { type UseQueryResult, useQueries } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { api } from '../api/client.ts';
import type { Me } from '../api/session.ts';
import { fieldLabel, pluralLabel } from '../app/screens.ts';
import { formatDateTime, formatRelative } from '../fields/display.ts';
import { filterParams, refersToUsers } from '../list/query.ts';
import { accessTo, stateColor, stateLabel } from '../records/access.ts';
import { type ApiRecord, callFor, machineOf, type Page, pathOf, summaryPath } from '../records/calls.ts';
import { detailRoute, listScreen } from '../records/navigation.ts';
import { useRecordTitle } from '../records/title.ts';

/**
 * How many of a panel's records are listed; what changed since the last visit is looked for among
 * the `RECENT` changed last. The counts per state are the server's, over every record.
 */
const LISTED = 5;
const RECENT = 100;

/** What `GET …/summary?by=state` answers. */
interface StateCounts {
  count: number;
  groups?: { value: string | boolean | null; count: number }[];
}

/** The records that name the user in a source's field, as list filters (`filter[assignee]=<id>`). */
function mineParams(source: WorkSource, userId: string): [string, string][] {
  return filterParams(source.field, { values: [userId] });
}

/** One way records name the user: an entity's `User` field, or `created_by`. */
export interface WorkSource {
  entity: Entity;
  /** A `User` field, or `created_by` for an entity that has none. */
  field: string;
  /** "Tickets: you are the assignee". */
  title: string;
}

/**
 * Where the user's work is: for each entity they may list, the records a `User` field of it names
 * them in (a ticket's assignee, its reporter), or, for an entity without one, those they created.
 */
export function workSources(model: Model, me: Me): WorkSource[] {
  if (!me.user) return [];
  return model.entities.flatMap((entity) => {
    const access = accessTo(me, entity.name);
    // A thread's messages are read on the record they are about.
    if (access.read === 'none' || !callFor(model, entity.name, 'list') || threadOf(model, entity.name)) return [];
    const people = entity.fields.filter((f) => refersToUsers(f.type));
    if (people.length === 0) {
      return access.create ? [{ entity, field: 'created_by', title: `${pluralLabel(entity.name)} you created` }] : [];
    }
    return people.map((f) => ({
      entity,
      field: f.name,
      title: `${pluralLabel(entity.name)}: you are the ${fieldLabel(f).toLowerCase()}`,
    }));
  });
}

/** The moment of the user's previous visit to the home page (kept in this browser), then now. */
function useLastVisit(userId: string): string | null {
  const key = `ninepoint:last-visit:${userId}`;
  const [previous] = useState(() => {
    try {
      return localStorage.getItem(key);
    } catch {
      return null;
    }
  });
  useEffect(() => {
    try {
      localStorage.setItem(key, new Date().toISOString());
    } catch {
      // Private browsing without storage: every visit is a first one.
    }
  }, [key]);
  return previous;
}

/**
 * A role's home: the records that name the signed-in user, per entity and field, with their
 * counts per state and what changed since the last visit, newest changes first.
 */
export function YourWork({ model, me }: { model: Model; me: Me }) {
  const sources = workSources(model, me);
  const since = useLastVisit(me.user?.id ?? '');
  const userId = me.user?.id ?? '';
  const pages = useQueries({
    queries: sources.map((s) => {
      const list = callFor(model, s.entity.name, 'list');
      const path = list ? pathOf(list) : '';
      return {
        // Keyed as a list: live updates and writes fetch it again.
        queryKey: ['list', path, 'work', s.field, userId],
        queryFn: async () => {
          const params = new URLSearchParams([
            ['limit', String(RECENT)],
            ['sort', '-updated_at'],
            ['count', 'true'],
            ...mineParams(s, userId),
          ]);
          return (await api<Page>('GET', `${path}?${params}`)).body;
        },
      };
    }),
  });
  // The counts per state, exact however many records there are: the summary call with the same filter.
  const counts = useQueries({
    queries: sources.map((s) => {
      const summary = machineOf(model, s.entity.name) ? summaryPath(model, s.entity.name) : null;
      const params = new URLSearchParams([['by', 'state'], ...mineParams(s, userId)]);
      return {
        // Keyed as a dashboard's figures: live updates of the entity fetch them again.
        queryKey: ['summary', s.entity.name, 'work', s.field, userId],
        enabled: summary !== null,
        queryFn: async () => (await api<StateCounts>('GET', `${summary}?${params}`)).body,
      };
    }),
  });
  if (sources.length === 0) return null;
  // Cards of nothing are left out, unless there is nothing at all to show.
  const shown = sources.flatMap((source, i) => {
    const page = pages[i] as UseQueryResult<Page>;
    const byState = counts[i] as UseQueryResult<StateCounts>;
    return page.data && page.data.items.length === 0 ? [] : [{ source, page, byState }];
  });
  const settled = pages.every((p) => !p.isPending);
  return (
    <Box component="section" aria-labelledby="your-work">
      <Group justify="space-between" align="baseline" mb="md">
        <Title order={2} id="your-work" size="h3">
          Your work
        </Title>
        {since && (
          <Text size="sm" c="dimmed">
            Since your last visit{' '}
            <time dateTime={since} title={formatDateTime(since)}>
              {formatRelative(since)}
            </time>
          </Text>
        )}
      </Group>
      {settled && shown.length === 0 ? (
        <Text c="dimmed">Nothing names you yet: records you are given or create will be listed here.</Text>
      ) : (
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
          {shown.map(({ source, page, byState }) => (
            <WorkCard
              key={`${source.entity.name}.${source.field}`}
              model={model}
              me={me}
              source={source}
              page={page}
              byState={byState}
              since={since}
            />
          ))}
        </SimpleGrid>
      )}
    </Box>
  );
}

function WorkCard({
  model,
  me,
  source,
  page,
  byState,
  since,
}: {
  model: Model;
  me: Me;
  source: WorkSource;
  page: UseQueryResult<Page>;
  byState: UseQueryResult<StateCounts>;
  since: string | null;
}) {
  const { entity, field } = source;
  const userId = me.user?.id ?? '';
  const machine = machineOf(model, entity.name);
  const screen = listScreen(model, me, entity.name);
  // The list screen filtered as this card is (and by a state): its address, as the list writes it.
  const filtered = (state: string | null) =>
    screen && screen.filters.length === 0 && field !== 'created_by'
      ? `${screen.route}?${new URLSearchParams([
          ...mineParams(source, userId),
          ...(state === null ? [] : filterParams('state', { values: [state] })),
        ])}`
      : null;
  const items = page.data?.items ?? [];
  const total = page.data?.total ?? items.length;
  const counts = new Map<string, number>();
  if (byState.data) {
    for (const g of byState.data.groups ?? []) if (typeof g.value === 'string') counts.set(g.value, g.count);
  } else if (byState.isError || byState.fetchStatus === 'idle') {
    // No summary call (point 7 declares the calls and no dashboard counts these): the records at hand.
    for (const r of items) if (typeof r.state === 'string') counts.set(r.state, (counts.get(r.state) ?? 0) + 1);
  }
  const changed = since ? items.filter((r) => r.updated_at > since) : [];
  const id = `work-${entity.name}-${field}`;

  return (
    <Card withBorder radius="lg" padding="md" component="article" aria-labelledby={id}>
      <Group justify="space-between" gap="xs" mb="xs" wrap="nowrap">
        <Title order={3} size="h5" id={id}>
          {source.title}
        </Title>
        {page.data && (
          <Badge variant="light" color="gray" aria-label={`${total} in all`} style={{ flexShrink: 0 }}>
            {total}
          </Badge>
        )}
      </Group>
      {page.isPending ? (
        <Stack gap={6} aria-busy="true" aria-label={`Loading ${source.title.toLowerCase()}`}>
          <Skeleton height={12} width="60%" />
          <Skeleton height={12} />
          <Skeleton height={12} />
        </Stack>
      ) : page.isError ? (
        <Text size="sm" c="red">
          {page.error instanceof Error ? page.error.message : 'Could not load them.'}
        </Text>
      ) : items.length === 0 ? (
        <Text size="sm" c="dimmed">
          None now.
        </Text>
      ) : (
        <Stack gap="xs">
          {machine && counts.size > 0 && (
            <Group gap={6} role="group" aria-label="How many in each state">
              {machine.states
                .filter((s) => counts.has(s.name))
                .map((s) => {
                  const to = filtered(s.name);
                  const badge = (
                    <Badge
                      key={s.name}
                      variant="light"
                      color={stateColor(machine, s.name)}
                      style={{ textTransform: 'none' }}
                    >
                      {stateLabel(s.name)}: {counts.get(s.name)}
                    </Badge>
                  );
                  return to ? (
                    <Anchor key={s.name} component={Link} to={to} underline="never">
                      {badge}
                    </Anchor>
                  ) : (
                    <span key={s.name}>{badge}</span>
                  );
                })}
            </Group>
          )}
          {changed.length > 0 && (
            <Text size="sm" fw={600} c="blue.8">
              {changed.length} changed since your last visit
            </Text>
          )}
          <Stack gap={4} component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
            {items.slice(0, LISTED).map((r) => (
              <WorkRow key={r.id} model={model} me={me} entity={entity} record={r} fresh={changed.includes(r)} />
            ))}
          </Stack>
          {total > LISTED && filtered(null) && (
            <Anchor component={Link} to={filtered(null) ?? ''} size="sm">
              All {total}
            </Anchor>
          )}
        </Stack>
      )}
    </Card>
  );
}

function WorkRow({
  model,
  me,
  entity,
  record,
  fresh,
}: {
  model: Model;
  me: Me;
  entity: Entity;
  record: ApiRecord;
  fresh: boolean;
}) {
  const title = useRecordTitle(model, entity.name, record);
  const to = detailRoute(model, me, entity.name, record.id);
  const machine = machineOf(model, entity.name);
  return (
    <Group component="li" gap="xs" wrap="nowrap" justify="space-between">
      <Text size="sm" truncate="end" style={{ minWidth: 0 }} title={title}>
        {fresh && (
          <Text span c="blue.8" fw={700} aria-label="Changed since your last visit">
            •{' '}
          </Text>
        )}
        {to ? (
          <Anchor component={Link} to={to} inherit>
            {title}
          </Anchor>
        ) : (
          title
        )}
      </Text>
      <Group gap={6} wrap="nowrap" style={{ flexShrink: 0 }}>
        {typeof record.state === 'string' && (
          <Badge size="sm" variant="light" color={stateColor(machine, record.state)}>
            {stateLabel(record.state)}
          </Badge>
        )}
        <Text size="xs" c="dimmed">
          <time dateTime={record.updated_at} title={formatDateTime(record.updated_at)}>
            {formatRelative(record.updated_at)}
          </time>
        </Text>
      </Group>
    </Group>
  );
}
