import type { Screen } from '@ninepoint/spec';

/**
 * Each screen kind's code, fetched once: the screen's `lazy` waits on the same promise that a
 * hover on a link or the browser's first idle moment started, so a first visit finds it loaded.
 */
const LOADERS = {
  list: () => import('../list/ListPage.tsx'),
  detail: () => import('../records/DetailPage.tsx'),
  form: () => import('../records/FormPage.tsx'),
  board: () => import('../records/BoardPage.tsx'),
  dashboard: () => import('../dashboard/DashboardPage.tsx'),
} as const;

type Kind = keyof typeof LOADERS;
type Loaded = { [K in Kind]: Awaited<ReturnType<(typeof LOADERS)[K]>> };
const started = new Map<Kind, Promise<unknown>>();

/** A screen kind's module, fetching it on the first call only. */
export function screenCode<K extends Kind>(kind: K): Promise<Loaded[K]> {
  let promise = started.get(kind);
  if (!promise) {
    promise = LOADERS[kind]();
    // A failed fetch (offline for a moment) is tried again on the next call.
    promise.catch(() => started.delete(kind));
    started.set(kind, promise);
  }
  return promise as Promise<Loaded[K]>;
}

/** Starts fetching the code of a screen kind (home has none of its own); errors surface when it is opened. */
export function prefetchScreen(kind: Screen['kind']): void {
  if (kind !== 'home') screenCode(kind).catch(() => undefined);
}

/** Fetches every kind's code the screens use once the browser is idle: after the first page has drawn. */
export function prefetchWhenIdle(kinds: Iterable<Screen['kind']>): () => void {
  const wanted = [...new Set(kinds)];
  const run = () => {
    for (const kind of wanted) prefetchScreen(kind);
  };
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(run, { timeout: 2000 });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(run, 200);
  return () => clearTimeout(id);
}
