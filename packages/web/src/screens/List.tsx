import { lazy, Suspense } from 'react';
import type { ScreenProps } from '../app/context.ts';
import { Loading } from '../app/pages.tsx';

// Loaded when first opened: the app's first page does not wait for the list screen's code.
const ListPage = lazy(async () => ({ default: (await import('../list/ListPage.tsx')).ListPage }));

/** The `list` screen: paged, sortable, filterable and searchable records of an entity (see `list/ListPage.tsx`). */
export function List(props: ScreenProps) {
  return (
    <Suspense fallback={<Loading what="Loading the list" />}>
      <ListPage {...props} />
    </Suspense>
  );
}
