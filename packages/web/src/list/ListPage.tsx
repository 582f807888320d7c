import {
  Alert,
  Badge,
  Box,
  Button,
  CloseButton,
  EmptyState,
  Group,
  NativeSelect,
  Paper,
  SegmentedControl,
  Stack,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { ANYONE, assertNever } from '@ninepoint/spec';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { ScreenProps } from '../app/context.ts';
import { PHONE, useMedia } from '../app/media.ts';
import { Failure } from '../app/pages.tsx';
import {
  callOf,
  choiceLabel,
  createScreen,
  label,
  mayCreate,
  pathLabel,
  pluralLabel,
  refusal,
  routeTo,
  screenDoc,
  screenFor,
  screenTitle,
} from '../app/screens.ts';
import { type ApiRecord, formatDate, formatDateTime, formatNumber } from '../format.ts';
import { stateLabel } from '../records/access.ts';
import { BulkBar } from './BulkBar.tsx';
import { ExportButton } from './ExportButton.tsx';
import { referenceNames } from './export.ts';
import { FilterBuilder } from './FilterBuilder.tsx';
import { type ListPageAnswer, type ListSetup, listPageQuery, listSetup, stateKeyOf, stateOf } from './first-page.ts';
import { ImportWizard } from './ImportWizard.tsx';
import { ChevronLeftIcon, ChevronRightIcon, PlusIcon, SearchIcon } from './icons.tsx';
import { DebouncedInput } from './inputs.tsx';
import { useListLayout } from './layout.ts';
import {
  apiQuery,
  DEFAULT_SORT,
  exportFields,
  type FieldFilter,
  type FilterField,
  filterFields,
  isActive,
  type ListState,
  listColumns,
  maxPageSize,
  pageUserIds,
  passesLocal,
  refersToUsers,
  writeListState,
} from './query.ts';
import { RecordCards } from './RecordCards.tsx';
import { RecordsTable } from './RecordsTable.tsx';
import { type ReferenceKey, useRecordTitles, userLabel, useUserDirectory } from './references.tsx';
import { ColumnsButton, SavedViewsButton } from './ViewControls.tsx';

// Fetched with the screen's code when a link to it is hovered (screens/route-data.ts).
export { prefetchListScreen } from './first-page.ts';

/**
 * The `list` screen: records of an entity, a page at a time from the API (keyset cursors, so a
 * long list never loads at once), sortable by any column, filtered per field and by the screen's
 * `where`, searched by text, exported as CSV. The sort, filters, search and page size live in the
 * address, so a link or the back button shows the same list.
 */
/**
 * A filter chip: shown whole when it fits, cut with an ellipsis at the width of the line when it
 * does not (a long name on a phone), the whole text in its title. The theme keeps other badges at
 * their text's width.
 */
const CHIP_STYLE = { textTransform: 'none', fontWeight: 500, minWidth: 0, maxWidth: '100%' } as const;

export function ListPage(props: ScreenProps) {
  const { model, me, screen } = props;
  const setup = useMemo(() => listSetup(model, me, screen), [model, me, screen]);
  if (!setup) {
    return (
      <Stack gap="md">
        <Title order={1}>{screenTitle(screen, model)}</Title>
        <Alert color="yellow" title="Nothing to list">
          The spec serves no call that lists {screen.entity ? pluralLabel(screen.entity).toLowerCase() : 'records'}{' '}
          (point 7), so this screen has nothing to show.
        </Alert>
      </Stack>
    );
  }
  return <ListView key={screen.route} {...props} setup={setup} />;
}

function ListView({ model, me, screen, setup }: ScreenProps & { setup: ListSetup }) {
  const { entity, machine, path, searchable, sortable, fixed, filters, sizes, titleOf, choices } = setup;
  const title = screenTitle(screen, model);
  const doc = screenDoc(screen);
  const plural = pluralLabel(entity.name).toLowerCase();
  const createForm = createScreen(model, me, entity.name);
  // The import sits beside the create call, for whoever may make it.
  const createCall = callOf(model, entity.name, 'create');
  const importPath = createCall && mayCreate(model, me, entity.name) ? createCall.path : null;
  const [importing, setImporting] = useState(false);
  const detail = screenFor(model, entity.name, 'detail', true);
  const detailOpen = detail !== undefined && refusal(detail, me) === null;

  const [params, setParams] = useSearchParams();
  // A phone's width shows cards: a table's columns do not fit it.
  const phone = useMedia(PHONE);
  const Records = phone ? RecordCards : RecordsTable;
  const layout = useListLayout(me.user?.id ?? null, screen.route);
  const state = stateOf(setup, params);
  // The same columns from one drawing to the next while the address names the same ones.
  const shownText = state.columns?.join(',') ?? null;
  const columns = useMemo(() => {
    const shown = shownText?.split(',');
    return shown
      ? choices.filter((c) => shown.includes(c.name))
      : listColumns(entity, machine, screen, titleOf, { model });
  }, [shownText, choices, entity, machine, screen, titleOf, model]);
  // From the address as it is now, not as it was at the last render: two quick clicks must both count.
  const update = (patch: Partial<ListState> | ((current: ListState) => Partial<ListState>), replace = false) => {
    const current = stateOf(setup, new URLSearchParams(window.location.search));
    const change = typeof patch === 'function' ? patch(current) : patch;
    setParams(writeListState({ ...current, ...change }, sizes.initial), { replace });
  };

  // Pages already passed, as the cursors that reach them; a new sort, filter or search starts over.
  const stateKey = stateKeyOf(setup, state);
  const [paging, setPaging] = useState<{ key: string; cursors: string[] }>({ key: stateKey, cursors: [] });
  const cursors = paging.key === stateKey ? paging.cursors : [];
  const cursor = cursors.at(-1) ?? null;
  const client = useQueryClient();
  // Fetched ahead when a link here was hovered (`prefetchListScreen`): then the rows draw at once.
  const query = useQuery({
    ...listPageQuery(client, setup, state, cursor, me.user !== null),
    placeholderData: keepPreviousData,
  });
  const firstPage = cursor === null ? query.data : client.getQueryData<ListPageAnswer>(['list', path, stateKey, null]);
  const total = fixed.local.length === 0 ? firstPage?.total : undefined;
  const records = (query.data?.items ?? []).filter((r) => passesLocal(r, fixed.local));
  const stale = query.isPlaceholderData;

  // Rows picked for bulk actions, kept across pages; a new sort, filter or search starts over.
  const [picked, setPicked] = useState<{ key: string; records: Map<string, ApiRecord> }>({
    key: stateKey,
    records: new Map(),
  });
  const selected = picked.key === stateKey ? picked.records : new Map<string, ApiRecord>();
  const pick = (change: (records: Map<string, ApiRecord>) => void) => {
    const next = new Map(selected);
    change(next);
    setPicked({ key: stateKey, records: next });
  };

  // Every user the page names, as its query asked for them when it arrived (`listPageQuery`).
  const users = useUserDirectory(me, pageUserIds(entity, query.data?.items ?? []));
  const references: ReferenceKey[] = [];
  for (const column of columns) {
    if (column.type.kind !== 'reference' || refersToUsers(column.type)) continue;
    for (const record of records) {
      const id = record[column.name];
      if (typeof id === 'string') references.push({ entity: column.type.entity, id });
    }
  }
  for (const field of filterFields(entity, machine)) {
    const value = state.filters[field.name]?.values?.[0];
    if (value && field.type.kind === 'reference' && !refersToUsers(field.type)) {
      references.push({ entity: field.type.entity, id: value });
    }
  }
  const titles = useRecordTitles(model, me, references);

  const activeFilters = Object.entries(state.filters);
  const narrowed = activeFilters.length > 0 || state.groups.length > 0 || state.q.trim() !== '';
  const sortField = state.sort?.replace(/^-/, '') ?? DEFAULT_SORT;
  const descending = state.sort?.startsWith('-') ?? false;

  const sortBy = (field: string) =>
    update((current) => {
      // Ascending, then descending, then back to the list's own order.
      const at = current.sort?.replace(/^-/, '') ?? DEFAULT_SORT;
      const down = current.sort?.startsWith('-') ?? false;
      return { sort: at !== field || current.sort === null ? field : down ? null : `-${field}` };
    });
  /** A field's filter replaced, or removed (`{}`): the chips' close buttons. */
  const setFilter = (field: string, filter: FieldFilter) =>
    update((current) => {
      const next = { ...current.filters };
      if (isActive(filter)) next[field] = filter;
      else delete next[field];
      return { filters: next };
    });

  /** A condition of the filter builder: with the others, or into an or-group (a new one past the last). */
  const addCondition = (target: 'and' | number, field: string, filter: FieldFilter) =>
    update((current) => {
      if (target === 'and')
        return { filters: { ...current.filters, [field]: { ...current.filters[field], ...filter } } };
      const groups = [...current.groups];
      const group = { ...(groups[target] ?? {}) };
      group[field] = { ...group[field], ...filter };
      groups[target] = group;
      return { groups };
    });
  const removeGroup = (index: number) =>
    update((current) => ({ groups: current.groups.filter((_, i) => i !== index) }));

  const from = cursors.length * state.size + 1;
  const to = from + (query.data?.items.length ?? 0) - 1;
  const summary = query.isPending
    ? `Loading ${plural}…`
    : records.length === 0
      ? `No ${plural}`
      : `Showing ${formatNumber(from)}–${formatNumber(to)}${total !== undefined ? ` of ${formatNumber(total)}` : ''} ${plural}`;
  const sortLabel = columnLabel(sortField);
  const caption = `${title}: ${summary}, sorted by ${sortLabel.toLowerCase()}, ${descending ? 'descending' : 'ascending'}`;

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start" gap="md">
        <Box miw={0}>
          <Title order={1}>{title}</Title>
          {doc && (
            <Text c="dimmed" mt={4}>
              {doc}
            </Text>
          )}
        </Box>
        <Group gap="sm" style={{ position: 'relative' }}>
          <ExportButton
            filename={`${path.split('/').pop() ?? 'records'}-${new Date().toISOString().slice(0, 10)}.csv`}
            options={{
              path,
              fields: exportFields(entity, machine),
              names: referenceNames(model, me, entity),
              query: (next) =>
                apiQuery(state, fixed, { limit: maxPageSize(model), cursor: next }, searchable.length > 0),
              ...(fixed.local.length > 0 ? { keep: (r: ApiRecord) => passesLocal(r, fixed.local) } : {}),
            }}
          />
          {importPath && (
            <>
              <Button variant="default" onClick={() => setImporting(true)}>
                Import
              </Button>
              <ImportWizard
                entity={entity}
                path={importPath}
                opened={importing}
                onClose={() => setImporting(false)}
                onImported={() => void client.invalidateQueries({ queryKey: ['list', path] })}
              />
            </>
          )}
          {createForm && (
            <Button component={Link} to={createForm.route} leftSection={<PlusIcon size={16} />}>
              New {label(entity.name).toLowerCase()}
            </Button>
          )}
        </Group>
      </Group>

      <Stack gap="sm">
        <Group gap="sm" align="flex-end" wrap="wrap">
          {searchable.length > 0 && (
            <Box component="search" flex="1 1 200px" maw={520}>
              <DebouncedInput
                type="search"
                aria-label={`Search ${title.toLowerCase()}`}
                placeholder={`Search by ${searchable
                  .slice(0, 3)
                  .map((f) => label(f.name).toLowerCase())
                  .join(', ')}${searchable.length > 3 ? '…' : ''}`}
                leftSection={<SearchIcon size={16} />}
                value={state.q}
                onCommit={(q) => update({ q }, true)}
              />
            </Box>
          )}
          {filters.length > 0 && (
            <FilterBuilder model={model} me={me} fields={filters} groups={state.groups} onAdd={addCondition} />
          )}
          <ColumnsButton
            choices={choices}
            shown={columns.map((c) => c.name)}
            onChange={(next) => update({ columns: next })}
          />
          {!phone && (
            <SegmentedControl
              aria-label="Row density"
              data={[
                { value: 'compact', label: 'Compact' },
                { value: 'comfortable', label: 'Comfortable' },
              ]}
              value={layout.density}
              onChange={(value) => layout.setDensity(value === 'comfortable' ? 'comfortable' : 'compact')}
            />
          )}
          {me.user && (
            <SavedViewsButton
              screen={screen.route}
              path={screen.route}
              current={params.toString()}
              shareRoles={shareRoles(model, me, screen)}
            />
          )}
        </Group>

        {(screen.filters.length > 0 || activeFilters.length > 0 || state.groups.length > 0) && (
          <Group gap="xs" aria-label="Filters in effect" role="group">
            {screen.filters.map((f) => (
              <Badge
                key={`fixed-${f.field}`}
                variant="light"
                color="gray"
                radius="sm"
                size="lg"
                style={CHIP_STYLE}
                title={`${pathLabel(f.field)}: ${'me' in f.value ? 'you' : String(f.value.literal)}`}
              >
                {pathLabel(f.field)}: {'me' in f.value ? 'you' : String(f.value.literal)}
              </Badge>
            ))}
            {activeFilters.map(([name, value]) => (
              <Badge
                key={name}
                variant="light"
                radius="sm"
                size="lg"
                style={CHIP_STYLE}
                title={`${filterLabel(filters, name)}: ${filterValueLabel(filters, name, value, (id) => userLabel(id, users, me), titles)}`}
                rightSection={
                  <CloseButton
                    size="xs"
                    variant="transparent"
                    aria-label={`Remove the filter ${filterLabel(filters, name)}`}
                    onClick={() => setFilter(name, {})}
                  />
                }
              >
                {filterLabel(filters, name)}:{' '}
                {filterValueLabel(filters, name, value, (id) => userLabel(id, users, me), titles)}
              </Badge>
            ))}
            {state.groups.map((group, i) => {
              const words = Object.entries(group)
                .map(
                  ([name, value]) =>
                    `${filterLabel(filters, name)}: ${filterValueLabel(filters, name, value, (id) => userLabel(id, users, me), titles)}`,
                )
                .join(' or ');
              return (
                // Words that wrap on a narrow screen: an either-group can be long.
                <Group
                  // biome-ignore lint/suspicious/noArrayIndexKey: a group is its place in the address
                  key={`group-${i}`}
                  data-filter-group
                  gap={4}
                  wrap="nowrap"
                  pl="sm"
                  pr={4}
                  py={3}
                  maw="100%"
                  bg="var(--mantine-color-grape-light)"
                  style={{ borderRadius: 4 }}
                >
                  <Text
                    size="sm"
                    fw={500}
                    c="var(--mantine-color-grape-light-color)"
                    style={{ overflowWrap: 'anywhere' }}
                  >
                    Either {words}
                  </Text>
                  <CloseButton
                    size="xs"
                    variant="transparent"
                    aria-label={`Remove the filter Either ${words}`}
                    onClick={() => removeGroup(i)}
                  />
                </Group>
              );
            })}
            {activeFilters.length + state.groups.length > 1 && (
              <Button size="compact-sm" variant="subtle" onClick={() => update({ filters: {}, groups: [] })}>
                Clear filters
              </Button>
            )}
          </Group>
        )}
      </Stack>

      <BulkBar
        model={model}
        me={me}
        entity={entity}
        machine={machine}
        // As the page shows them now: a bulk transition changed their state, an export must say so.
        selected={[...selected.values()].map((r) => records.find((shown) => shown.id === r.id) ?? r)}
        fields={exportFields(entity, machine)}
        filename={`${path.split('/').pop() ?? 'records'}-selected-${new Date().toISOString().slice(0, 10)}.csv`}
        onClear={() => pick((records) => records.clear())}
        onDone={(ids) =>
          pick((records) => {
            for (const id of ids) records.delete(id);
          })
        }
      />

      {query.isError ? (
        <Stack gap="sm">
          <Failure error={query.error} retry={() => void query.refetch()} />
          {narrowed && (
            <Button
              variant="default"
              w="fit-content"
              onClick={() => update({ q: '', filters: {}, groups: [], sort: null })}
            >
              Show the whole list
            </Button>
          )}
        </Stack>
      ) : !query.isPending && records.length === 0 && cursors.length === 0 ? (
        <Paper withBorder radius="lg" py="xl" data-empty-list>
          <EmptyState
            title={
              narrowed ? `No ${plural} match` : screen.filters.length > 0 ? `No ${plural} here` : `No ${plural} yet`
            }
            description={
              narrowed
                ? 'Nothing matches this search and these filters. Try fewer of them.'
                : screen.filters.length > 0
                  ? `No ${plural} have ${screen.filters
                      .map(
                        (f) =>
                          `${pathLabel(f.field).toLowerCase()} ${'me' in f.value ? 'you' : String(f.value.literal)}`,
                      )
                      .join(' and ')} at the moment.`
                  : createForm
                    ? 'The first one you make shows here.'
                    : `When there are ${plural} to show, they appear here.`
            }
          >
            <EmptyState.Actions>
              {narrowed && (
                <Button variant="default" onClick={() => update({ q: '', filters: {}, groups: [] })}>
                  Clear search and filters
                </Button>
              )}
              {createForm && !narrowed && screen.filters.length === 0 && (
                <Button component={Link} to={createForm.route} leftSection={<PlusIcon size={16} />}>
                  New {label(entity.name).toLowerCase()}
                </Button>
              )}
            </EmptyState.Actions>
          </EmptyState>
        </Paper>
      ) : (
        <Records
          model={model}
          me={me}
          entity={entity}
          machine={machine}
          columns={columns}
          records={records}
          sort={{ field: sortField, descending }}
          sortable={sortable}
          onSort={sortBy}
          caption={caption}
          titleColumn={titleOf?.name ?? null}
          detailHref={(record) =>
            detailOpen && detail ? routeTo(detail, { [detail.params[0] ?? 'id']: String(record.id) }) : null
          }
          titles={titles}
          users={users}
          loading={query.isPending}
          busy={stale}
          pageSize={state.size}
          density={layout.density}
          widths={layout.widths}
          onResize={layout.setWidth}
          selection={{
            selected: new Set(selected.keys()),
            onToggle: (record, on) =>
              pick((picks) => {
                if (on) picks.set(String(record.id), record);
                else picks.delete(String(record.id));
              }),
            onToggleAll: (on) =>
              pick((picks) => {
                for (const record of records) {
                  if (on) picks.set(String(record.id), record);
                  else picks.delete(String(record.id));
                }
              }),
          }}
        />
      )}

      {records.length === 0 && cursors.length === 0 && (
        <VisuallyHidden role="status" aria-live="polite">
          {summary}
        </VisuallyHidden>
      )}
      {(records.length > 0 || cursors.length > 0) && (
        <Pager
          summary={summary}
          hasPrevious={cursors.length > 0}
          hasNext={Boolean(query.data?.next) && !stale}
          size={state.size}
          sizes={sizes.options}
          onSize={(size) => update({ size })}
          onPrevious={() => setPaging({ key: stateKey, cursors: cursors.slice(0, -1) })}
          onNext={() => {
            const next = query.data?.next;
            if (next) setPaging({ key: stateKey, cursors: [...cursors, next] });
          }}
          busy={query.isFetching}
        />
      )}
    </Stack>
  );
}

