// Saved views' public face: what the app may use.
export { SAVED_VIEWS_API } from './saved-views-api.ts';
export { SavedViewsStore } from './saved-views-store.ts';
export { type SavedViewsOptions, savedViews } from './views-plugin.ts';
