import { ANYONE, type Screen } from '@ninepoint/spec';
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
 *
 * A view may also be shared with a role (`role` in the body): everyone holding it finds it beside
 * their own. Those who may share with a role are its members and whoever manages people
 * (`managesPeople`); the role must be one that may open the screen (its `who`). They alone replace
 * or delete its shared views.
 */
export function registerSavedViews(
  app: FastifyInstance,
  options: {
    views: SavedViewsStore;
    screens: readonly Screen[];
    now?: () => number;
    /** The roles users may hold; a view is shared with one of them. */
    roles?: readonly string[];
    managesPeople?: (roles: readonly string[]) => boolean;
  },
): void {
  const { views } = options;
  const now = options.now ?? Date.now;
  const lists = new Set(options.screens.filter((s) => s.kind === 'list').map((s) => s.route));
  const known = new Set(options.roles ?? []);
  const manages = options.managesPeople ?? (() => false);
  const mayShare = (request: FastifyRequest, role: string): boolean => {
    const roles = request.actor.user?.roles ?? [];
    return roles.includes(role) || manages(roles);
  };
  /** The roles that may open a list screen: a view shared with another would show them nothing. */
  const opens = (route: string, role: string): boolean => {
    const screen = options.screens.find((s) => s.kind === 'list' && s.route === route);
    return (
      screen !== undefined && (screen.who.length === 0 || screen.who.includes(ANYONE) || screen.who.includes(role))
    );
  };

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
    const screen = screenOf(query.screen);
    const roles = (request.actor.user?.roles ?? []).filter((r) => known.has(r));
    const shared = await views.listShared(roles, screen, (role) => mayShare(request, role));
    return reply.send({ items: [...(await views.list(user, screen)), ...shared] });
  });

  app.post('/api/views', { schema: { body: SAVE_VIEW_SCHEMA } }, async (request, reply) => {
    const user = userOf(request);
    const body = request.body as { screen: string; name: string; query: string; role?: string | null };
    const screen = screenOf(body.screen);
    const name = body.name.trim().replace(/\s+/g, ' ');
    // Control characters would print as nothing in a menu, and two names would look alike.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point.
    if (name === '' || /[\u0000-\u001f\u007f]/.test(name)) throw invalid('name must be words, not blank');
    const query = body.query.replace(/^\?/, '');
    if (query.includes('\u0000')) throw invalid('query must not contain NUL (U+0000) characters');
    const role = body.role ?? null;
    if (role !== null) {
      if (!known.has(role)) throw invalid(`role must be one of the app's roles: ${[...known].join(', ')}`);
      if (!opens(screen, role))
        throw invalid(`the role ${role} cannot open ${screen}: share the view with a role that can`);
      if (!mayShare(request, role)) {
        throw new ProblemError('FORBIDDEN');
      }
      const room = await views.sharedRoom(screen, role, name);
      if (!room.named && room.count >= SAVED_VIEW_LIMITS.perScreen) {
        throw invalid(
          `at most ${SAVED_VIEW_LIMITS.perScreen} views may be shared per screen and role: delete one first`,
        );
      }
      const saved = await views.saveShared(user, { id: uuidv7(), screen, name, query, role }, now());
      return reply.code(saved.created ? 201 : 200).send(saved.view);
    }
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
    const missing = () =>
      new ProblemError('NOT_FOUND', { entity: 'saved view', id: UUID.test(lower) ? lower : 'given' });
    if (!UUID.test(lower)) throw missing();
    if (await views.delete(user, lower)) return reply.code(204).send();
    const shared = await views.shared(lower);
    // A view shared with a role the caller neither holds nor manages is as if it did not exist.
    if (!shared?.role || !mayShare(request, shared.role)) throw missing();
    await views.deleteShared(lower);
    return reply.code(204).send();
  });
}

function invalid(detail: string): ProblemError {
  return new ProblemError('INVALID_PAYLOAD', { detail });
}
