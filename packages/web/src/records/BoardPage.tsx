import {
  ActionIcon,
  Alert,
  Anchor,
  Avatar,
  Badge,
  Box,
  Button,
  Card,
  Group,
  Menu,
  Modal,
  Paper,
  Skeleton,
  Stack,
  Text,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useDocumentTitle, useLocalStorage } from '@mantine/hooks';
import { type Entity, type Model, type Screen, type State, type StateMachine, USER_ENTITY } from '@ninepoint/spec';
import { infiniteQueryOptions, type QueryClient, useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { type DragEvent, memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router';
import { type ApiError, api } from '../api/client.ts';
import type { Me } from '../api/session.ts';
import { type DirectoryUser, usersByIdQuery } from '../api/users.ts';
import type { ScreenProps } from '../app/context.ts';
import { PHONE, useMedia } from '../app/media.ts';
import { Failure } from '../app/pages.tsx';
import { choiceLabel, fieldLabel, screenTitle } from '../app/screens.ts';
import { sentence } from '../fields/display.ts';
import { FieldValue } from '../fields/FieldValue.tsx';
import { choiceColor } from '../format.ts';
import { ChevronLeftIcon, ChevronRightIcon, PlusIcon } from '../list/icons.tsx';
import { useProgressive } from '../list/layout.ts';
import { pageUserIds, refersToUsers } from '../list/query.ts';
import { userLabel, useUserDirectory } from '../list/references.tsx';
import { accessTo, type Move, movesOf, owns, stateColor, stateLabel, transitionLabel } from './access.ts';
import { problemOf } from './api.ts';
import { BoardScroller } from './BoardScroller.tsx';
import { columnKey, dropRefusal, terminalStates } from './board.ts';
import { type ApiRecord, callFor, entityNamed, machineOf, type Page, pathOf } from './calls.ts';
import { entityWords } from './labels.ts';
import { createRoute, detailRoute } from './navigation.ts';
import { useOwned } from './ownership.ts';
import { ProblemAlert } from './ProblemAlert.tsx';
import { ShortReason } from './ShortReason.tsx';
import { summaryFields } from './summary.ts';
import { plainTitle, titleFields, useRecordTitle } from './title.ts';
import {
  ConfirmFinalStep,
  isFinalStep,
  TransitionDialog,
  transitionFields,
  useMoveRefusals,
  useTakeTransition,
} from './transitions.tsx';

/**
 * From this many columns a board starts with its final states folded: at 1280 px the page has
 * about 940 px for the board, six columns of their narrowest (136 px).
 */
const FOLD_FROM = 7;

/** Cards fetched per column at a time. */
const COLUMN_PAGE = 20;

/** The screen's `where` filters: those the list call takes, and those only the browser can apply. */
interface BoardFilters {
  /** `filter[field]=value` for the list call; `me` already replaced by the user's id. */
  query: [string, string][];
  /** Filters the list call does not take (`created_by = me`): applied to the cards fetched. */
  local: [string, string][];
  /** The states a `state = …` filter keeps; null for all. */
  states: string[] | null;
}

/**
 * The cards of one column, a page at a time (`filter[state]`, newest change first). When the first
 * page arrives, the names of the users it refers to are asked for at once, not after its cards
 * are drawn.
 */
function columnQuery(client: QueryClient, model: Model, me: Me, entity: Entity, state: string, filters: BoardFilters) {
  const list = callFor(model, entity.name, 'list');
  return infiniteQueryOptions({
    queryKey: columnKey(entity.name, state, filters.query),
    queryFn: async ({ pageParam }: { pageParam: string }) => {
      const params = new URLSearchParams({ 'filter[state]': state, limit: String(COLUMN_PAGE), sort: '-updated_at' });
      for (const [field, value] of filters.query) params.set(`filter[${field}]`, value);
      if (pageParam) params.set('cursor', pageParam);
      else params.set('count', 'true');
      const page = (await api<Page>('GET', `${pathOf(list as NonNullable<typeof list>)}?${params}`)).body;
      const ids = !pageParam && me.user ? pageUserIds(entity, page.items) : [];
      if (ids.length > 0) client.prefetchQuery(usersByIdQuery(ids)).catch(() => undefined);
      return page;
    },
    initialPageParam: '',
    getNextPageParam: (last: Page) => last.next ?? undefined,
  });
}

/**
 * Fetches the first cards of every column a board screen shows, as its columns will ask for them:
 * called when a link to the screen is hovered, focused or pressed (`screens/route-data.ts`).
 */
export function prefetchBoardScreen(client: QueryClient, model: Model, me: Me, screen: Screen): void {
  const entity = entityNamed(model, screen.entity ?? '');
  const machine = entity ? machineOf(model, entity.name) : undefined;
  if (!entity || !machine || !callFor(model, entity.name, 'list')) return;
  const filters = boardFilters(screen, entity, me);
  for (const state of machine.states) {
    if (filters.states !== null && !filters.states.includes(state.name)) continue;
    client.prefetchInfiniteQuery(columnQuery(client, model, me, entity, state.name, filters)).catch(() => undefined);
  }
}

function boardFilters(screen: Screen, entity: Entity, me: Me): BoardFilters {
  const filters: BoardFilters = { query: [], local: [], states: null };
  for (const f of screen.filters) {
    const value = 'me' in f.value ? (me.user?.id ?? '') : String(f.value.literal);
    if (f.field === 'state') filters.states = [...(filters.states ?? []), value];
    else if (
      f.field === 'created_by' ||
      f.field.includes('.') ||
      entity.fields.some((field) => field.name === f.field)
    ) {
      filters.query.push([f.field, value]);
    } else filters.local.push([f.field, value]);
  }
  return filters;
}

/** A card being dragged, and the column it left. */
interface Dragging {
  record: ApiRecord;
  moves: Move[];
}

/** A move the user asked for: which transition, on which record (by title, for messages). */
interface Pending {
  record: ApiRecord;
  title: string;
  move: Move;
}

/**
 * The `board` screen: one column per state in the machine's order, each paged through the list
 * call with `filter[state]`; a card moves along the transitions the user may take, by drag and
 * drop or by its "Move to…" menu, through the transition's call. A refused move leaves the card
 * where it was and says why, in the catalogue's words.
 */
export function BoardPage({ model, me, screen }: ScreenProps) {
  const entity = entityNamed(model, screen.entity ?? '');
  const machine = entity ? machineOf(model, entity.name) : undefined;
  const title = screenTitle(screen, model);
  useDocumentTitle(`${title} · ${model.product.name}`);
  const [dragging, setDragging] = useState<Dragging | null>(null);
  const [choosing, setChoosing] = useState<{ record: ApiRecord; title: string; moves: Move[] } | null>(null);
  const [dialog, setDialog] = useState<Pending | null>(null);
  const [confirming, setConfirming] = useState<Pending | null>(null);
  const [refusal, setRefusal] = useState<{ error: ApiError; title: string; move: Move } | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const take = useTakeTransition(model, entity?.name ?? '');
  // Why a dragged card may not enter a column, known while it is dragged, before any drop.
  const dragRefusals = useMoveRefusals(model, entity?.name ?? '', dragging?.record ?? NO_RECORD, dragging?.moves ?? []);
  // Final states (no step leads out) may fold to their count; a user's choice per column is kept.
  // The same filters from one drawing to the next: the columns' queries and cards depend on them.
  const filters = useMemo(() => (entity ? boardFilters(screen, entity, me) : null), [screen, entity, me]);
  const [foldings, setFoldings] = useLocalStorage<Record<string, boolean>>({
    key: `ninepoint:board:${me.user?.id ?? 'visitor'}:${screen.route}`,
    defaultValue: {},
    getInitialValueInEffect: false,
  });

  if (!entity || !machine || !filters) {
    return <Failure error={new Error(`A board needs an entity with states; ${screen.entity ?? 'none'} has none.`)} />;
  }
  if (!callFor(model, entity.name, 'list')) {
    return (
      <Alert color="yellow" title="Not available">
        This product has no call to list {entityWords(entity.name)} records (point 7 of its spec).
      </Alert>
    );
  }
  const states = machine.states.filter((s) => filters.states === null || filters.states.includes(s.name));
  const create = createRoute(model, me, entity.name);
  const terminal = terminalStates(machine);
  // Where the columns would not all fit at their narrowest, final ones start folded.
  const foldsFirst = states.length >= FOLD_FROM;

  const go = (pending: Pending, confirmed = false) => {
    setRefusal(null);
    if (transitionFields(model, entity.name, pending.move.transition).length > 0) {
      setDialog(pending);
      return;
    }
    if (!confirmed && isFinalStep(model, entity.name, pending.move.transition)) {
      setConfirming(pending);
      return;
    }
    setBusy(pending.record.id);
    take.mutate(
      { record: pending.record, transition: pending.move.transition },
      {
        onSuccess: () => setAnnouncement(moved(pending)),
        onError: (error) => {
          setRefusal({ error: problemOf(error), title: pending.title, move: pending.move });
          setAnnouncement(`${pending.title} was not moved.`);
        },
        onSettled: () => setBusy(null),
      },
    );
  };

  /** A card dropped on a column, or a state picked from its menu: the transitions that lead there. */
  const moveTo = (record: ApiRecord, recordTitle: string, moves: Move[]) => {
    const [only] = moves;
    if (moves.length === 1 && only) go({ record, title: recordTitle, move: only });
    else if (moves.length > 1) setChoosing({ record, title: recordTitle, moves });
  };

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end">
        <Stack gap={2}>
          <Title order={1}>{title}</Title>
          <Text c="dimmed">{sentence(screen.doc || `Every ${entityWords(entity.name)}, one column per state`)}</Text>
          <Text size="xs" c="dimmed">
            Drag a card to another column, or use its “Move to…” menu. A column it may not enter says why.
          </Text>
        </Stack>
        {create && (
          <Button component={Link} to={create} leftSection={<PlusIcon size={16} />}>
            New {entityWords(entity.name)}
          </Button>
        )}
      </Group>
      {refusal && (
        <ProblemAlert
          error={refusal.error}
          title={`${refusal.title} was not moved to ${stateLabel(refusal.move.to)}`}
          onClose={() => setRefusal(null)}
        />
      )}
      <VisuallyHidden role="status" aria-live="polite">
        {announcement}
      </VisuallyHidden>
      <BoardScroller names={states.map((s) => stateLabel(s.name))}>
        {states.map((state) => (
          <Column
            key={state.name}
            model={model}
            me={me}
            entity={entity}
            machine={machine}
            state={state}
            filters={filters}
            dragging={dragging}
            dropReason={
              dragging ? dropRefusal(machine, dragging.record, dragging.moves, state.name, dragRefusals) : null
            }
            folded={terminal.has(state.name) && (foldings[state.name] ?? foldsFirst)}
            onFold={
              terminal.has(state.name)
                ? (fold) => setFoldings((current) => ({ ...current, [state.name]: fold }))
                : undefined
            }
            busy={busy}
            onDragStart={setDragging}
            onDragEnd={() => setDragging(null)}
            onDrop={(record, recordTitle, moves) => {
              setDragging(null);
              moveTo(record, recordTitle, moves);
            }}
            onMove={(record, recordTitle, move) => go({ record, title: recordTitle, move })}
          />
        ))}
      </BoardScroller>
      {choosing && (
        <Modal opened onClose={() => setChoosing(null)} title={`Move ${choosing.title}`} centered>
          <Stack gap="xs">
            <Text size="sm">More than one step leads there. Which one?</Text>
            {choosing.moves.map((move) => (
              <Button
                key={move.transition.name}
                variant="light"
                justify="space-between"
                onClick={() => {
                  setChoosing(null);
                  go({ record: choosing.record, title: choosing.title, move });
                }}
              >
                {transitionLabel(move.transition)}
              </Button>
            ))}
          </Stack>
        </Modal>
      )}
      {confirming && (
        <ConfirmFinalStep
          model={model}
          entity={entity.name}
          record={confirming.record}
          transition={confirming.move.transition}
          title={confirming.title}
          onConfirm={() => go(confirming, true)}
          onClose={() => setConfirming(null)}
        />
      )}
      {dialog && (
        <TransitionDialog
          model={model}
          entity={entity.name}
          record={dialog.record}
          transition={dialog.move.transition}
          title={dialog.title}
          onClose={() => setDialog(null)}
          onDone={() => setAnnouncement(moved(dialog))}
        />
      )}
    </Stack>
  );
}

/** Three dots: a card's menu. */
function MoreIcon() {
  return (
    <svg width={16} height={16} viewBox="0 0 16 16" aria-hidden="true" fill="currentColor">
      <circle cx={3} cy={8} r={1.5} />
      <circle cx={8} cy={8} r={1.5} />
      <circle cx={13} cy={8} r={1.5} />
    </svg>
  );
}

/** No card dragged: the refusal check has nothing to look at. */
const NO_RECORD: ApiRecord = { id: '', created_at: '', updated_at: '', created_by: null };

function moved(pending: Pending): string {
  return `${pending.title}: ${transitionLabel(pending.move.transition)} done, now ${stateLabel(pending.move.to)}.`;
}

interface ColumnProps {
  model: Model;
  me: Me;
  entity: Entity;
  machine: StateMachine;
  state: State;
  filters: BoardFilters;
  dragging: Dragging | null;
  /** While a card is dragged: why it may not enter this column; null when it may (or is from here). */
  dropReason: string | null;
  /** Shown as a narrow strip with the count. */
  folded: boolean;
  /** Folds or unfolds the column; only final states fold. */
  onFold: ((fold: boolean) => void) | undefined;
  busy: string | null;
  onDragStart: (dragging: Dragging) => void;
  onDragEnd: () => void;
  onDrop: (record: ApiRecord, title: string, moves: Move[]) => void;
  onMove: (record: ApiRecord, title: string, move: Move) => void;
}

function Column({
  model,
  me,
  entity,
  machine,
  state,
  filters,
  dragging,
  dropReason,
  folded,
  onFold,
  busy,
  onDragStart,
  onDragEnd,
  onDrop,
  onMove,
}: ColumnProps) {
  const phone = useMedia(PHONE);
  const [over, setOver] = useState(false);
  const [dropTitle, setDropTitle] = useState('');
  const client = useQueryClient();
  // Fetched ahead when a link here was hovered (`prefetchBoardScreen`): then the cards draw at once.
  const cards = useInfiniteQuery(columnQuery(client, model, me, entity, state.name, filters));
  const pages = cards.data?.pages;
  const items = useMemo(
    () =>
      (pages ?? [])
        .flatMap((p) => p.items)
        .filter((r) => filters.local.every(([field, value]) => String(r[field] ?? '') === value)),
    [pages, filters.local],
  );
  const total = filters.local.length === 0 ? cards.data?.pages[0]?.total : undefined;
  const dropMoves =
    dragging && dropReason === null
      ? dragging.moves.filter((m) => m.to === state.name && dragging.record.state !== state.name)
      : [];
  const accepts = dropMoves.length > 0;
  const refused = dragging !== null && dropReason !== null;
  // Every user the column's first page names, as its query asked for them when it arrived.
  const users = useUserDirectory(me, pageUserIds(entity, pages?.[0]?.items ?? []));
  // The cards in view first; the rest of the column right after.
  const drawn = useProgressive(items.length, 5);
  const headingId = `board-column-${state.name}`;

  const dragOver = (event: DragEvent) => {
    if (!accepts) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'move';
    if (!over) setOver(true);
  };
  const dragOverRefused = (event: DragEvent) => {
    if (!refused) return;
    // Said in the column before the drop; the pointer shows no drop is possible.
    event.preventDefault();
    event.dataTransfer.dropEffect = 'none';
    if (!over) setOver(true);
  };
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    if (dragging && accepts) onDrop(dragging.record, dropTitle || event.dataTransfer.getData('text/plain'), dropMoves);
  };

  // Cards are memoised (`BoardCard`): the callbacks they get stay the same and call the latest.
  const latest = useRef({ onDragStart, onDragEnd, onMove });
  latest.current = { onDragStart, onDragEnd, onMove };
  const cardDragStart = useCallback((record: ApiRecord, moves: Move[], title: string) => {
    setDropTitle(title);
    latest.current.onDragStart({ record, moves });
  }, []);
  const cardDragEnd = useCallback(() => latest.current.onDragEnd(), []);
  const cardMove = useCallback(
    (record: ApiRecord, move: Move, title: string) => latest.current.onMove(record, title, move),
    [],
  );
  const namer = useCallback((id: string) => users.get(id)?.name, [users]);
  const plain = plainCards(me, entity);

  const count = total ?? (cards.isSuccess ? items.length : undefined);
  const dropProps = {
    onDragOver: (event: DragEvent) => (refused ? dragOverRefused(event) : dragOver(event)),
    onDragEnter: (event: DragEvent) => (refused ? dragOverRefused(event) : dragOver(event)),
    onDragLeave: (event: DragEvent) => {
      if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setOver(false);
    },
    onDrop: drop,
  };
  const frame = {
    borderStyle: accepts || refused ? 'dashed' : undefined,
    borderColor: accepts ? 'var(--mantine-primary-color-filled)' : refused ? 'var(--mantine-color-red-6)' : undefined,
    transition: 'background-color 120ms, border-color 120ms',
  } as const;
  const background = over
    ? refused
      ? 'var(--mantine-color-red-light)'
      : 'var(--mantine-primary-color-light)'
    : 'var(--mantine-color-gray-0)';

  if (folded && !phone) {
    return (
      <Paper
        component="section"
        aria-labelledby={headingId}
        radius="md"
        p={4}
        bg={background}
        withBorder
        data-board-column={state.name}
        data-folded
        style={{ ...frame, flex: '0 0 44px', minHeight: 240 }}
        {...dropProps}
      >
        <Stack gap={6} align="center">
          <ActionIcon
            variant="subtle"
            color="gray"
            size="md"
            onClick={() => onFold?.(false)}
            aria-expanded={false}
            aria-label={`Show the ${stateLabel(state.name)} column${count !== undefined ? ` (${count})` : ''}`}
          >
            <ChevronRightIcon size={16} />
          </ActionIcon>
          {count !== undefined && (
            <Badge variant="default" size="sm" aria-hidden="true">
              {count}
            </Badge>
          )}
          <Title
            order={2}
            size="h6"
            id={headingId}
            style={{ writingMode: 'vertical-rl', whiteSpace: 'nowrap', fontWeight: 600 }}
          >
            {stateLabel(state.name)}
          </Title>
          {refused && over && (
            <Text size="xs" c="red.8" role="status" style={{ writingMode: 'vertical-rl' }}>
              {dropReason}
            </Text>
          )}
        </Stack>
      </Paper>
    );
  }

  return (
    <Paper
      component="section"
      aria-labelledby={headingId}
      radius="md"
      p="xs"
      bg={background}
      withBorder
      data-board-column={state.name}
      style={{
        // On a phone a column takes most of the screen, the next one peeking in at its edge; on a
        // desk every column shares the width (narrow ones scroll sideways below 136 px).
        flex: phone ? '0 0 78vw' : '1 1 0',
        minWidth: phone ? undefined : 136,
        maxWidth: 340,
        scrollSnapAlign: 'start',
        minHeight: 240,
        ...frame,
      }}
      {...dropProps}
    >
      <Group justify="space-between" mb={state.doc ? 2 : 'xs'} wrap="nowrap" gap={4}>
        <Group gap={6} wrap="nowrap" miw={0}>
          <Box
            w={10}
            h={10}
            style={{ borderRadius: 5, flex: 'none' }}
            bg={`var(--mantine-color-${stateColor(machine, state.name)}-6)`}
          />
          <Title
            order={2}
            size="h6"
            id={headingId}
            title={stateLabel(state.name)}
            style={{ whiteSpace: 'nowrap', overflow: 'hidden', textOverflow: 'ellipsis' }}
          >
            {stateLabel(state.name)}
          </Title>
        </Group>
        <Group gap={2} wrap="nowrap">
          {total !== undefined && (
            <Badge variant="default" size="sm" aria-label={`${total} ${total === 1 ? 'card' : 'cards'}`}>
              {total}
            </Badge>
          )}
          {onFold && !phone && (
            <ActionIcon
              variant="subtle"
              color="gray"
              size="sm"
              onClick={() => onFold(true)}
              aria-expanded
              aria-label={`Fold the ${stateLabel(state.name)} column to its count`}
            >
              <ChevronLeftIcon size={14} />
            </ActionIcon>
          )}
        </Group>
      </Group>
      {state.doc && (
        <Text size="xs" c="dimmed" mb="xs" lineClamp={2} title={sentence(state.doc)}>
          {sentence(state.doc)}
        </Text>
      )}
      {refused && (
        <Alert color="red" variant="light" p={6} mb="xs" data-drop-refusal>
          <Text size="xs">Cannot move here: {dropReason}</Text>
        </Alert>
      )}
      <Stack gap="xs" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {cards.isPending &&
          [0, 1].map((i) => (
            <li key={i}>
              <Skeleton height={72} radius="md" />
            </li>
          ))}
        {cards.isError && (
          <li>
            <Failure error={cards.error} retry={() => void cards.refetch()} />
          </li>
        )}
        {items.slice(0, drawn).map((record) => {
          const card = {
            model,
            me,
            entity,
            record,
            users,
            busy: busy === record.id,
            dragged: dragging?.record.id === record.id,
            onDragStart: cardDragStart,
            onDragEnd: cardDragEnd,
            onMove: cardMove,
          };
          return (
            <li key={record.id}>
              {plain ? (
                <BoardCard
                  {...card}
                  title={plainTitle(entity, record, namer)}
                  mayUpdate={owns(model, entity.name, record, me)}
                />
              ) : (
                <ResolvedCard {...card} />
              )}
            </li>
          );
        })}
      </Stack>
      {cards.isSuccess && items.length === 0 && (
        <Text size="sm" c="dimmed" ta="center" py="lg">
          {accepts ? 'Drop here' : 'Nothing here'}
        </Text>
      )}
      {cards.hasNextPage && (
        <Button
          variant="subtle"
          size="xs"
          fullWidth
          mt="xs"
          loading={cards.isFetchingNextPage}
          onClick={() => void cards.fetchNextPage()}
        >
          Show more{total !== undefined ? ` (${total - items.length} more)` : ''}
        </Button>
      )}
    </Paper>
  );
}

