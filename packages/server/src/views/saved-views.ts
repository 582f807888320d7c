import type { Screen } from '@ninepoint/spec';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ProblemError } from '../compile/problems.ts';
import { UUID, uuidv7 } from '../store/uuidv7.ts';
import { SAVE_VIEW_SCHEMA, SAVED_VIEW_LIMITS } from './saved-views-api.ts';
import type { SavedViewsStore } from './saved-views-store.ts';

/**
 * `GET/POST /api/views` and `DELETE /api/views/:id`: list views a user saved by name, kept on
 * the server so they follow the user to any device. Each call reads and writes the caller's own
 * views only; another user's view is as if it did not exist. `screens` are the list screens a
 * view may be of (their routes).
 */
export function registerSavedViews(
  app: FastifyInstance,
  options: { views: SavedViewsStore; screens: readonly Screen[]; now?: () => number },
): void {
  const { views } = options;
  const now = options.now ?? Date.now;
  const lists = new Set(options.screens.filter((s) => s.kind === 'list').map((s) => s.route));

  const userOf = (request: FastifyRequest): string => {
    const id = request.actor.user?.id;
    if (id === undefined) throw new ProblemError('NOT_SIGNED_IN');
    return id;
  };
  const screenOf = (screen: unknown): string => {
    if (typeof screen !== 'string' || !lists.has(screen)) throw invalid('screen must be the route of a list screen');
    return screen;
  };

  app.get('/api/views', async (request, reply) => {
    const user = userOf(request);
    const query = request.query as Record<string, string | string[] | undefined>;
    if (Object.keys(query).some((k) => k !== 'screen')) throw invalid('the only parameter is screen');
    return reply.send({ items: await views.list(user, screenOf(query.screen)) });
  });

  app.post('/api/views', { schema: { body: SAVE_VIEW_SCHEMA } }, async (request, reply) => {
    const user = userOf(request);
    const body = request.body as { screen: string; name: string; query: string };
    const screen = screenOf(body.screen);
    const name = body.name.trim().replace(/\s+/g, ' ');
    // Control characters would print as nothing in a menu, and two names would look alike.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point.
    if (name === '' || /[\u0000-\u001f\u007f]/.test(name)) throw invalid('name must be words, not blank');
    const query = body.query.replace(/^\?/, '');
    if (query.includes('\u0000')) throw invalid('query must not contain NUL (U+0000) characters');
    const existing = await views.list(user, screen);
    if (!existing.some((v) => v.name === name) && existing.length >= SAVED_VIEW_LIMITS.perScreen) {
      throw invalid(`at most ${SAVED_VIEW_LIMITS.perScreen} views may be saved per screen: delete one first`);
    }
    const saved = await views.save(user, { id: uuidv7(), screen, name, query }, now());
    return reply.code(saved.created ? 201 : 200).send(saved.view);
  });

  app.delete('/api/views/:id', async (request, reply) => {
    const user = userOf(request);
    const { id } = request.params as { id: string };
    const lower = id.toLowerCase();
    if (!UUID.test(lower) || !(await views.delete(user, lower))) {
      throw new ProblemError('NOT_FOUND', { entity: 'saved view', id: UUID.test(lower) ? lower : 'given' });
    }
    return reply.code(204).send();
  });
}

function invalid(detail: string): ProblemError {
  return new ProblemError('INVALID_PAYLOAD', { detail });
}
