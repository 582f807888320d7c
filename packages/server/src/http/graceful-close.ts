import type { FastifyInstance } from 'fastify';

/**
 * How long closing waits for the requests under way before cutting their connections: less than
 * the 10 s `docker stop` (and most container platforms) wait before killing the process, so that
 * the database is still closed cleanly.
 */
export const CLOSE_GRACE_MS = 8000;

/** How often closing looks for connections that have become idle. */
const IDLE_CHECK_MS = 50;

/**
 * Stops taking connections and waits for the requests under way, then resolves (Fastify then ran
 * its onClose hooks). Node closes only the connections idle when closing begins, and a response
 * finished while closing still says keep-alive: without the idle checks a browser's connection
 * would hold the close open for the whole keep-alive timeout (72 s). A request still running after
 * `graceMs` has its connection cut.
 */
export async function closeGracefully(app: FastifyInstance, graceMs = CLOSE_GRACE_MS): Promise<void> {
  const { server } = app;
  const idle = setInterval(() => server.closeIdleConnections(), IDLE_CHECK_MS);
  const cut = setTimeout(() => server.closeAllConnections(), graceMs);
  try {
    await app.close();
  } finally {
    clearInterval(idle);
    clearTimeout(cut);
  }
}