/**
 * Whether a board's cards can be drawn from their records alone: titles that name no other record
 * (users are named from the page's users), and ownership that follows no reference. Then no card
 * needs queries of its own (`ResolvedCard`), which on a board of sixty cards is most of the work.
 */
function plainCards(me: Me, entity: Entity): boolean {
  const lookups = titleFields(entity).some((f) => f.type.kind === 'reference' && f.type.entity !== USER_ENTITY);
  return !lookups && !(accessTo(me, entity.name).ownedVia && me.user !== null);
}

interface CardProps {
  model: Model;
  me: Me;
  entity: Entity;
  record: ApiRecord;
  users: Map<string, DirectoryUser>;
  busy: boolean;
  dragged: boolean;
  onDragStart: (record: ApiRecord, moves: Move[], title: string) => void;
  onDragEnd: () => void;
  onMove: (record: ApiRecord, move: Move, title: string) => void;
}

/** A card whose title names other records, or whose ownership goes through them: both are read first. */
function ResolvedCard(props: CardProps) {
  const title = useRecordTitle(props.model, props.entity.name, props.record);
  const owned = useOwned(props.model, props.me, props.entity.name, props.record);
  return <BoardCard {...props} title={title} mayUpdate={owned.update} />;
}

/**
 * One record on the board: its title, its choices and people, a few fields, and its moves.
 * Memoised: a column drawn again (a card dragged, names arriving, the next page) leaves the cards
 * whose record did not change.
 */
