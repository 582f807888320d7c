import { lazy, Suspense } from 'react';
import type { ScreenProps } from '../app/context.ts';
import { Loading } from '../app/pages.tsx';

// Loaded when first opened: the app's first page does not wait for the form screen's code.
const FormPage = lazy(async () => ({ default: (await import('../records/FormPage.tsx')).FormPage }));

/** The `form` screen. */
export function Form(props: ScreenProps) {
  return (
    <Suspense fallback={<Loading />}>
      <FormPage {...props} />
    </Suspense>
  );
}
