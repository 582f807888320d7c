import { Anchor, Badge, Button, Group, Paper, ScrollArea, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { type Entity, type Field, type Model, type Screen, threadOf } from '@ninepoint/spec';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../api/client.ts';
import type { Me } from '../api/session.ts';
import { fieldLabel, pluralLabel } from '../app/screens.ts';
import { formatDateTime, formatRelative } from '../fields/display.ts';
import { FieldValue } from '../fields/FieldValue.tsx';
import { PlusIcon } from '../list/icons.tsx';
import { filterParams, listColumns } from '../list/query.ts';
import { accessTo, stateColor, stateLabel } from './access.ts';
import { type ApiRecord, callFor, machineOf, type Page, pathOf } from './calls.ts';
import { entityLabel, entityWords } from './labels.ts';
import { createRoute, detailRoute, listScreen } from './navigation.ts';
import { titleFields, useRecordTitle } from './title.ts';

/** For an entity no list screen shows: no `where` fixes a column. */
const NO_SCREEN = { filters: [] } as unknown as Screen;

/** How many related records a panel shows; "Show all" opens the list for more. */
const PANEL_ROWS = 10;

/** An entity whose records name this one, through one reference field, that the user may list. */
export interface Referrer {
  entity: Entity;
  field: Field;
}

/**
 * The entities whose records refer to records of `parent` (a Doctor's Appointments, a Talk's
 * Reviews), each through one reference field, when the user may read them and the API lists
 * them. Threads are left out: they are shown as a conversation (`Thread.tsx`).
 */
export function referrersOf(model: Model, me: Me, parent: string): Referrer[] {
  const found: Referrer[] = [];
  for (const entity of model.entities) {
    if (accessTo(me, entity.name).read === 'none' || !callFor(model, entity.name, 'list')) continue;
    const thread = threadOf(model, entity.name);
    for (const field of entity.fields) {
      if (field.type.kind !== 'reference' || field.type.entity !== parent) continue;
      if (thread && thread.parentField === field.name) continue;
      found.push({ entity, field });
    }
  }
  return found;
}

/** The list call's query for the records that name `id` in `field`, oldest first. */
export function referringQuery(field: string, id: string, limit: number): string {
  return new URLSearchParams([
    ['limit', String(limit)],
    ['sort', 'created_at'],
    ['count', 'true'],
    ...filterParams(field, { values: [id] }),
  ]).toString();
}

/** The records referring to one record: a panel per referring entity and field. */
export function RelatedRecords({
  model,
  me,
  parent,
  record,
}: {
  model: Model;
  me: Me;
  parent: Entity;
  record: ApiRecord;
}) {
  const referrers = referrersOf(model, me, parent.name);
  if (referrers.length === 0) return null;
  const several = (entity: string) => referrers.filter((r) => r.entity.name === entity).length > 1;
  return (
    <>
      {referrers.map((r) => (
        <RelatedPanel
          key={`${r.entity.name}.${r.field.name}`}
          model={model}
          me={me}
          referrer={r}
          record={record}
          heading={
            several(r.entity.name)
              ? `${pluralLabel(r.entity.name)} (${fieldLabel(r.field)})`
              : pluralLabel(r.entity.name)
          }
        />
      ))}
    </>
  );
}

function RelatedPanel({
  model,
  me,
  referrer,
  record,
  heading,
}: {
  model: Model;
  me: Me;
  referrer: Referrer;
  record: ApiRecord;
  heading: string;
}) {
  const { entity, field } = referrer;
  const list = callFor(model, entity.name, 'list');
  const path = list ? pathOf(list) : '';
  const page = useQuery({
    // Keyed as a list, so a change to these records (live updates, a write) fetches it again.
    queryKey: ['list', path, 'related', field.name, record.id],
    queryFn: async () => (await api<Page>('GET', `${path}?${referringQuery(field.name, record.id, PANEL_ROWS)}`)).body,
    enabled: Boolean(list),
  });
  const machine = machineOf(model, entity.name);
  // "Show all" opens a list the user may open that no `where` narrows; the panel's columns are
  // the entity's own, whatever a list screen's filter fixes.
  const shown = listScreen(model, me, entity.name);
  const all = shown?.kind === 'list' && shown.filters.length === 0 ? shown : null;
  const title = titleFields(entity)[0];
  // The list's columns but the reference itself (every row names this record) and the title,
  // which leads every row as its link.
  const columns = listColumns(entity, machine, NO_SCREEN, title, { max: 4, model }).filter(
    (c) => c.name !== field.name && c.name !== title?.name,
  );
  const access = accessTo(me, entity.name);
  const canCreate = access.create && (access.createFields === null || access.createFields.includes(field.name));
  const add = canCreate ? createRoute(model, me, entity.name) : null;
  const id = `related-${entity.name}-${field.name}`;
  const total = page.data?.total ?? page.data?.items.length ?? 0;

  return (
    <Paper withBorder radius="md" p="lg" component="section" aria-labelledby={id}>
      <Group justify="space-between" mb="sm" gap="xs">
        <Group gap="xs">
          <Title order={2} size="h4" id={id}>
            {heading}
          </Title>
          {page.data && (
            <Badge variant="light" color="gray" aria-label={`${total} in all`}>
              {total}
            </Badge>
          )}
        </Group>
        {add && (
          <Button
            component={Link}
            to={`${add}?${new URLSearchParams({ [field.name]: record.id })}`}
            size="xs"
            variant="light"
            leftSection={<PlusIcon size={14} />}
          >
            Add {entityWords(entity.name)}
          </Button>
        )}
      </Group>
      {page.isPending ? (
        <Stack gap="xs" aria-busy="true" aria-label={`Loading the ${pluralLabel(entity.name).toLowerCase()}`}>
          <Skeleton height={14} />
          <Skeleton height={14} />
        </Stack>
      ) : page.isError ? (
        <Text size="sm" c="red">
          {page.error instanceof Error ? page.error.message : 'Could not load them.'}
        </Text>
      ) : page.data.items.length === 0 ? (
        <Text size="sm" c="dimmed">
          None yet.
        </Text>
      ) : (
        <ScrollArea.Autosize type="auto" offsetScrollbars>
          <Table verticalSpacing={6} highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th style={{ whiteSpace: 'nowrap' }}>{entityLabel(entity.name)}</Table.Th>
                {columns.map((c) => (
                  <Table.Th key={c.name} style={{ whiteSpace: 'nowrap' }}>
                    {c.label}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {page.data.items.map((row) => (
                <Table.Tr key={row.id}>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    <RowTitle model={model} me={me} entity={entity} row={row} />
                  </Table.Td>
                  {columns.map((c) => (
                    <Table.Td key={c.name} style={{ whiteSpace: 'nowrap' }}>
                      {c.name === 'state' ? (
                        <Badge variant="light" color={stateColor(machine, String(row.state))}>
                          {stateLabel(String(row.state))}
                        </Badge>
                      ) : c.field ? (
                        <FieldValue model={model} field={c.field} value={row[c.name]} />
                      ) : (
                        <time dateTime={String(row[c.name])} title={formatDateTime(String(row[c.name]))}>
                          {formatRelative(String(row[c.name]))}
                        </time>
                      )}
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea.Autosize>
      )}
      {page.data && total > page.data.items.length && all && (
        <Text size="sm" mt="xs">
          {page.data.items.length} of {total} shown.{' '}
          <Anchor
            component={Link}
            to={`${all.route}?${new URLSearchParams(filterParams(field.name, { values: [record.id] }))}`}
          >
            Show all
          </Anchor>
        </Text>
      )}
    </Paper>
  );
}

function RowTitle({ model, me, entity, row }: { model: Model; me: Me; entity: Entity; row: ApiRecord }) {
  const title = useRecordTitle(model, entity.name, row);
  const to = detailRoute(model, me, entity.name, row.id);
  return to ? (
    <Anchor component={Link} to={to} fw={500}>
      {title}
    </Anchor>
  ) : (
    <Text span fw={500}>
      {title}
    </Text>
  );
}