const BoardCard = memo(function BoardCard({
  model,
  me,
  entity,
  record,
  title,
  mayUpdate,
  users,
  busy,
  dragged,
  onDragStart,
  onDragEnd,
  onMove,
}: CardProps & { title: string; mayUpdate: boolean }) {
  const moves = movesOf(model, me, entity.name, record, mayUpdate);
  const to = detailRoute(model, me, entity.name, record.id);
  const has = (name: string) => record[name] !== null && record[name] !== undefined && record[name] !== '';
  // The people a record names as faces, its choices in their colours, then a few other fields.
  const people = entity.fields.filter((f) => refersToUsers(f.type) && has(f.name));
  const choices = entity.fields.filter((f) => f.type.kind === 'choice' && has(f.name)).slice(0, 3);
  const shown = new Set([...people, ...choices].map((f) => f.name));
  const fields = summaryFields(entity, 4)
    .filter((f) => !shown.has(f.name) && has(f.name))
    .slice(0, 2);
  return (
    <Card
      withBorder
      radius="md"
      padding="xs"
      data-board-card
      shadow={dragged ? 'md' : 'xs'}
      draggable={moves.length > 0 && !busy}
      onDragStart={(event: DragEvent) => {
        event.dataTransfer.effectAllowed = 'move';
        event.dataTransfer.setData('text/plain', title);
        onDragStart(record, moves, title);
      }}
      onDragEnd={onDragEnd}
      style={{
        cursor: moves.length > 0 ? 'grab' : undefined,
        opacity: dragged || busy ? 0.55 : 1,
      }}
      aria-busy={busy || undefined}
    >
      <Stack gap={6}>
        <Group gap={4} wrap="nowrap" align="flex-start" justify="space-between">
          <Text fw={600} size="sm" lh={1.35} style={{ overflowWrap: 'anywhere' }} lineClamp={3} title={title}>
            {to ? (
              <Anchor component={Link} to={to} inherit c="inherit" underline="hover">
                {title}
              </Anchor>
            ) : (
              title
            )}
          </Text>
          {moves.length > 0 && (
            <MoveMenu
              model={model}
              entity={entity.name}
              record={record}
              moves={moves}
              title={title}
              busy={busy}
              onMove={(move) => onMove(record, move, title)}
            />
          )}
        </Group>
        {(choices.length > 0 || people.length > 0) && (
          <Group gap={4} justify="space-between" wrap="nowrap">
            <Group gap={4} miw={0}>
              {choices.map((f) => {
                const value = String(record[f.name]);
                const values = f.type.kind === 'choice' ? f.type.values : [];
                const declared = f.type.kind === 'choice' ? f.type.colours : undefined;
                return (
                  <Badge
                    key={f.name}
                    data-choice={f.name}
                    data-choice-colour={declared?.[value]}
                    size="xs"
                    variant="light"
                    color={choiceColor(f.name, values, value, declared)}
                    radius="sm"
                    style={{ textTransform: 'none' }}
                    title={`${fieldLabel(f)}: ${choiceLabel(value)}`}
                  >
                    <VisuallyHidden>{fieldLabel(f)}: </VisuallyHidden>
                    {choiceLabel(value)}
                  </Badge>
                );
              })}
            </Group>
            {people.length > 0 && (
              <Avatar.Group spacing={6}>
                {people.map((f) => {
                  const name = userLabel(String(record[f.name]), users, me);
                  // The name on hover as the list's cells give it (a title): a tooltip component
                  // per face cost more than the rest of the card.
                  return (
                    <Avatar
                      key={f.name}
                      size={22}
                      radius="xl"
                      name={name.replace(/ \(you\)$/, '')}
                      color="initials"
                      role="img"
                      aria-label={`${fieldLabel(f)}: ${name}`}
                      title={`${fieldLabel(f)}: ${name}`}
                    />
                  );
                })}
              </Avatar.Group>
            )}
          </Group>
        )}
        {fields.length > 0 && (
          <Stack gap={2}>
            {fields.map((f) => (
              <Text key={f.name} size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
                {fieldLabel(f)}:{' '}
                <Text span size="xs" c="var(--mantine-color-text)">
                  <FieldValue model={model} field={f} value={record[f.name]} />
                </Text>
              </Text>
            ))}
          </Stack>
        )}
      </Stack>
    </Card>
  );
});

