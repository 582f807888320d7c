import fastifyPlugin from 'fastify-plugin';
import type { Actor } from '../compile/permissions.ts';
import type { Outbox } from './outbox.ts';
import { outboxRoutes } from './outbox-routes.ts';

export interface OutboxPluginOptions {
  /** The outbox, opened (`Outbox.open`): its tables set up, the store following writes. */
  outbox: Outbox;
  /** Who may see deliveries and retry them: those who manage people. */
  managesPeople: (actor: Actor) => boolean;
  now: () => number;
}

/**
 * Notifications and calls to other systems, as a Fastify plugin: `GET /api/deliveries`, "Retry
 * now", the caller's notification list; it starts the deliverer, which tells `app.live` of each
 * in-app notification, and stops it before the database closes. It notes each request's
 * arrival: delivery yields to requests while they keep the server busy.
 */
export const outbox = fastifyPlugin<OutboxPluginOptions>(
  (app, options, done) => {
    const { outbox: box } = options;
    void app.register(outboxRoutes, {
      deliveries: box.deliveries,
      managesPeople: options.managesPeople,
      kick: () => box.kick(),
      now: options.now,
      unconfigured: box.outgoing.unconfigured,
    });
    if (!box.outgoing.empty) {
      // Delivery yields to the requests while they keep the server busy (`RequestLoad`).
      app.addHook('onRequest', (_request, _reply, done) => {
        box.requests.seen();
        done();
      });
    }
    box.start((userId) => app.live.notified(userId));
    app.addHook('preClose', async () => {
      await box.stop();
    });
    done();
  },
  { name: 'ninepoint-outbox', fastify: '5.x', dependencies: ['ninepoint-people', 'ninepoint-live'] },
);
