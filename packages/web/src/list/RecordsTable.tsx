import { Anchor, Badge, Box, Checkbox, Skeleton, Table, Text, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { assertNever, type Entity, isNumeric, type Model, type StateMachine } from '@ninepoint/spec';
import type { MouseEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import type { Me } from '../api/session.ts';
import type { DirectoryUser } from '../api/users.ts';
import { choiceLabel } from '../app/screens.ts';
import { webKind } from '../fields/field-kinds.ts';
import { FileThumbs } from '../fields/files/FileList.tsx';
import { type ApiRecord, EMPTY, formatDay, formatValue, recordTitle, stateColor } from '../format.ts';
import { stateLabel } from '../records/access.ts';
import { SortIcon } from './icons.tsx';
import type { ListField } from './query.ts';
import { ReferenceValue } from './references.tsx';

/** Rows picked for a bulk action, by id, and how a checkbox changes them. */
export interface RowSelection {
  selected: ReadonlySet<string>;
  onToggle: (record: ApiRecord, on: boolean) => void;
  /** Every row of the page at once. */
  onToggleAll: (on: boolean) => void;
}

export interface SortState {
  field: string;
  descending: boolean;
}

/** What a page of records needs to be shown, as a table or (on phones) as cards. */
export interface RecordsViewProps {
  model: Model;
  me: Me;
  entity: Entity;
  machine: StateMachine | undefined;
  columns: ListField[];
  records: ApiRecord[];
  sort: SortState;
  sortable: Set<string>;
  onSort: (field: string) => void;
  caption: string;
  /** The column that names a record and links to it; null when the entity has no title field. */
  titleColumn: string | null;
  detailHref: (record: ApiRecord) => string | null;
  titles: Map<string, string>;
  users: Map<string, DirectoryUser>;
  /** The first page is on its way: show placeholders. */
  loading: boolean;
  /** Another page is on its way: the rows shown are the previous ones. */
  busy: boolean;
  pageSize: number;
  /** Checkboxes to pick rows for bulk actions; none when not given. */
  selection?: RowSelection;
}

/**
 * One page of records as a table: a header per column that sorts by it (with `aria-sort`), the
 * first column linking each record to its detail screen, references shown by name.
 */
export function RecordsTable({
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
  const navigate = useNavigate();
  // Records are opened from their title; an entity without one gets an Open link per row.
  const openColumn = titleColumn === null;
  const states = machine?.states.map((s) => s.name) ?? [];
  const openRow = (event: MouseEvent<HTMLTableRowElement>, href: string | null) => {
    // Links and buttons inside a row do their own thing; a click elsewhere opens the record.
    if (!href || (event.target as HTMLElement).closest('a, button, input, select, [data-select-cell]')) return;
    if (window.getSelection()?.toString()) return;
    navigate(href);
  };

  return (
    <Box
      role="region"
      aria-label={caption}
      tabIndex={0}
      // Relative: the visually hidden words of the headers (absolutely placed) scroll with the table
      // instead of widening the page.
      style={{
        position: 'relative',
        overflowX: 'auto',
        borderRadius: 12,
        border: '1px solid var(--mantine-color-default-border)',
      }}
    >
      <Table
        striped={false}
        highlightOnHover
        verticalSpacing="sm"
        horizontalSpacing="xs"
        miw={Math.max(600, columns.length * 80 + (titleColumn ? 80 : 0))}
        aria-busy={loading || busy}
        style={{ opacity: busy ? 0.6 : 1, transition: 'opacity 120ms' }}
      >
        <VisuallyHidden component="caption">{caption}</VisuallyHidden>
        <Table.Thead bg="var(--mantine-color-default-hover)">
          <Table.Tr>
            {selection && (
              <Table.Th scope="col" w={40}>
                <Checkbox
                  aria-label="Select every row on this page"
                  checked={records.length > 0 && records.every((r) => selection.selected.has(String(r.id)))}
                  indeterminate={
                    records.some((r) => selection.selected.has(String(r.id))) &&
                    !records.every((r) => selection.selected.has(String(r.id)))
                  }
                  disabled={loading || records.length === 0}
                  onChange={(e) => selection.onToggleAll(e.currentTarget.checked)}
                />
              </Table.Th>
            )}
            {columns.map((column) => {
              const direction =
                sort.field === column.name ? (sort.descending ? 'descending' : 'ascending') : ('none' as const);
              const numeric = isAmount(column);
              return (
                <Table.Th
                  key={column.name}
                  scope="col"
                  aria-sort={direction === 'none' ? undefined : direction}
                  style={{
                    // A long header ("Single claim limit") wraps rather than widen its column past its values.
                    textAlign: numeric ? 'right' : undefined,
                    minWidth: column.name === titleColumn ? 140 : undefined,
                  }}
                >
                  {sortable.has(column.name) ? (
                    <UnstyledButton
                      onClick={() => onSort(column.name)}
                      style={{
                        display: 'inline-flex',
                        alignItems: 'center',
                        gap: 4,
                        fontWeight: 600,
                        fontSize: 'var(--mantine-font-size-sm)',
                        borderRadius: 4,
                      }}
                      c={direction === 'none' ? undefined : 'var(--mantine-primary-color-filled)'}
                    >
                      {column.label}
                      <SortIcon direction={direction} />
                      <VisuallyHidden component="span">
                        {direction === 'ascending'
                          ? ', sorted ascending; sort descending'
                          : direction === 'descending'
                            ? ', sorted descending; clear the sort'
                            : ', sort ascending'}
                      </VisuallyHidden>
                    </UnstyledButton>
                  ) : (
                    column.label
                  )}
                </Table.Th>
              );
            })}
            {openColumn && (
              <Table.Th scope="col">
                <VisuallyHidden component="span">Open</VisuallyHidden>
              </Table.Th>
            )}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {loading
            ? Array.from({ length: Math.min(pageSize, 8) }, (_, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: placeholders have no identity
                <Table.Tr key={i}>
                  {selection && <Table.Td />}
                  {columns.map((column) => (
                    <Table.Td key={column.name}>
                      <Skeleton height={12} radius="sm" width={`${50 + ((i * 17 + column.name.length * 7) % 45)}%`} />
                    </Table.Td>
                  ))}
                  {openColumn && <Table.Td />}
                </Table.Tr>
              ))
            : records.map((record) => {
                const href = detailHref(record);
                return (
                  <Table.Tr
                    key={String(record.id)}
                    onClick={(event) => openRow(event, href)}
                    style={href ? { cursor: 'pointer' } : undefined}
                  >
                    {selection && (
                      // A click beside the box must not open the record (see `openRow`).
                      <Table.Td style={{ verticalAlign: 'top' }} data-select-cell>
                        <Checkbox
                          aria-label={`Select ${recordTitle(entity, record)}`}
                          checked={selection.selected.has(String(record.id))}
                          onChange={(e) => selection.onToggle(record, e.currentTarget.checked)}
                        />
                      </Table.Td>
                    )}
                    {columns.map((column) => (
                      <Table.Td
                        key={column.name}
                        style={{
                          textAlign: isAmount(column) ? 'right' : undefined,
                          verticalAlign: 'top',
                          whiteSpace: noWrap(column) ? 'nowrap' : undefined,
                          // A long address or word breaks rather than pushing the table wider than the page.
                          overflowWrap: noWrap(column) ? undefined : 'anywhere',
                        }}
                      >
                        {column.name === titleColumn && href ? (
                          <Anchor component={Link} to={href} fw={600} size="sm">
                            {recordTitle(entity, record)}
                          </Anchor>
                        ) : (
                          <Cell
                            model={model}
                            me={me}
                            column={column}
                            record={record}
                            states={states}
                            titles={titles}
                            users={users}
                          />
                        )}
                      </Table.Td>
                    ))}
                    {openColumn && (
                      <Table.Td style={{ textAlign: 'right', verticalAlign: 'top' }}>
                        {href && (
                          <Anchor component={Link} to={href} size="sm" fw={600}>
                            Open
                            <VisuallyHidden component="span"> {recordTitle(entity, record)}</VisuallyHidden>
                          </Anchor>
                        )}
                      </Table.Td>
                    )}
                  </Table.Tr>
                );
              })}
        </Table.Tbody>
      </Table>
    </Box>
  );
}

/**
 * Numbers and states read badly broken over two lines. A date may break between its day and its
 * year ("Nov 25, / 2026") when the columns would not fit the page otherwise.
 */
function noWrap(column: ListField): boolean {
  return webKind(column.type).noWrap || column.name === 'state';
}

/** Amounts are right-aligned, so their digits line up. */
function isAmount(column: ListField): boolean {
  return isNumeric(column.type);
}

/** One value of a record as a list shows it: a state or choice as a badge, a reference by name. */
export function Cell({
  model,
  me,
  column,
  record,
  states,
  titles,
  users,
}: {
  model: Model;
  me: Me;
  column: ListField;
  record: ApiRecord;
  states: string[];
  titles: Map<string, string>;
  users: Map<string, DirectoryUser>;
}) {
  const value = record[column.name];
  if (value === null || value === undefined || value === '') {
    return (
      <Text span size="sm" c="dimmed" aria-label="empty">
        {EMPTY}
      </Text>
    );
  }
  const type = column.type;
  if (column.name === 'state' && typeof value === 'string') {
    return (
      <Badge variant="light" color={stateColor(states, value)} radius="sm" style={{ textTransform: 'none' }}>
        {stateLabel(value)}
      </Badge>
    );
  }
  if ((column.name === 'created_at' || column.name === 'updated_at') && typeof value === 'string') {
    return (
      <Text span size="sm" title={formatValue(type, value)}>
        {formatDay(value)}
      </Text>
    );
  }
  switch (type.kind) {
    case 'reference':
      return (
        <ReferenceValue model={model} me={me} entity={type.entity} id={String(value)} titles={titles} users={users} />
      );
    case 'choice':
      return (
        <Badge variant="outline" color="gray" radius="sm" style={{ textTransform: 'none' }}>
          {choiceLabel(String(value))}
        </Badge>
      );
    case 'url': {
      const text = String(value);
      const safe = /^https?:\/\//i.test(text);
      return safe ? (
        <Anchor href={text} target="_blank" rel="noopener noreferrer" size="sm">
          {hostOf(text)}
        </Anchor>
      ) : (
        <Text span size="sm">
          {text}
        </Text>
      );
    }
    case 'email':
      return (
        <Anchor href={`mailto:${String(value)}`} size="sm">
          {String(value)}
        </Anchor>
      );
    case 'file':
      return <FileThumbs type={type} value={String(value)} size="list" />;
    case 'text':
    case 'longText':
    case 'integer':
    case 'decimal':
    case 'boolean':
    case 'date':
    case 'datetime':
      return (
        <Text span size="sm" style={{ fontVariantNumeric: 'tabular-nums' }} lineClamp={2}>
          {formatValue(type, value)}
        </Text>
      );
    default:
      return assertNever(type);
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
