import type { Entity, Field, Model, Screen, StateMachine } from '@ninepoint/spec';
import type { QueryClient } from '@tanstack/react-query';
import { api } from '../api/client.ts';
import type { Me } from '../api/session.ts';
import { usersByIdQuery } from '../api/users.ts';
import { callOf, entityOf } from '../app/screens.ts';
import { type ApiRecord, titleField } from '../format.ts';
import {
  apiQuery,
  columnChoices,
  type FilterField,
  type FixedFilters,
  filterFields,
  fixedFields,
  fixedFilters,
  type ListField,
  type ListState,
  machineOf,
  pageSizes,
  pageUserIds,
  readListState,
  searchableFields,
  sortableNames,
} from './query.ts';
import { savedViewsQuery } from './ViewControls.tsx';

/** One page of a list call's answer. */
export interface ListPageAnswer {
  items: ApiRecord[];
  next: string | null;
  total?: number;
}

/**
 * What a list screen works out from the model, the user and the screen alone, before it reads the
 * address: the list screen draws from it, and a link's hover uses it to fetch the first page the
 * screen will ask for, under the same query key.
 */
export interface ListSetup {
  entity: Entity;
  machine: StateMachine | undefined;
  /** The list call's path (`/api/tickets`). */
  path: string;
  searchable: Field[];
  sortable: Set<string>;
  fixed: FixedFilters;
  /** Fields a `where` gives one value on every row: not offered as filters. */
  fixedNames: Set<string>;
  filters: FilterField[];
  sizes: { initial: number; options: number[] };
  titleOf: Field | undefined;
  /** Every column one may show. */
  choices: ListField[];
}

/** The list screen's setup; null when the spec serves no call that lists its entity. */
export function listSetup(model: Model, me: Me, screen: Screen): ListSetup | null {
  const entity = entityOf(model, screen.entity);
  const call = screen.entity ? callOf(model, screen.entity, 'list') : undefined;
  if (!entity || !call) return null;
  const machine = machineOf(model, entity.name);
  const fixedNames = fixedFields(model, entity, screen);
  const titleOf = titleField(entity);
  return {
    entity,
    machine,
    path: call.path,
    searchable: searchableFields(entity),
    sortable: sortableNames(entity, machine),
    fixed: fixedFilters(screen, entity, machine, me),
    fixedNames,
    filters: filterFields(entity, machine).filter((f) => !fixedNames.has(f.name)),
    sizes: pageSizes(model),
    titleOf,
    choices: columnChoices(entity, machine, screen, titleOf, model),
  };
}

/** The list's state in an address (`?sort=-created_at&filter[state]=new`), as the screen reads it. */
export function stateOf(setup: ListSetup, params: URLSearchParams): ListState {
  return readListState(params, {
    sortable: setup.sortable,
    filters: setup.filters,
    fixed: setup.fixed,
    sizes: setup.sizes,
    columns: setup.choices.map((c) => c.name),
  });
}

/** What identifies a list's pages for one state: a new sort, filter or search starts over. */
export function stateKeyOf(setup: ListSetup, state: ListState): string {
  return apiQuery(state, setup.fixed, { limit: state.size }, setup.searchable.length > 0);
}

/**
 * One page of the list (the first when `cursor` is null, with the total). When it arrives, the
 * names of the users it refers to are asked for at once (when `nameUsers`), rather than after its
 * rows are drawn: one round trip less before the names show, and the rows are drawn once.
 */
export function listPageQuery(
  client: QueryClient,
  setup: ListSetup,
  state: ListState,
  cursor: string | null,
  nameUsers: boolean,
) {
  const { path, fixed, entity } = setup;
  const search = setup.searchable.length > 0;
  return {
    queryKey: ['list', path, stateKeyOf(setup, state), cursor] as const,
    queryFn: async (): Promise<ListPageAnswer> => {
      const query = apiQuery(state, fixed, { limit: state.size, cursor, count: cursor === null }, search);
      const page = (await api<ListPageAnswer>('GET', `${path}?${query}`)).body;
      const ids = nameUsers ? pageUserIds(entity, page.items) : [];
      if (ids.length > 0) client.prefetchQuery(usersByIdQuery(ids)).catch(() => undefined);
      return page;
    },
  };
}

/**
 * Fetches what a list screen shows first, as it will ask for it: its first page for the address
 * `search` (a link's own), and the user's saved views of it. Called when a link to the screen is
 * hovered, focused or pressed (`screens/route-data.ts`): the page may be in by the time the
 * screen is drawn, which then draws its rows at once instead of placeholders first.
 */
export function prefetchListScreen(client: QueryClient, model: Model, me: Me, screen: Screen, search = ''): void {
  const setup = listSetup(model, me, screen);
  if (!setup) return;
  const state = stateOf(setup, new URLSearchParams(search));
  client.prefetchQuery(listPageQuery(client, setup, state, null, me.user !== null)).catch(() => undefined);
  if (me.user) client.prefetchQuery(savedViewsQuery(screen.route)).catch(() => undefined);
}