/**
 * The roles the user may share a view of this screen with (as the server allows): those they hold,
 * or any when they manage people, that may open the screen.
 */
function shareRoles(model: ScreenProps['model'], me: ScreenProps['me'], screen: ScreenProps['screen']): string[] {
  const mine = me.user?.roles ?? [];
  const all = model.roles.map((r) => r.name).filter((r) => r !== ANYONE);
  const opens = (role: string) => screen.who.length === 0 || screen.who.includes(ANYONE) || screen.who.includes(role);
  return (me.people?.manage ? all : mine.filter((r) => all.includes(r))).filter(opens);
}

function Pager({
  summary,
  hasPrevious,
  hasNext,
  size,
  sizes,
  onSize,
  onPrevious,
  onNext,
  busy,
}: {
  summary: string;
  hasPrevious: boolean;
  hasNext: boolean;
  size: number;
  sizes: number[];
  onSize: (size: number) => void;
  onPrevious: () => void;
  onNext: () => void;
  busy: boolean;
}) {
  const sizeId = useId();
  return (
    <Group justify="space-between" gap="sm" component="nav" aria-label="Pages">
      <Text size="sm" c="dimmed" role="status" aria-live="polite">
        {summary}
      </Text>
      <Group gap="md">
        <Group gap={8} wrap="nowrap">
          <Text component="label" htmlFor={sizeId} size="sm" c="dimmed">
            Rows per page
          </Text>
          <NativeSelect
            id={sizeId}
            size="xs"
            value={String(size)}
            onChange={(e) => onSize(Number(e.currentTarget.value))}
            data={sizes.map(String)}
          />
        </Group>
        <Group gap={6} wrap="nowrap">
          <Button
            variant="default"
            size="xs"
            leftSection={<ChevronLeftIcon size={14} />}
            disabled={!hasPrevious || busy}
            onClick={onPrevious}
          >
            Previous
          </Button>
          <Button
            variant="default"
            size="xs"
            rightSection={<ChevronRightIcon size={14} />}
            disabled={!hasNext || busy}
            onClick={onNext}
          >
            Next
          </Button>
        </Group>
      </Group>
    </Group>
  );
}

