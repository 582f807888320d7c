import type { Model } from '@ninepoint/spec';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { type Logger, pino } from 'pino';
import { createAjv } from '../compile/ajv.ts';
import { type CompiledApp, compileApp } from '../compile/compile-app.ts';
import { SqlSchemaError } from '../compile/sql-schema.ts';
import { openStore, type StoreOptions } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { registerApiDocs } from './api-docs.ts';
import { registerEntityRoutes } from './entity-routes.ts';
import { classifyError } from './error-handler.ts';
import { PROBLEM_CONTENT_TYPE, type ProblemExtras, type ProblemParams } from './problem.ts';
import { REQUEST_ID_HEADER, requestId } from './request-id.ts';

export interface ServerOptions extends StoreOptions {
  /** A checked model without errors. */
  model: Model;
  /** A pino logger, or false for none. Default: JSON lines on stdout at `LOG_LEVEL` (info). */
  logger?: Logger | false;
}

export interface NinepointServer {
  readonly app: FastifyInstance;
  readonly compiled: CompiledApp;
  readonly store: Store;
  /** Starts listening; resolves to the URL it listens at. Default: 127.0.0.1, port 3000. */
  listen(options?: { port?: number; host?: string }): Promise<string>;
  /** Stops taking requests, lets those under way finish, then closes the database. Safe to call twice. */
  close(): Promise<void>;
}

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 3000;
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A logger for a server: JSON lines on stdout, credentials redacted should a header ever be logged. */
export function defaultLogger(): Logger {
  return pino({
    level: process.env.LOG_LEVEL ?? 'info',
    redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
  });
}

/**
 * Compiles the model, opens its database and creates what is missing there, and builds the HTTP
 * server around them. It does not listen until `listen` is called.
 *
 * @example
 * const server = await createServer({ model, dbPath: 'data/ninepoint.db' });
 * console.log(await server.listen({ port: 3000 }));
 */
export async function createServer(options: ServerOptions): Promise<NinepointServer> {
  const compiled = compileApp(options.model);
  const logger = options.logger === false ? pino({ level: 'silent' }) : (options.logger ?? defaultLogger());
  const store = await openStore(options);
  try {
    const applied = await store.applySchema(compiled.sqlSchema, compiled.model);
    if (applied.created.length > 0) logger.info({ tables: applied.created }, 'created tables');
    if (applied.missingColumns.length > 0) {
      const lacking = applied.missingColumns.map(({ table, columns }) => `table ${table} lacks ${columns.join(', ')}`);
      throw new SqlSchemaError(
        `the database "${store.location}" was made for another version of the spec (${lacking.join('; ')}). ` +
          'Changing existing tables (migrations) is not supported yet: serve this spec from a new database file (--db).',
      );
    }
    for (const call of compiled.routeTable.shadowed) {
      logger.warn({ method: call.method, path: call.path }, 'a system call takes precedence over this spec call');
    }
    const app = buildApp(compiled, store, logger);
    return wrap(app, compiled, store);
  } catch (error) {
    await store.close();
    throw error;
  }
}

function buildApp(compiled: CompiledApp, store: Store, logger: Logger): FastifyInstance {
  const { catalogue, settings } = compiled;
  const sendProblem = (
    request: FastifyRequest,
    reply: FastifyReply,
    code: string,
    params: ProblemParams = {},
    extras: ProblemExtras = {},
  ) => {
    const instance = request.url.split('?', 1)[0] ?? '/';
    const body = catalogue.problem(code, params, { instance, requestId: request.id }, extras);
    return reply.code(body.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
  };

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: settings.MAX_BODY_BYTES,
    genReqId: requestId,
    requestIdHeader: false,
    // Errors raised before routing (an undecodable URL): the same catalogue answers them.
    frameworkErrors: (error, request, reply) => {
      const classified = classifyError(error, settings);
      void sendProblem(request, reply, classified.code === 'INTERNAL_ERROR' ? 'UNKNOWN_CALL' : classified.code);
    },
  }) as unknown as FastifyInstance;

  // Request bodies are checked strictly: no coercion, no silently dropped properties.
  const ajv = createAjv();
  app.setValidatorCompiler(({ schema }) => ajv.compile(schema));

  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    reply.header('x-content-type-options', 'nosniff');
  });
  app.addHook('onClose', async () => {
    await store.close();
  });

  const health = JSON.stringify({ status: 'ok', spec: compiled.model.product.name, database: store.dialect });
  app.get('/api/health', async (_request, reply) => {
    await store.ping();
    return reply.type(JSON_CONTENT_TYPE).send(health);
  });
  app.get('/api/spec', (_request, reply) => reply.type(JSON_CONTENT_TYPE).send(compiled.modelJson));
  app.get('/api/openapi.json', (_request, reply) => reply.type(JSON_CONTENT_TYPE).send(compiled.openapiJson));
  registerApiDocs(app, compiled.model.product.name);

  registerEntityRoutes(app, compiled, store);

  // Any other path answers UNKNOWN_CALL (transition calls too, until they are served). Fastify
  // reads a body before resolving the call, so a malformed or oversized body answers
  // INVALID_PAYLOAD or PAYLOAD_TOO_LARGE even on a path that does not exist.
  app.setNotFoundHandler((request, reply) => sendProblem(request, reply, 'UNKNOWN_CALL'));

  app.setErrorHandler((error, request, reply) => {
    const classified = classifyError(error, settings);
    if (classified.internal) request.log.error({ err: error }, 'internal error');
    else request.log.info({ code: classified.code }, 'request refused');
    return sendProblem(request, reply, classified.code, classified.params, classified.extras);
  });
  return app;
}

function wrap(app: FastifyInstance, compiled: CompiledApp, store: Store): NinepointServer {
  let closing: Promise<void> | null = null;
  return {
    app,
    compiled,
    store,
    async listen({ port = DEFAULT_PORT, host = DEFAULT_HOST } = {}) {
      await app.listen({ port, host });
      const address = app.server.address();
      const bound = typeof address === 'object' && address ? address.port : port;
      const shown = host.includes(':') ? `[${host}]` : host;
      return `http://${shown}:${bound}`;
    },
    close() {
      closing ??= app.close().then(() => store.close());
      return closing;
    },
  };
}
