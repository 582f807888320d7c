import {
  Anchor,
  Box,
  Button,
  Checkbox,
  Group,
  NativeSelect,
  Paper,
  Skeleton,
  Stack,
  Text,
  VisuallyHidden,
} from '@mantine/core';
import { useId } from 'react';
import { Link } from 'react-router';
import { type ApiRecord, recordTitle } from '../format.ts';
import { SortIcon } from './icons.tsx';
import type { ListField } from './query.ts';
import { Cell, type RecordsViewProps } from './RecordsTable.tsx';

/**
 * One page of records as cards, for a phone's width: a table of six columns cannot be read in
 * 390 pixels, a card per record can. Each card names its record (a link to its detail screen),
 * shows its state, and lists the other columns as label and value, one per line. The sort the
 * table's headers give is a select here.
 */
export function RecordCards({
  model,
  me,
  entity,
  machine,
  columns,
  records,
  sort,
  sortable,
  onSort,
  caption,
  titleColumn,
  detailHref,
  titles,
  users,
  loading,
  busy,
  pageSize,
  selection,
}: RecordsViewProps) {
  const sortId = useId();
  const states = machine?.states.map((s) => s.name) ?? [];
  const stateColumn = columns.find((c) => c.name === 'state');
  const rest = columns.filter((c) => c.name !== titleColumn && c.name !== 'state');
  const sortColumns = columns.filter((c) => sortable.has(c.name));
  const sorted = sortColumns.some((c) => c.name === sort.field);
  const cell = (column: ListField, record: ApiRecord) => (
    <Cell model={model} me={me} column={column} record={record} states={states} titles={titles} users={users} />
  );

  return (
    <Stack gap="sm">
      {selection && (
        <Checkbox
          label="Select every card on this page"
          checked={records.length > 0 && records.every((r) => selection.selected.has(String(r.id)))}
          indeterminate={
            records.some((r) => selection.selected.has(String(r.id))) &&
            !records.every((r) => selection.selected.has(String(r.id)))
          }
          disabled={loading || records.length === 0}
          onChange={(e) => selection.onToggleAll(e.currentTarget.checked)}
        />
      )}
      {sortColumns.length > 0 && (
        <Group gap="xs" wrap="nowrap" align="flex-end">
          <NativeSelect
            id={sortId}
            label="Sort by"
            size="sm"
            style={{ flex: '1 1 auto', minWidth: 0 }}
            value={sorted ? sort.field : ''}
            onChange={(event) => {
              const field = event.currentTarget.value;
              if (field !== '' && field !== sort.field) onSort(field);
            }}
            data={[
              ...(sorted ? [] : [{ value: '', label: 'When created' }]),
              ...sortColumns.map((c) => ({ value: c.name, label: c.label })),
            ]}
          />
          {sorted && (
            <Button
              variant="default"
              size="sm"
              onClick={() => onSort(sort.field)}
              leftSection={<SortIcon direction={sort.descending ? 'descending' : 'ascending'} />}
            >
              {sort.descending ? 'Descending' : 'Ascending'}
              <VisuallyHidden component="span">
                {sort.descending ? '; clear the sort' : '; sort descending'}
              </VisuallyHidden>
            </Button>
          )}
        </Group>
      )}
      <Box
        component="ul"
        aria-label={caption}
        aria-busy={loading || busy}
        style={{
          listStyle: 'none',
          padding: 0,
          margin: 0,
          display: 'grid',
          gap: 'var(--mantine-spacing-sm)',
          opacity: busy ? 0.6 : 1,
          transition: 'opacity 120ms',
        }}
      >
        {loading
          ? Array.from({ length: Math.min(pageSize, 4) }, (_, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: placeholders have no identity
              <Paper component="li" key={i} withBorder radius="md" p="md">
                <Skeleton height={14} width="70%" radius="sm" mb="sm" />
                <Skeleton height={10} width="45%" radius="sm" />
              </Paper>
            ))
          : records.map((record) => {
              const href = detailHref(record);
              const name = recordTitle(entity, record);
              return (
                <Paper component="li" key={String(record.id)} withBorder radius="md" p="md">
                  <Group justify="space-between" align="flex-start" gap="xs" wrap="nowrap" mb={rest.length ? 'xs' : 0}>
                    {selection && (
                      <Checkbox
                        mt={2}
                        aria-label={`Select ${name}`}
                        checked={selection.selected.has(String(record.id))}
                        onChange={(e) => selection.onToggle(record, e.currentTarget.checked)}
                      />
                    )}
                    <Text fw={600} size="sm" style={{ overflowWrap: 'anywhere', minWidth: 0, flex: 1 }}>
                      {href ? (
                        <Anchor component={Link} to={href} inherit>
                          {titleColumn === null ? `Open ${name}` : name}
                        </Anchor>
                      ) : (
                        name
                      )}
                    </Text>
                    {stateColumn && record.state !== null && record.state !== undefined && (
                      <Box style={{ flex: 'none' }}>{cell(stateColumn, record)}</Box>
                    )}
                  </Group>
                  {rest.length > 0 && (
                    <Box
                      component="dl"
                      m={0}
                      style={{
                        display: 'grid',
                        gridTemplateColumns: 'minmax(6rem, 40%) minmax(0, 1fr)',
                        columnGap: 'var(--mantine-spacing-sm)',
                        rowGap: 4,
                      }}
                    >
                      {rest.map((column) => (
                        <Box key={column.name} style={{ display: 'contents' }}>
                          <Text component="dt" size="sm" c="dimmed">
                            {column.label}
                          </Text>
                          <Box component="dd" m={0} style={{ overflowWrap: 'anywhere', minWidth: 0 }}>
                            {cell(column, record)}
                          </Box>
                        </Box>
                      ))}
                    </Box>
                  )}
                </Paper>
              );
            })}
      </Box>
    </Stack>
  );
}
