import { lazy, Suspense } from 'react';
import type { ScreenProps } from '../app/context.ts';
import { Loading } from '../app/pages.tsx';

// Loaded when first opened, with the chart library: the app's first page does not carry either.
const DashboardPage = lazy(async () => ({ default: (await import('../dashboard/DashboardPage.tsx')).DashboardPage }));

/** The `dashboard` screen. */
export function Dashboard(props: ScreenProps) {
  return (
    <Suspense fallback={<Loading />}>
      <DashboardPage {...props} />
    </Suspense>
  );
}
