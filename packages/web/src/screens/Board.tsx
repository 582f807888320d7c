import { lazy, Suspense } from 'react';
import type { ScreenProps } from '../app/context.ts';
import { Loading } from '../app/pages.tsx';

// Loaded when first opened: the app's first page does not wait for the board screen's code.
const BoardPage = lazy(async () => ({ default: (await import('../records/BoardPage.tsx')).BoardPage }));

/** The `board` screen. */
export function Board(props: ScreenProps) {
  return (
    <Suspense fallback={<Loading />}>
      <BoardPage {...props} />
    </Suspense>
  );
}
