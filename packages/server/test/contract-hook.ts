import { channel } from 'node:diagnostics_channel';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach } from 'vitest';
import { SERVER_CREATED_CHANNEL, type ServerCreated } from '../src/app/server-channel.ts';
import type { OpenApiContract } from './openapi-contract.ts';

/**
 * The contract hook, a Vitest setup file (`vitest.config.ts`): every answer a Ninepoint server
 * of the test process sends (through `app.inject`, fetch or a browser) is checked against the
 * OpenAPI document that server serves (`openapi-contract.ts`), and the test that received an
 * answer the document does not describe fails once it ends, naming the operation, the status
 * and Ajv's error. The answer itself is sent unchanged, so the test runs as it would without
 * the hook. Servers started as other processes are not seen.
 *
 * Each Fastify instance gets the `onSend` hook as it is made (Fastify's `fastify.initialization`
 * channel), so it runs before the app's own hooks (compression) see the body; the server's
 * `ninepoint:server-created` channel then says which document the instance serves. Nothing of
 * the server is imported here before a test file runs: a file's `vi.mock` (argon2 in auth.test.ts)
 * must still apply to the server it loads, so the checker is loaded when the first server is made.
 */
const contracts = new WeakMap<FastifyInstance, Promise<OpenApiContract>>();
const checker = () => import('./openapi-contract.ts');
const violations: string[] = [];

/**
 * A worker of a project without isolation (unit, browser) evaluates a setup file again for each
 * test file: the previous evaluation's subscriptions are dropped first, so that a server made
 * later is checked once, by this file's hook, and not once more per file run before it.
 */
const UNSUBSCRIBE = Symbol.for('ninepoint.contract-hook.unsubscribe');
const registry = globalThis as { [UNSUBSCRIBE]?: () => void };
registry[UNSUBSCRIBE]?.();

const onInitialization = (message: unknown) => {
  const { fastify } = message as { fastify: FastifyInstance };
  fastify.addHook('onSend', async (request, reply, payload) => {
    const contract = await contracts.get(fastify);
    if (contract) {
      const body =
        typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
      const contentType = reply.getHeader('content-type');
      const violation = contract.check({
        method: request.method,
        path: request.url.split('?', 1)[0] ?? '/',
        status: reply.statusCode,
        contentType: contentType === undefined ? undefined : String(contentType),
        body: payload === null || payload === undefined ? '' : body,
      });
      if (violation) violations.push((await checker()).describeViolation(violation));
    }
    return payload;
  });
};

const onServerCreated = (message: unknown) => {
  const { app, openapi } = message as ServerCreated;
  contracts.set(
    app,
    checker().then((m) => m.contractOf(openapi)),
  );
};

channel('fastify.initialization').subscribe(onInitialization);
channel(SERVER_CREATED_CHANNEL).subscribe(onServerCreated);
registry[UNSUBSCRIBE] = () => {
  channel('fastify.initialization').unsubscribe(onInitialization);
  channel(SERVER_CREATED_CHANNEL).unsubscribe(onServerCreated);
};

function failOnViolations(): void {
  if (violations.length === 0) return;
  const found = violations.splice(0);
  const shown = found.slice(0, 5).join('\n  ');
  const more = found.length > 5 ? `\n  …and ${found.length - 5} more` : '';
  throw new Error(
    `The contract hook found ${found.length} answer(s) breaking the OpenAPI document:\n  ${shown}${more}`,
  );
}

afterEach(failOnViolations);
afterAll(failOnViolations);
