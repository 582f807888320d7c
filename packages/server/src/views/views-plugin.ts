import type { Screen } from '@ninepoint/spec';
import fastifyPlugin from 'fastify-plugin';
import { registerSavedViews } from './saved-views.ts';
import type { SavedViewsStore } from './saved-views-store.ts';

export interface SavedViewsOptions {
  /** The saved views' table, set up. */
  views: SavedViewsStore;
  /** The app's screens: a view is of one of its list screens. */
  screens: readonly Screen[];
  now?: () => number;
  /** The roles users may hold: a view may be shared with one. */
  roles?: readonly string[];
  /** Whether these roles manage people: they may share views with any role. */
  managesPeople?: (roles: readonly string[]) => boolean;
}

/** Saved list views, as a Fastify plugin: `GET/POST /api/views`, `DELETE /api/views/:id`. */
export const savedViews = fastifyPlugin<SavedViewsOptions>(
  (app, options, done) => {
    registerSavedViews(app, options);
    done();
  },
  { name: 'ninepoint-views', fastify: '5.x', dependencies: ['ninepoint-people'] },
);
