import type { StudioStatus } from '@ninepoint/spec';
import { MAX_SPEC_BYTES } from '@ninepoint/spec';
import type { FastifyInstance } from 'fastify';
import type { JsonSchema } from '../compile/json-schemas.ts';
import { ProblemError } from '../compile/problems.ts';
import { refuseNamedHost } from '../http/local-host.ts';
import { sameOrigin } from '../http/same-origin.ts';
import { SPEC_EVENTS_PATH } from './spec-events.ts';

/** The Studio's page and calls; only `ninepoint dev` has them. */
export const STUDIO_ROUTES = {
  /** The web app's Studio page. */
  page: '/studio',
  /** `GET`: `{ path, source, status }`. */
  studio: '/api/dev/studio',
  /** `PUT { "source": "…" }`: writes the spec file and applies it; answers `{ status }`. */
  source: '/api/dev/studio/source',
  /** `GET`: the `spec` server-sent events, a `StudioStatus` each. */
  events: SPEC_EVENTS_PATH,
} as const;

/** What the Studio's calls read and do, owned by the dev server. */
export interface Studio {
  read(): { path: string; source: string; status: StudioStatus };
  /** Writes the spec file and applies it; the status says how that went. */
  save(source: string): Promise<StudioStatus>;
}

const SOURCE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { source: { type: 'string', maxLength: MAX_SPEC_BYTES } },
  required: ['source'],
  additionalProperties: false,
};

/**
 * Registers the Studio's calls. Saving writes a file on this machine, so it is refused from
 * another origin (a page elsewhere posting here) and for a request addressed to a DNS name other
 * than localhost (DNS rebinding), as dev sign-in is.
 */
export function registerStudioRoutes(app: FastifyInstance, studio: Studio): void {
  app.get(STUDIO_ROUTES.studio, async (request, reply) => {
    refuseNamedHost(request);
    return reply.header('cache-control', 'no-store').send(studio.read());
  });

  app.put(
    STUDIO_ROUTES.source,
    // JSON escaping can double a spec's size: allow for it, the schema bounds the text itself.
    { schema: { body: SOURCE_SCHEMA }, bodyLimit: MAX_SPEC_BYTES * 2 + 1024 },
    async (request, reply) => {
      refuseNamedHost(request);
      if (request.headers.origin !== undefined && !sameOrigin(request)) {
        throw new ProblemError('FORBIDDEN', {}, { detail: 'The spec can be saved only from the Studio’s own page.' });
      }
      const { source } = request.body as { source: string };
      return reply.send({ status: await studio.save(source) });
    },
  );
}
