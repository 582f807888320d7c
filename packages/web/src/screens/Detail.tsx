import { lazy, Suspense } from 'react';
import type { ScreenProps } from '../app/context.ts';
import { Loading } from '../app/pages.tsx';

// Loaded when first opened: the app's first page does not wait for the detail screen's code.
const DetailPage = lazy(async () => ({ default: (await import('../records/DetailPage.tsx')).DetailPage }));

/** The `detail` screen. */
export function Detail(props: ScreenProps) {
  return (
    <Suspense fallback={<Loading />}>
      <DetailPage {...props} />
    </Suspense>
  );
}
