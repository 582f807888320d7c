import fastifyPlugin from 'fastify-plugin';
import { type LiveEvents, type LiveOptions, registerLiveEvents } from './live-events.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Live updates (`live` plugin): tell it of each committed change; end its streams. */
    live: LiveEvents;
  }
}

/**
 * Live updates, as a Fastify plugin: `GET /api/events`, and `app.live`, which the records feature
 * tells of each committed write and the server uses to end the streams. Not encapsulated: its
 * hooks (a sign-out ends that session's streams; closing ends them all) concern the whole app.
 */
export const liveUpdates = fastifyPlugin<LiveOptions>(
  (app, options, done) => {
    app.decorate('live', registerLiveEvents(app, options));
    done();
  },
  { name: 'ninepoint-live', fastify: '5.x', dependencies: ['ninepoint-people'] },
);
