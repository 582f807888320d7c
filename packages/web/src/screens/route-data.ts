import type { Model, Screen } from '@ninepoint/spec';
import type { QueryClient } from '@tanstack/react-query';
import type { Me } from '../api/session.ts';
import { visibleModel } from '../records/visible-model.ts';
import { screenCode } from './route-code.ts';

/**
 * A screen's first data, fetched when a link to it shows the user means to open it (the pointer
 * rests on it, it is focused, or pressed): its code is usually loaded by then (`route-code.ts`),
 * and the calls it will make go out with it, under the keys the screen asks for. When the answers
 * are in before the screen is drawn, it draws its rows, cards or figures at once instead of
 * placeholders first and everything again a moment later. Home, detail and form screens are left
 * to themselves: a link in the navigation never opens one with a record.
 */
export function prefetchScreenData(client: QueryClient, model: Model, me: Me, screen: Screen): void {
  if (screen.params.length > 0) return;
  // Screens are drawn from the fields the user may read (see `ScreenView`): the same model here.
  const shown = visibleModel(model, me);
  const failed = () => undefined;
  switch (screen.kind) {
    case 'list':
      screenCode('list')
        .then((code) => code.prefetchListScreen(client, shown, me, screen))
        .catch(failed);
      return;
    case 'board':
      screenCode('board')
        .then((code) => code.prefetchBoardScreen(client, shown, me, screen))
        .catch(failed);
      return;
    case 'dashboard':
      screenCode('dashboard')
        .then((code) => code.prefetchDashboardScreen(client, shown, me, screen))
        .catch(failed);
      return;
    case 'home':
    case 'detail':
    case 'form':
      return;
  }
}

/** How long the pointer rests on a link before its screen's data is fetched: passing over it is not enough. */
export const HOVER_INTENT_MS = 60;
