import type { StateMachine } from '@ninepoint/spec';
import type { InfiniteData, QueryClient } from '@tanstack/react-query';
import { type Move, stateLabel, transitionLabel } from './access.ts';
import type { ApiRecord, Page } from './calls.ts';

/** What the keys of every board column of the entity begin with. */
const columnsKey = (entity: string) => ['board', entity] as const;

/** The query key of a board column: the entity's records in one state, by the screen's filters. */
export function columnKey(entity: string, state: string, query: readonly (readonly [string, string])[]) {
  return [...columnsKey(entity), state, query] as const;
}

/**
 * Takes a record out of the cached board columns of the states it is no longer in, and lowers
 * their counts. Each column is fetched again on its own after a write, and a moved card would
 * otherwise show in two columns until the one it left is.
 */
export function leaveOtherColumns(client: QueryClient, entity: string, record: ApiRecord): void {
  if (typeof record.state === 'string') leaveColumns(client, entity, record.id, record.state);
}

/** Whether a cached board column of the entity shows the record. */
export function onBoard(client: QueryClient, entity: string, id: string): boolean {
  return client
    .getQueriesData<InfiniteData<Page>>({ queryKey: columnsKey(entity) })
    .some(([, data]) => shows(data, id));
}

/** Takes a record out of the cached board columns of the entity but `keep`'s (all of them when null). */
export function leaveColumns(client: QueryClient, entity: string, id: string, keep: string | null): void {
  for (const [key, data] of client.getQueriesData<InfiniteData<Page>>({ queryKey: columnsKey(entity) })) {
    if (key[2] === keep || !data || !shows(data, id)) continue;
    client.setQueryData<InfiniteData<Page>>(key, {
      ...data,
      pages: data.pages.map((p) => ({
        ...p,
        items: p.items.filter((r) => r.id !== id),
        ...(p.total === undefined ? {} : { total: Math.max(0, p.total - 1) }),
      })),
    });
  }
}

const shows = (data: InfiniteData<Page> | undefined, id: string) =>
  data?.pages.some((p) => p.items.some((r) => r.id === id)) === true;

/** States no step leads out of (closed, archived): a board folds them to their count. */
export function terminalStates(machine: StateMachine): Set<string> {
  const leaving = new Set(machine.transitions.filter((t) => !t.creates).flatMap((t) => t.from));
  return new Set(machine.states.map((s) => s.name).filter((s) => !leaving.has(s)));
}

/**
 * Why a dragged card may not enter a column, in a few words, or null when it may (or the column is
 * its own): no step leads there from its state, the steps that do are someone else's, or each of
 * them is refused now (`refusals`: a guard or rule's own message, by transition).
 */
export function dropRefusal(
  machine: StateMachine,
  record: ApiRecord,
  moves: readonly Move[],
  state: string,
  refusals: ReadonlyMap<string, string>,
): string | null {
  const from = String(record.state ?? '');
  if (from === state) return null;
  const mine = moves.filter((m) => m.to === state);
  const open = mine.filter((m) => !refusals.has(m.transition.name));
  if (open.length > 0) return null;
  const [first] = mine;
  if (first) return refusals.get(first.transition.name) ?? null;
  const steps = machine.transitions.filter((t) => !t.creates && t.to === state && t.from.includes(from));
  if (steps.length === 0) return `no step leads from ${stateLabel(from)} to ${stateLabel(state)}`;
  // An automatic step whose `who` names nobody is the app's alone.
  const bySystem = (t: (typeof steps)[number]) => t.automatic !== undefined && t.who.length === 0;
  const people = steps.filter((t) => !bySystem(t));
  if (people.length === 0) {
    return `only the app moves it there (${steps.map((t) => transitionLabel(t).toLowerCase()).join(' or ')})`;
  }
  const names = people.map((t) => transitionLabel(t)).join(' or ');
  const who = [...new Set(people.flatMap((t) => t.who))];
  return who.length > 0 ? `${names} is for ${who.join(', ')}` : `you may not ${names.toLowerCase()} it`;
}
