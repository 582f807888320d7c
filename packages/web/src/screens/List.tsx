import { lazy, Suspense } from 'react';
import type { ScreenProps } from '../app/context.ts';
import { Loading } from '../app/pages.tsx';
import { screenCode } from './route-code.ts';

// Fetched ahead (route-code.ts): on hover over a link, or once the browser is idle.
const ListPage = lazy(async () => ({ default: (await screenCode('list')).ListPage }));

/** The `list` screen: paged, sortable, filterable and searchable records of an entity (see `list/ListPage.tsx`). */
export function List(props: ScreenProps) {
  return (
    <Suspense fallback={<Loading what="Loading the list" />}>
      <ListPage {...props} />
    </Suspense>
  );
}