function columnLabel(field: string): string {
  if (field === 'created_at') return 'Created';
  if (field === 'updated_at') return 'Updated';
  if (field === 'created_by') return 'Created by';
  return label(field);
}

function filterLabel(fields: FilterField[], name: string): string {
  return fields.find((f) => f.name === name)?.label ?? label(name);
}

/** A filter as a person reads it: "State: Out or Overdue", "Title contains dune", "Copies: 2 to 4". */
function filterValueLabel(
  fields: FilterField[],
  name: string,
  filter: FieldFilter,
  user: (id: string) => string,
  titles: Map<string, string>,
): string {
  const field = fields.find((f) => f.name === name);
  const one = (value: string): string => {
    if (!field) return value;
    switch (field.kind) {
      case 'boolean':
        return value === 'true' ? 'Yes' : 'No';
      case 'choice':
        return field.name === 'state' ? stateLabel(value) : choiceLabel(value);
      case 'date':
        return formatDate(value);
      case 'datetime':
        return formatDateTime(value);
      case 'reference':
        if (field.type.kind !== 'reference') return value;
        return refersToUsers(field.type)
          ? user(value)
          : (titles.get(`${field.type.entity}:${value}`) ?? `${value.slice(0, 8)}…`);
      case 'text':
      case 'integer':
      case 'decimal':
        return value;
      default:
        return assertNever(field.kind);
    }
  };
  const parts: string[] = [];
  if (filter.values && filter.values.length > 0) parts.push(filter.values.map(one).join(' or '));
  if (filter.contains) parts.push(`contains “${filter.contains}”`);
  if (filter.from && filter.to) parts.push(`${one(filter.from)} to ${one(filter.to)}`);
  else if (filter.from) parts.push(`from ${one(filter.from)}`);
  else if (filter.to) parts.push(`up to ${one(filter.to)}`);
  if (filter.not && filter.not.length > 0) parts.push(`not ${filter.not.map(one).join(' nor ')}`);
  if (filter.after) parts.push(`after ${one(filter.after)}`);
  if (filter.before) parts.push(`before ${one(filter.before)}`);
  if (filter.empty !== undefined) parts.push(filter.empty ? 'empty' : 'not empty');
  return parts.join(', ');
}
