// The records feature's public face: what the app, other features and the package's API may use.
export {
  type Committed,
  justRun,
  type RecordCreator,
  recordCreators,
  recordReader,
  registerEntityRoutes,
  type WriteAround,
} from './entity-routes.ts';
export { etagOf, ifMatchVersions } from './etag.ts';
export { encodeCursor, parseListQuery } from './list-query.ts';
export { RECORDS_API, visitorsMay } from './records-api.ts';
export { type RecordsOptions, records } from './records-plugin.ts';
export { effectFieldsCheck, withEffectFields } from './transition-effects.ts';
