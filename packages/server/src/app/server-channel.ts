import type { FastifyInstance } from 'fastify';
import type { OpenApiDocument } from '../compile/openapi.ts';

/**
 * The diagnostics channel a server publishes on once its app is built, before it serves:
 * `{ app, openapi }` (a `ServerCreated`). For instrumentation: the test suites subscribe to check
 * every answer against the document. Publishing costs nothing when nobody subscribes. A module
 * of its own, so a subscriber loads nothing of the server by naming it.
 */
export const SERVER_CREATED_CHANNEL = 'ninepoint:server-created';

export interface ServerCreated {
  app: FastifyInstance;
  openapi: OpenApiDocument;
}
