import { API, type FeatureApi, type Operation } from '../compile/openapi.ts';

/** The live updates call (`live-events.ts`), with its words for the OpenAPI document. */
export const LIVE_CALLS = [
  {
    method: 'GET',
    path: '/api/events',
    operationId: 'streamEvents',
    summary:
      'Live updates: a server-sent event stream (text/event-stream) on which each committed create, ' +
      'update, transition or delete of a record the signed-in user may read arrives as an event ' +
      '`change` with data {entity, id, kind, at}, never field values. Comments every 25 seconds keep ' +
      'it open; it ends when the session or token ends and when the server closes. At most 8 per user (RATE_LIMITED).',
  },
] as const;

/** Live updates in the OpenAPI document. */
export const LIVE_API: FeatureApi = {
  calls: ({ responses }) =>
    LIVE_CALLS.map((route) => {
      const operation: Operation = {
        operationId: route.operationId,
        summary: route.summary,
        tags: [API.systemTag],
        security: API.signedIn,
        responses: {
          '200': {
            description:
              'The stream. Each event: `event: change` and `data: {"entity":"Ticket","id":"…","kind":"create|update|transition|delete","at":"…"}`.',
            content: { 'text/event-stream': { schema: API.string } },
          },
          '204': { description: 'The server is shutting down: connect again (to another server).' },
          ...responses.for(API.anyCall),
        },
      };
      return { path: route.path, method: route.method, operation };
    }),
};
