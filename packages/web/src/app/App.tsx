import { Container } from '@mantine/core';
import type { Model } from '@ninepoint/spec';
import { useEffect, useMemo, useRef } from 'react';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { useModel } from '../api/session.ts';
// The Studio (`ninepoint dev`): a full-width tool page of its own, outside the app's shell.
import { ABOUT_PATH, AboutPage } from '../home/About.tsx';
import { DELIVERIES_PATH } from '../outbox/api.ts';
import { DeliveriesRoute } from '../outbox/DeliveriesPage.tsx';
import { USERS_PATH } from '../people/UsersPage.tsx';
import { UsersRoute } from '../people/UsersRoute.tsx';
import { StudioRoute } from '../studio/StudioRoute.tsx';
import { AcceptInvitation } from './AcceptInvitation.tsx';
import { ModelContext } from './context.ts';
import { ForgotPassword } from './ForgotPassword.tsx';
import { Invite } from './Invite.tsx';
import { Failure, Loading, NotFound } from './pages.tsx';
import { ResetPassword } from './ResetPassword.tsx';
import { ScreenView } from './ScreenView.tsx';
import { Shell } from './Shell.tsx';
import { SignIn } from './SignIn.tsx';
import { SignUp } from './SignUp.tsx';
import { screensOf } from './screens.ts';
import { TWO_FACTOR_PATH, TwoFactorPage } from './TwoFactorPage.tsx';
import { VerifyEmail } from './VerifyEmail.tsx';

/** Loads the model, then routes every screen of point 2 (or the derived ones). */
export function App() {
  const model = useModel();
  if (model.isPending) return <Loading what="Loading the app" />;
  if (model.isError) {
    return (
      <Container py="xl">
        <Failure error={model.error} retry={() => void model.refetch()} />
      </Container>
    );
  }
  return <Routed model={model.data} />;
}

function Routed({ model }: { model: Model }) {
  const router = useMemo(
    () =>
      createBrowserRouter([
        {
          element: <Shell model={model} />,
          children: [
            ...screensOf(model).map((screen) => ({
              path: screen.route,
              element: <ScreenView key={screen.route} model={model} screen={screen} />,
            })),
            { path: '/sign-in', element: <SignIn /> },
            { path: '/forgot-password', element: <ForgotPassword /> },
            { path: '/reset-password', element: <ResetPassword /> },
            // A screen of the spec at /users keeps its route; the Users screen is then not reachable.
            ...(screensOf(model).some((s) => s.route === USERS_PATH)
              ? []
              : [{ path: USERS_PATH, element: <UsersRoute model={model} /> }]),
            ...(screensOf(model).some((s) => s.route === ABOUT_PATH)
              ? []
              : [{ path: ABOUT_PATH, element: <AboutPage model={model} /> }]),
            ...(screensOf(model).some((s) => s.route === DELIVERIES_PATH)
              ? []
              : [{ path: DELIVERIES_PATH, element: <DeliveriesRoute /> }]),
            { path: '/sign-up', element: <SignUp /> },
            { path: '/verify-email', element: <VerifyEmail /> },
            { path: '/accept-invitation', element: <AcceptInvitation /> },
            { path: '/invite', element: <Invite /> },
            { path: TWO_FACTOR_PATH, element: <TwoFactorPage /> },
            { path: '*', element: <NotFound /> },
          ],
        },
        { path: '/studio', element: <StudioRoute /> },
      ]),
    [model],
  );
  // Under `ninepoint dev` the model changes while the app runs: a new router replaces the old one,
  // which must stop listening to the browser's history (not on unmount: StrictMode remounts).
  const previous = useRef(router);
  useEffect(() => {
    if (previous.current !== router) previous.current.dispose();
    previous.current = router;
  }, [router]);
  return (
    <ModelContext value={model}>
      <RouterProvider router={router} />
    </ModelContext>
  );
}
