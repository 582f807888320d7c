import { useCallback, useSyncExternalStore } from 'react';

/** A phone's width: lists show cards, a board's columns take most of the screen. */
export const PHONE = '(max-width: 36em)';

interface Watched {
  matches: boolean;
  listeners: Set<() => void>;
}

const watched = new Map<string, Watched>();

/** One MediaQueryList per query for the whole app, its answer kept from its `change` events. */
function watch(query: string): Watched {
  let entry = watched.get(query);
  if (!entry) {
    const list = window.matchMedia(query);
    const created: Watched = { matches: list.matches, listeners: new Set() };
    list.addEventListener('change', (event) => {
      created.matches = event.matches;
      for (const listener of created.listeners) listener();
    });
    watched.set(query, created);
    entry = created;
  }
  return entry;
}

/**
 * Whether a media query matches, for many components at once (every column of a board): asking
 * the browser (`matchMedia`) while a page is being drawn makes it work out the styles there and
 * then, once per component; here it is asked once, and told of changes.
 */
export function useMedia(query: string): boolean {
  const subscribe = useCallback(
    (changed: () => void) => {
      const entry = watch(query);
      entry.listeners.add(changed);
      return () => entry.listeners.delete(changed);
    },
    [query],
  );
  return useSyncExternalStore(
    subscribe,
    () => watch(query).matches,
    () => false,
  );
}
