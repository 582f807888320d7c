import { Box, Checkbox, Skeleton, Table, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { useElementSize } from '@mantine/hooks';
import { assertNever, type Entity, isNumeric, type Model, type StateMachine } from '@ninepoint/spec';
import {
  type KeyboardEvent,
  type MouseEvent,
  memo,
  type PointerEvent,
  useCallback,
  useMemo,
  useRef,
  useState,
} from 'react';
import { useNavigate } from 'react-router';
import type { Me } from '../api/session.ts';
import type { DirectoryUser } from '../api/users.ts';
import { choiceLabel } from '../app/screens.ts';
import { FileThumbs } from '../fields/files/FileList.tsx';
import { type ApiRecord, choiceColor, EMPTY, formatDay, formatValue, recordTitle, stateColor } from '../format.ts';
import { stateLabel } from '../records/access.ts';
import { type CutCell, useCutCells } from './cut-cells.ts';
import { CELL_CLASS, EmptyValue, PlainBadge, PlainCheckbox, ROW_CLASS, SmallLink, SmallText } from './plain-cells.tsx';
import './cut-cells.css';
import { SortIcon } from './icons.tsx';
import {
  clampWidth,
  columnsWithValues,
  type Density,
  defaultWidth,
  MAX_COLUMN,
  MIN_COLUMN,
  rigid,
  useProgressive,
} from './layout.ts';
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
  /** Row height: compact (the default) or comfortable. */
  density?: Density;
  /** Columns the user resized, by name, in pixels. */
  widths?: Readonly<Record<string, number>>;
  /** A column dragged (or moved with the arrow keys) to a new width; without it columns do not resize. */
  onResize?: (column: string, width: number) => void;
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
  columns: allColumns,
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
  density = 'compact',
  widths = {},
  onResize,
}: RecordsViewProps) {
  const navigate = useNavigate();
  // The width of the column being dragged, drawn at once and kept (onResize) when the drag ends.
  const [dragging, setDragging] = useState<{ name: string; width: number } | null>(null);
  const { shown, collapsed } = columnsWithValues(
    allColumns,
    loading ? [] : records,
    new Set([titleColumn ?? '', sort.field]),
  );
  // The same array while the same columns show, so that rows are not drawn again for nothing.
  const shownKey = shown.map((c) => c.name).join(',');
  // biome-ignore lint/correctness/useExhaustiveDependencies: the shown columns are their names
  const columns = useMemo(() => shown, [shownKey, allColumns]);
  // Columns start at a width by their kind, narrowed together when they would not all fit the
  // frame beside the title's least; a width the user chose is kept as it is.
  const { ref: frameRef, width: frame } = useElementSize();
  const extras = (selection ? 40 : 0) + (titleColumn ? TITLE_MIN : 72) + 2;
  const kept = (c: ListField) => widths[c.name] ?? (rigid(c) ? defaultWidth(c) : 0);
  const chosen = columns.reduce((sum, c) => sum + (c.name !== titleColumn ? kept(c) : 0), 0);
  const natural = columns.reduce(
    (sum, c) => sum + (c.name !== titleColumn && widths[c.name] === undefined && !rigid(c) ? defaultWidth(c) : 0),
    0,
  );
  const scale = frame > 0 && natural > 0 ? Math.min(1, Math.max(0, (frame - extras - chosen) / natural)) : 1;
  const widthOf = (column: ListField): number | undefined =>
    dragging?.name === column.name
      ? dragging.width
      : (widths[column.name] ??
        (column.name === titleColumn
          ? undefined
          : rigid(column)
            ? defaultWidth(column)
            : Math.max(MIN_COLUMN, Math.floor(defaultWidth(column) * scale))));
  const tableWidth = columns.reduce((sum, c) => sum + (widthOf(c) ?? 0), 0) + extras;
  const compact = density === 'compact';
  // Cells that do not show their whole value: reachable by keyboard, whole for screen readers.
  const tableRef = useRef<HTMLTableElement>(null);
  const cut = useCutCells(tableRef);
  // The rows above the fold first; the rest of a long page right after.
  const drawn = useProgressive(records.length, 20);
  // Records are opened from their title; an entity without one gets an Open link per row.
  const openColumn = titleColumn === null;
  const states = useMemo(() => machine?.states.map((s) => s.name) ?? [], [machine]);
  // Rows are drawn again only when what they show changes (`Row` is memoised): the callbacks they
  // get stay the same from one drawing of the table to the next, and call the latest ones.
  const latest = useRef({ navigate, selection });
  latest.current = { navigate, selection };
  const openRow = useCallback((event: MouseEvent<HTMLTableRowElement>, href: string | null) => {
    // Links and buttons inside a row do their own thing; a click elsewhere opens the record.
    if (!href || (event.target as HTMLElement).closest('a, button, input, select, [data-select-cell]')) return;
    if (window.getSelection()?.toString()) return;
    latest.current.navigate(href);
  }, []);
  const toggle = useCallback((record: ApiRecord, on: boolean) => latest.current.selection?.onToggle(record, on), []);

  return (
    <Box
      ref={frameRef}
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
        ref={tableRef}
        striped={false}
        highlightOnHover
        layout="fixed"
        verticalSpacing={compact ? 4 : 'sm'}
        horizontalSpacing="xs"
        miw={tableWidth}
        aria-busy={loading || busy}
        style={{ opacity: busy ? 0.6 : 1, transition: 'opacity 120ms' }}
        data-density={density}
      >
        <VisuallyHidden component="caption">
          {caption}
          {collapsed.length > 0 && `; empty on this page: ${collapsed.map((c) => c.label).join(', ')}`}
        </VisuallyHidden>
        <Table.Thead bg="var(--mantine-color-default-hover)">
          <Table.Tr>
            {selection && (
              <Table.Th scope="col" w={40}>
                <Checkbox
                  size={compact ? 'xs' : 'sm'}
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
                  data-column={column.name}
                  style={{
                    textAlign: numeric ? 'right' : undefined,
                    width: widthOf(column),
                    position: 'relative',
                    whiteSpace: 'nowrap',
                    overflow: 'hidden',
                    textOverflow: 'ellipsis',
                  }}
                  title={column.label}
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
                  {onResize && (
                    <ResizeHandle
                      label={column.label}
                      width={widthOf(column)}
                      onDrag={(width) => setDragging({ name: column.name, width })}
                      onDone={(width) => {
                        setDragging(null);
                        onResize(column.name, width);
                      }}
                    />
                  )}
                </Table.Th>
              );
            })}
            {openColumn && (
              <Table.Th scope="col" w={72}>
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
            : records.slice(0, drawn).map((record) => {
                const id = String(record.id);
                return (
                  <Row
                    key={id}
                    model={model}
                    me={me}
                    entity={entity}
                    record={record}
                    columns={columns}
                    href={detailHref(record)}
                    titleColumn={titleColumn}
                    states={states}
                    titles={titles}
                    users={users}
                    selectable={selection !== undefined}
                    selected={selection?.selected.has(id) ?? false}
                    onToggle={toggle}
                    compact={compact}
                    openColumn={openColumn}
                    onOpen={openRow}
                    cut={cut}
                  />
                );
              })}
        </Table.Tbody>
      </Table>
    </Box>
  );
}

