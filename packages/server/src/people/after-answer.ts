import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../compile/problems.ts';
import type { AuthStore } from './auth-store.ts';

/**
 * Work a call does after its answer has gone (looking an account up, making a link, mailing it),
 * so that neither the answer nor its timing depends on it. Closing the app waits for what is
 * under way; a failure is logged as `failed`, the person having had their answer already.
 */
export function afterAnswer(
  app: FastifyInstance,
): (log: FastifyBaseLogger, failed: string, work: () => Promise<void>) => void {
  const pending = new Set<Promise<void>>();
  app.addHook('onClose', async () => {
    await Promise.all(pending);
  });
  return (log, failed, work) => {
    const job: Promise<void> = new Promise((resolve) => setImmediate(resolve))
      .then(work)
      .catch((error: unknown) => log.error({ err: error }, failed))
      .finally(() => pending.delete(job));
    pending.add(job);
  };
}

/**
 * Counts a call against hourly limits kept in the database (shared by several app servers), each
 * key with its own limit; past any of them, RATE_LIMITED with `Retry-After` until the clock hour
 * ends, and `detail` saying what was limited. Counters of past hours under `prefix` are forgotten.
 */
export async function limitPerHour(
  auth: AuthStore,
  request: FastifyRequest,
  reply: FastifyReply,
  at: number,
  limits: { key: string; limit: number }[],
  prefix: string,
  detail: string,
): Promise<void> {
  const windowMs = 3_600_000;
  const window = Math.floor(at / windowMs) * windowMs;
  let over: string | undefined;
  for (const { key, limit } of limits) {
    if ((await auth.counters.hit(key, window)) > limit) over ??= key;
  }
  if (over !== undefined) {
    // Which kind of key, never the key: it holds an email or an address.
    request.log.warn({ key: over.split(':')[1] }, `${prefix.slice(0, -1)} limited`);
    const seconds = Math.max(1, Math.ceil((window + windowMs - at) / 1000));
    const minutes = Math.ceil(seconds / 60);
    reply.header('retry-after', String(seconds));
    throw new ProblemError(
      'RATE_LIMITED',
      {},
      { detail: `${detail} Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` },
    );
  }
  await auth.counters.prune(window - windowMs, prefix);
}