/**
 * A card's "Move to…" button and its menu. One small menu per card rather than a button per move;
 * the menu itself is set up only once the button is focused or clicked (a menu on each of sixty
 * cards, unopened, cost a third of drawing them). Portalled out of the column (which would
 * clip it), but into the page's main landmark: a menu left at the end of <body> is content outside
 * every landmark (axe "region").
 */
function MoveMenu({
  model,
  entity,
  record,
  moves,
  title,
  busy,
  onMove,
}: {
  model: Model;
  entity: string;
  record: ApiRecord;
  moves: Move[];
  title: string;
  busy: boolean;
  onMove: (move: Move) => void;
}) {
  const [armed, setArmed] = useState<'no' | 'ready' | 'open'>('no');
  const button = useRef<HTMLButtonElement>(null);
  // The button is drawn anew inside the menu: focus that was on the old one moves to it.
  const refocus = useRef(false);
  const pressed = useRef(false);
  useEffect(() => {
    if (armed !== 'no' && refocus.current) {
      refocus.current = false;
      button.current?.focus();
    }
  }, [armed]);
  const icon = (more: Record<string, unknown>) => (
    <ActionIcon
      ref={button}
      size="sm"
      variant="subtle"
      color="gray"
      loading={busy}
      aria-label={`Move to… (${title})`}
      title="Move to…"
      {...more}
    >
      <MoreIcon />
    </ActionIcon>
  );
  if (armed === 'no') {
    return icon({
      'aria-haspopup': 'menu',
      'aria-expanded': false,
      // A press must end on the button it started on to be a click: the menu is set up after it.
      onPointerDown: () => {
        pressed.current = true;
      },
      onPointerCancel: () => {
        pressed.current = false;
      },
      // Reached with the keyboard: the menu is set up around the button, which keeps the focus.
      onFocus: () => {
        if (pressed.current) return;
        refocus.current = true;
        setArmed('ready');
      },
      // Clicked, tapped, or Enter before the menu was set up: it opens as it is set up.
      onClick: () => {
        pressed.current = false;
        setArmed('open');
      },
    });
  }
  return (
    <Menu position="bottom-end" withinPortal portalProps={{ target: 'main' }} defaultOpened={armed === 'open'}>
      <Menu.Target>{icon({})}</Menu.Target>
      <Menu.Dropdown>
        <MoveItems model={model} entity={entity} record={record} moves={moves} onMove={onMove} />
      </Menu.Dropdown>
    </Menu>
  );
}