/**
 * One record's row. Memoised: a table drawn again (a column resized, the frame measured, names
 * arriving for other rows, a box ticked elsewhere) leaves the rows whose values did not change.
 */
const Row = memo(function Row({
  model,
  me,
  entity,
  record,
  columns,
  href,
  titleColumn,
  states,
  titles,
  users,
  selectable,
  selected,
  onToggle,
  compact,
  openColumn,
  onOpen,
  cut,
}: {
  model: Model;
  me: Me;
  entity: Entity;
  record: ApiRecord;
  columns: ListField[];
  href: string | null;
  titleColumn: string | null;
  states: string[];
  titles: Map<string, string>;
  users: Map<string, DirectoryUser>;
  selectable: boolean;
  selected: boolean;
  onToggle: (record: ApiRecord, on: boolean) => void;
  compact: boolean;
  openColumn: boolean;
  onOpen: (event: MouseEvent<HTMLTableRowElement>, href: string | null) => void;
  /** The table's cells cut short (`useCutCells`): a row compares only its own (`sameRow`). */
  cut: ReadonlyMap<string, CutCell>;
}) {
  return (
    // Plain elements with Mantine's table classes (see plain-cells.tsx): what `Table.Tr` draws, bordered and hovered.
    <tr
      className={ROW_CLASS}
      data-with-row-border
      data-hover
      onClick={(event) => onOpen(event, href)}
      style={href ? { cursor: 'pointer' } : undefined}
    >
      {selectable && (
        // A click beside the box must not open the record (see `openRow`).
        <td className={CELL_CLASS} style={{ verticalAlign: 'middle' }} data-select-cell>
          <PlainCheckbox
            size={compact ? 'xs' : 'sm'}
            label={`Select ${recordTitle(entity, record)}`}
            checked={selected}
            onChange={(e) => onToggle(record, e.currentTarget.checked)}
          />
        </td>
      )}
      {columns.map((column) => {
        const key = `${String(record.id)}/${column.name}`;
        const full = cellText(column, record, titles, users);
        const short = cut.get(key);
        return (
          <td
            key={column.name}
            className={CELL_CLASS}
            // One line per row: what does not fit ends in an ellipsis, the whole value on
            // hover, and on focus (a cell cut short takes the keyboard's focus, unless a
            // link in it does) with the whole value as its description for screen readers.
            // (The one line and its ellipsis are cut-cells.css's, which undoes them on focus.)
            style={{ textAlign: isAmount(column) ? 'right' : undefined, verticalAlign: 'middle' }}
            title={full}
            data-cell={key}
            data-cut={short ? '' : undefined}
            data-full={short?.abbreviated ? full : undefined}
            tabIndex={short && !short.focusable ? 0 : undefined}
            aria-description={short ? full : undefined}
          >
            {column.name === titleColumn && href ? (
              <SmallLink to={href} bold>
                {recordTitle(entity, record)}
              </SmallLink>
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
          </td>
        );
      })}
      {openColumn && (
        <td className={CELL_CLASS} style={{ textAlign: 'right', verticalAlign: 'middle' }}>
          {href && (
            <SmallLink to={href} bold>
              Open
              <VisuallyHidden component="span"> {recordTitle(entity, record)}</VisuallyHidden>
            </SmallLink>
          )}
        </td>
      )}
    </tr>
  );
}, sameRow);

/** Whether a row would draw the same: its props the same, and of the cut cells, its own. */
function sameRow<P extends { record: ApiRecord; cut: ReadonlyMap<string, CutCell> }>(a: P, b: P): boolean {
  for (const key of Object.keys(a) as (keyof P)[]) {
    if (key !== 'cut' && a[key] !== b[key]) return false;
  }
  const prefix = `${String(a.record.id)}/`;
  const own = (cut: ReadonlyMap<string, CutCell>) =>
    [...cut]
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, c]) => `${key}:${c.focusable}:${c.abbreviated}`)
      .join(' ');
  return a.cut === b.cut || own(a.cut) === own(b.cut);
}

