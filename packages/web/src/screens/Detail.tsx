import { lazy, Suspense } from 'react';
import type { ScreenProps } from '../app/context.ts';
import { Loading } from '../app/pages.tsx';
import { screenCode } from './route-code.ts';

// Fetched ahead (route-code.ts): on hover over a link, or once the browser is idle.
const DetailPage = lazy(async () => ({ default: (await screenCode('detail')).DetailPage }));

/** The `detail` screen. */
export function Detail(props: ScreenProps) {
  return (
    <Suspense fallback={<Loading />}>
      <DetailPage {...props} />
    </Suspense>
  );
}
