export { SAVED_VIEWS_API } from './saved-views-api.ts';