/** The least room the title column keeps when the others start narrower to fit. */
const TITLE_MIN = 200;

/**
 * A column's right edge, dragged to resize it, or focused and moved with the arrow keys (16 px a
 * press); it announces its width as a separator does.
 */
function ResizeHandle({
  label: name,
  width,
  onDrag,
  onDone,
}: {
  label: string;
  width: number | undefined;
  onDrag: (width: number) => void;
  onDone: (width: number) => void;
}) {
  const start = (event: PointerEvent<HTMLSpanElement>) => {
    event.preventDefault();
    event.stopPropagation();
    const handle = event.currentTarget;
    const from = handle.parentElement?.getBoundingClientRect().width ?? width ?? 120;
    const x = event.clientX;
    let latest = from;
    handle.setPointerCapture(event.pointerId);
    const move = (e: globalThis.PointerEvent) => {
      latest = clampWidth(from + e.clientX - x);
      onDrag(latest);
    };
    const up = () => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', up);
      handle.removeEventListener('pointercancel', up);
      onDone(latest);
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', up);
    handle.addEventListener('pointercancel', up);
  };
  const key = (event: KeyboardEvent<HTMLSpanElement>) => {
    const step = event.key === 'ArrowRight' ? 16 : event.key === 'ArrowLeft' ? -16 : 0;
    if (step === 0) return;
    event.preventDefault();
    const from = event.currentTarget.parentElement?.getBoundingClientRect().width ?? width ?? 120;
    onDone(clampWidth(from + step));
  };
  const now = Math.round(width ?? 0);
  return (
    // biome-ignore lint/a11y/useSemanticElements: an <hr> cannot be dragged or focused; a focusable separator is the ARIA pattern for a splitter
    <span
      role="separator"
      aria-orientation="vertical"
      aria-label={`Width of ${name}`}
      aria-valuenow={now}
      aria-valuemin={MIN_COLUMN}
      aria-valuemax={MAX_COLUMN}
      tabIndex={0}
      onPointerDown={start}
      onKeyDown={key}
      onClick={(e) => e.stopPropagation()}
      data-resize-handle
      style={{
        position: 'absolute',
        top: 0,
        right: 0,
        bottom: 0,
        width: 8,
        cursor: 'col-resize',
        touchAction: 'none',
        borderRight: '2px solid var(--mantine-color-default-border)',
      }}
    />
  );
}

