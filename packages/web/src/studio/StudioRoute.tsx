import { lazy, Suspense } from 'react';
import { useDevMode } from '../api/dev.ts';
import { Loading } from '../app/pages.tsx';
import { NoStudio } from './StudioUnavailable.tsx';

/** The editor, CodeMirror and the checker's views: a chunk of its own, loaded only when the Studio opens in dev mode. */
const StudioPage = lazy(() => import('./StudioPage.tsx'));

/** `/studio`: the Studio under `ninepoint dev`, and under `serve` a page that says how to get it. */
export function StudioRoute() {
  const dev = useDevMode();
  if (dev === undefined) return <Loading what="Loading the Studio" />;
  if (!dev) return <NoStudio />;
  return (
    <Suspense fallback={<Loading what="Loading the Studio" />}>
      <StudioPage />
    </Suspense>
  );
}
