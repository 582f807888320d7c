import { CODE_API } from '../code/index.ts';
import type { FeatureApi } from '../compile/openapi.ts';
import { SYSTEM_API, SYSTEM_CALLS } from '../http/system-api.ts';
import { IMPORT_API } from '../import/index.ts';
import { LIVE_API, LIVE_CALLS } from '../live/index.ts';
import { OUTBOX_API } from '../outbox/index.ts';
import { PEOPLE_API, PEOPLE_CALLS } from '../people/index.ts';
import { RECORDS_API } from '../records/index.ts';
import { SAVED_VIEWS_API } from '../views/index.ts';

/**
 * What each feature declares for the OpenAPI document, in the order the document lists them: the
 * app's own calls, people, live updates, saved views, the outbox, then the spec's records and its custom calls (code). A new feature adds
 * its `FeatureApi` here (and its plugin in `server.ts`).
 */
export const FEATURE_APIS: readonly FeatureApi[] = [
  SYSTEM_API,
  PEOPLE_API,
  LIVE_API,
  SAVED_VIEWS_API,
  OUTBOX_API,
  RECORDS_API,
  IMPORT_API,
  CODE_API,
];

/**
 * The calls every app serves besides the spec's own: they exist even for the blank spec, and a
 * spec call with the same method and path is shadowed by them.
 */
export const SYSTEM_ROUTES: readonly SystemRoute[] = [...SYSTEM_CALLS, ...PEOPLE_CALLS, ...LIVE_CALLS].map(
  ({ method, path, operationId, summary }) => ({ method, path, operationId, summary }),
);

/** A call every app serves, in words: its method and path (as Fastify writes it), operationId and summary. */
export interface SystemRoute {
  method: string;
  path: string;
  operationId: string;
  summary: string;
}
