import { lazy, Suspense } from 'react';
import type { ScreenProps } from '../app/context.ts';
import { Loading } from '../app/pages.tsx';
import { screenCode } from './route-code.ts';

// Fetched ahead (route-code.ts): on hover over a link, or once the browser is idle.
const DashboardPage = lazy(async () => ({ default: (await screenCode('dashboard')).DashboardPage }));

/** The `dashboard` screen. */
export function Dashboard(props: ScreenProps) {
  return (
    <Suspense fallback={<Loading />}>
      <DashboardPage {...props} />
    </Suspense>
  );
}
