import { lazy, Suspense } from 'react';
import type { ScreenProps } from '../app/context.ts';
import { Loading } from '../app/pages.tsx';
import { screenCode } from './route-code.ts';

// Fetched ahead (route-code.ts): on hover over a link, or once the browser is idle.
const BoardPage = lazy(async () => ({ default: (await screenCode('board')).BoardPage }));

/** The `board` screen. */
export function Board(props: ScreenProps) {
  return (
    <Suspense fallback={<Loading />}>
      <BoardPage {...props} />
    </Suspense>
  );
}
