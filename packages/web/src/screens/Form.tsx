import { lazy, Suspense } from 'react';
import type { ScreenProps } from '../app/context.ts';
import { Loading } from '../app/pages.tsx';
import { screenCode } from './route-code.ts';

// Fetched ahead (route-code.ts): on hover over a link, or once the browser is idle.
const FormPage = lazy(async () => ({ default: (await screenCode('form')).FormPage }));

/** The `form` screen. */
export function Form(props: ScreenProps) {
  return (
    <Suspense fallback={<Loading />}>
      <FormPage {...props} />
    </Suspense>
  );
}
