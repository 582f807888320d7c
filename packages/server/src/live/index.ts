export { LIVE_API, LIVE_CALLS } from './live-api.ts';
