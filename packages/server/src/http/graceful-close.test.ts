import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { TEST_DATABASES } from '../../test/databases.ts';
import { LENDING_DESK, modelOf } from '../../test/helpers.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

/** A signal a test raises once, and a promise that resolves when it is raised. */
function latch() {
  let raise: () => void = () => {};
  const raised = new Promise<void>((resolve) => {
    raise = resolve;
  });
  return { raise, raised };
}

/**
 * A server with `GET /test/slow`, which says it has started, waits for `release`, then reads the
 * database: a request that is under way when closing begins.
 */
async function serverWithSlowCall(options: object, closeGraceMs?: number) {
  const started = latch();
  const release = latch();
  const server: NinepointServer = await createServer({
    model: modelOf(LENDING_DESK),
    ...options,
    logger: false,
    ...(closeGraceMs === undefined ? {} : { closeGraceMs }),
    extend: {
      pages: [],
      register: (app: FastifyInstance) => {
        app.get('/test/slow', async () => {
          started.raise();
          await release.raised;
          await server.store.ping();
          return { done: true };
        });
      },
    },
  });
  const url = await server.listen({ port: 0 });
  return { server, url, started: started.raised, release: release.raise };
}

// On PostgreSQL too: closing waits on each database's own connections (a file, or a pool).
describe.each(TEST_DATABASES)('closing a server on $name', (db) => {
  it('lets a request under way finish with the database open, then closes its connection and the database', async () => {
    const fresh = await db.fresh();
    const { server, url, started, release } = await serverWithSlowCall(fresh.options);
    try {
      const slow = fetch(`${url}/test/slow`);
      await started;
      let closed = false;
      const closing = server.close().then(() => {
        closed = true;
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect(closed).toBe(false);
      // A new request is refused (or, if its connection was accepted as closing began, answered 503).
      const late = await fetch(`${url}/api/health`).then(
        (r) => r.status,
        () => 'refused',
      );
      expect(['refused', 503]).toContain(late);
      release();
      const response = await slow;
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ done: true });
      // The client keeps its connection open (keep-alive): closing does not wait for it to go.
      await closing;
      await expect(server.store.ping()).rejects.toThrow();
    } finally {
      release();
      await server.close();
      await fresh.remove();
    }
  });

  it('cuts a request still running after the grace period, and still closes the database', async () => {
    const fresh = await db.fresh();
    const { server, url, started, release } = await serverWithSlowCall(fresh.options, 0);
    try {
      const hung = fetch(`${url}/test/slow`).then(
        () => 'answered',
        () => 'cut',
      );
      await started;
      await server.close();
      expect(await hung).toBe('cut');
      await expect(server.store.ping()).rejects.toThrow();
    } finally {
      release();
      await fresh.remove();
    }
  });
});
