import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Actor } from '../compile/permissions.ts';
import { ProblemError } from '../compile/problems.ts';
import { UUID } from '../store/uuidv7.ts';
import { type DeliveriesStore, type DeliveryStatus, deliveryOf } from './deliveries-store.ts';

export const DELIVERIES_PATH = '/api/deliveries';
export const NOTIFICATIONS_PATH = '/api/notifications';
const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'dead'];
const MAX_PAGE = 200;

export interface OutboxRoutesOptions {
  deliveries: DeliveriesStore;
  /** Who may see deliveries and retry them: those who manage people. */
  managesPeople: (actor: Actor) => boolean;
  /** Wakes the deliverer ("Retry now"). */
  kick: () => void;
  now: () => number;
  /** Sentences saying which calls and recipients are not configured. */
  unconfigured: readonly string[];
}

/**
 * `GET /api/deliveries` and `POST /api/deliveries/:id/retry` for those who manage people (each
 * call and mail: event, target, status, attempts, last answer and when, next try; never the
 * record's values), and the caller's own notification list: `GET /api/notifications`,
 * `POST /api/notifications/:id/read`, `POST /api/notifications/read` (all).
 */
export async function outboxRoutes(app: FastifyInstance, options: OutboxRoutesOptions): Promise<void> {
  const { deliveries, now } = options;

  const manager = (request: FastifyRequest): void => {
    if (request.actor.userId === null) throw new ProblemError('NOT_SIGNED_IN');
    if (!options.managesPeople(request.actor)) throw new ProblemError('FORBIDDEN');
  };
  const userOf = (request: FastifyRequest): string => {
    const id = request.actor.userId;
    if (id === null) throw new ProblemError('NOT_SIGNED_IN');
    return id;
  };
  const invalid = (detail: string) => new ProblemError('INVALID_PAYLOAD', { detail });
  const idOf = (request: FastifyRequest): string => {
    const id = (request.params as { id?: string }).id ?? '';
    if (!UUID.test(id)) throw new ProblemError('NOT_FOUND', { entity: 'delivery', id });
    return id;
  };

  app.get(DELIVERIES_PATH, async (request, reply) => {
    manager(request);
    const query = request.query as Record<string, unknown>;
    for (const key of Object.keys(query)) {
      if (!['status', 'limit', 'before'].includes(key)) throw invalid(`unknown parameter ${key}`);
    }
    const status = query.status === undefined ? null : String(query.status);
    if (status !== null && !STATUSES.includes(status as DeliveryStatus)) {
      throw invalid(`status must be one of ${STATUSES.join(', ')}`);
    }
    const limit = query.limit === undefined ? 50 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw invalid(`limit must be 1 to ${MAX_PAGE}`);
    const before = query.before === undefined ? null : String(query.before);
    if (before !== null && !UUID.test(before)) throw invalid('before must be a delivery id');
    const rows = await deliveries.list({ status: status as DeliveryStatus | null, limit: limit + 1, before });
    const page = rows.slice(0, limit);
    return reply.send({
      items: page.map(deliveryOf),
      next: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
      counts: await deliveries.counts(),
      unconfigured: options.unconfigured,
    });
  });

  app.post(`${DELIVERIES_PATH}/:id/retry`, async (request, reply) => {
    manager(request);
    const id = idOf(request);
    const row = await deliveries.retryNow(id, now());
    if (row === undefined) throw new ProblemError('NOT_FOUND', { entity: 'delivery', id });
    if (row === 'delivered') {
      throw new ProblemError('CONFLICT', { entity: 'delivery' }, { detail: 'This delivery was delivered already.' });
    }
    options.kick();
    return reply.send(deliveryOf(row));
  });

  app.get(NOTIFICATIONS_PATH, async (request, reply) => {
    const user = userOf(request);
    return reply.send(await deliveries.notifications(user, 50));
  });

  app.post(`${NOTIFICATIONS_PATH}/read`, async (request, reply) => {
    const user = userOf(request);
    await deliveries.markRead(user, null, now());
    return reply.code(204).send();
  });

  app.post(`${NOTIFICATIONS_PATH}/:id/read`, async (request, reply) => {
    const user = userOf(request);
    const id = (request.params as { id?: string }).id ?? '';
    if (!UUID.test(id)) throw new ProblemError('NOT_FOUND', { entity: 'notification', id });
    await deliveries.markRead(user, id, now());
    return reply.code(204).send();
  });
}
