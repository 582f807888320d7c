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
 * in-app notification, and stops it before the database closes. It counts the requests waiting
 * for an answer, which delivery yields to.
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
      // Delivery yields to the requests (`RequestLoad`): each is counted from its arrival until its
      // answer starts, or its connection closes.
      const answered = Symbol('answered');
      type Counted = { [answered]?: () => void };
      app.addHook('onRequest', (request, reply, done) => {
        const countOut = box.requests.started();
        (request as Counted)[answered] = countOut;
        reply.raw.once('close', countOut);
        done();
      });
      app.addHook('onSend', (request, _reply, payload, done) => {
        (request as Counted)[answered]?.();
        done(null, payload);
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
