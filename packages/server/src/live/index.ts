// Live updates' public face: what the app and other features may use.
export { type Change, type ChangeFeed, LocalFeed, PgFeed } from './change-feed.ts';
export { LIVE_API, LIVE_CALLS } from './live-api.ts';
export type { LiveEvents, LiveOptions, LocalChange } from './live-events.ts';
export { liveUpdates } from './live-plugin.ts';