/** A value as plain words, for the hover text of a cell that may end in an ellipsis. */
function cellText(
  column: ListField,
  record: ApiRecord,
  titles: Map<string, string>,
  users: Map<string, DirectoryUser>,
): string | undefined {
  const value = record[column.name];
  if (value === null || value === undefined || value === '') return undefined;
  if (column.name === 'state') return stateLabel(String(value));
  const type = column.type;
  if (type.kind === 'choice') return choiceLabel(String(value));
  if (type.kind === 'reference') return users.get(String(value))?.name ?? titles.get(`${type.entity}:${String(value)}`);
  if (type.kind === 'file') return undefined;
  return formatValue(type, value);
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
    return <EmptyValue dash={EMPTY} />;
  }
  const type = column.type;
  if (column.name === 'state' && typeof value === 'string') {
    return (
      <PlainBadge variant="light" color={stateColor(states, value)}>
        {stateLabel(value)}
      </PlainBadge>
    );
  }
  if ((column.name === 'created_at' || column.name === 'updated_at') && typeof value === 'string') {
    return <SmallText title={formatValue(type, value)}>{formatDay(value)}</SmallText>;
  }
  switch (type.kind) {
    case 'reference':
      return (
        <ReferenceValue model={model} me={me} entity={type.entity} id={String(value)} titles={titles} users={users} />
      );
    case 'choice': {
      // A value whose colour the spec declares shows it; the others stay a quiet outline, so a
      // dense list is not a wall of colour the spec did not ask for.
      const text = String(value);
      const declared = type.colours?.[text];
      return (
        <PlainBadge
          variant={declared ? 'light' : 'outline'}
          color={declared ? choiceColor(column.name, type.values, text, type.colours) : 'gray'}
          size="sm"
          choiceColour={declared}
        >
          {choiceLabel(text)}
        </PlainBadge>
      );
    }
    case 'url': {
      const text = String(value);
      const safe = /^https?:\/\//i.test(text);
      return safe ? (
        <SmallLink href={text} external>
          {hostOf(text)}
        </SmallLink>
      ) : (
        <SmallText>{text}</SmallText>
      );
    }
    case 'email':
      return <SmallLink href={`mailto:${String(value)}`}>{String(value)}</SmallLink>;
    case 'file':
      return <FileThumbs type={type} value={String(value)} size="list" />;
    case 'text':
    case 'longText':
    case 'integer':
    case 'decimal':
    case 'boolean':
    case 'date':
    case 'datetime':
      return <SmallText style={{ fontVariantNumeric: 'tabular-nums' }}>{formatValue(type, value)}</SmallText>;
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