/**
 * A card's moves in its open menu: a move the browser can tell would be refused (its guard does
 * not hold) is shown disabled with the reason under it, before anyone picks it.
 */
function MoveItems({
  model,
  entity,
  record,
  moves,
  onMove,
}: {
  model: Model;
  entity: string;
  record: ApiRecord;
  moves: Move[];
  onMove: (move: Move) => void;
}) {
  const machine = machineOf(model, entity);
  const refusals = useMoveRefusals(model, entity, record, moves);
  return (
    <>
      <Menu.Label>Now {stateLabel(String(record.state))}</Menu.Label>
      {moves.map((move) => (
        <MoveItem
          key={move.transition.name}
          label={
            move.to === record.state
              ? `${transitionLabel(move.transition)} (stays ${stateLabel(move.to)})`
              : `${stateLabel(move.to)} — ${transitionLabel(move.transition)}`
          }
          color={stateColor(machine, move.to)}
          reason={refusals.get(move.transition.name)}
          onMove={() => onMove(move)}
        />
      ))}
    </>
  );
}

/**
 * One move in a card's menu. A move that would be refused stays in the keyboard's path (marked
 * aria-disabled, as a disabled menu item may be, not skipped): it does nothing when picked, and
 * shows its whole reason while focused, the short one otherwise (the whole one on hover).
 */
function MoveItem({
  label,
  color,
  reason,
  onMove,
}: {
  label: string;
  color: string;
  reason: string | undefined;
  onMove: () => void;
}) {
  const [focused, setFocused] = useState(false);
  const refused = reason !== undefined;
  return (
    <Menu.Item
      onClick={refused ? undefined : onMove}
      closeMenuOnClick={!refused}
      aria-disabled={refused || undefined}
      data-refused={refused || undefined}
      // Focus from the keyboard: a menu opened by a click focuses its first item, which says no more.
      onFocus={(event) => setFocused(event.currentTarget.matches(':focus-visible'))}
      onBlur={() => setFocused(false)}
      maw={320}
      c={refused ? 'dimmed' : undefined}
      style={refused ? { cursor: 'not-allowed' } : undefined}
      leftSection={<Box w={8} h={8} style={{ borderRadius: 4 }} bg={`var(--mantine-color-${color}-6)`} />}
    >
      {label}
      {refused && (
        <ShortReason
          size="xs"
          c="dimmed"
          style={{ whiteSpace: 'normal' }}
          lead="Not possible now: "
          reason={reason}
          expanded={focused}
          toggle={false}
        />
      )}
    </Menu.Item>
  );
}
