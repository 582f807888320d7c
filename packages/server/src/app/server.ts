import { channel } from 'node:diagnostics_channel';
import {
  checkModules,
  codeNeeds,
  type Diagnostic,
  effectiveScreens,
  type Model,
  peopleAccess,
  timeZoneOf,
} from '@ninepoint/spec';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { type Logger, pino } from 'pino';
import { CodeActors, type CodeFeature, CodeRunner, code as codePlugin, loadModules } from '../code/index.ts';
import { createAjv } from '../compile/ajv.ts';
import { changesSchema, type MigrationPlan } from '../compile/migration-contract.ts';
import { assignableRoles } from '../compile/permissions.ts';
import { PROBLEM_CONTENT_TYPE, type ProblemExtras, type ProblemParams } from '../compile/problems.ts';
import type { FileStorage } from '../files/index.ts';
import { FilesTable, fileStorageFrom, files as filesPlugin, isFileField, RecordFiles } from '../files/index.ts';
import { registerApiDocs } from '../http/api-docs.ts';
import { clientErrorHandler, requestTimeouts } from '../http/client-errors.ts';
import { registerCompression } from '../http/compression.ts';
import { classifyError } from '../http/error-handler.ts';
import { closeGracefully } from '../http/graceful-close.ts';
import { registerJsonBody } from '../http/json-body.ts';
import { lingerBeforeClose } from '../http/linger.ts';
import {
  createLogger,
  defaultLogFormat,
  type LogFormat,
  noteRefusal,
  parseLogLevel,
  requestLogging,
} from '../http/logging.ts';
import { REQUEST_ID_HEADER, requestId } from '../http/request-id.ts';
import { HSTS, REFERRER_POLICY } from '../http/security-headers.ts';
import { registerWebApp } from '../http/web-app.ts';
import { imports } from '../import/index.ts';
import { type ChangeFeed, type LiveOptions, type LocalChange, LocalFeed, liveUpdates, PgFeed } from '../live/index.ts';
import { Outbox, type OutboxTiming, outbox as outboxPlugin } from '../outbox/index.ts';
import { AuthStore, ensureDemoUsers, type MailOptions, type OidcSettings, OidcStore, people } from '../people/index.ts';
import { recordReader, records } from '../records/index.ts';
import { openStore, type StoreOptions } from '../store/open-store.ts';
import { PgStore } from '../store/postgres/pg-store.ts';
import type { Store } from '../store/store.ts';
import { RecurringJobs, ScheduleRuns, SYSTEM_ACTOR_ID, type Timers, timers } from '../timers/index.ts';
import { validators } from '../validators/index.ts';
import { SavedViewsStore, savedViews } from '../views/index.ts';
import { type CompiledApp, compileApp } from './compile-app.ts';
import { SERVER_CREATED_CHANNEL, type ServerCreated } from './server-channel.ts';

/** Notifications for the other servers, several in one statement and in order (`PgFeed`). */
const NOTIFY_MANY = {
  name: 'np_notify_many',
  text: 'SELECT pg_notify($1, "payload") FROM unnest($2::text[]) WITH ORDINALITY AS t("payload", "n") ORDER BY "n"',
};

export interface ServerOptions extends StoreOptions {
  /** A checked model without errors. */
  model: Model;
  /** A pino logger, or false for none. Default: `defaultLogger()`. */
  logger?: Logger | false;
  /**
   * Apply migration steps that could hide or invalidate stored data (a removed field's values, rows
   * breaking a tightened rule); without it such a start throws `MigrationRefusedError`. Default false.
   */
  allowDestructive?: boolean;
  /**
   * For tests: the clock of sessions, sign-in lockouts, rate limits, `now` and `today` in guards
   * and rules, records' time stamps and the scheduler of automatic transitions. Default `Date.now`.
   */
  now?: () => number;
  /**
   * Behind a reverse proxy that terminates HTTPS: trust its `X-Forwarded-For`/`-Proto`/`-Host`, so
   * the client's address, the `https` scheme (Secure, `__Host-` cookies) and the origin check
   * see what the browser sees. Fastify's `trustProxy`: true, a hop count, or addresses/CIDRs
   * (`TRUST_PROXY` for `ninepoint serve`). Default false: never trust these headers.
   */
  trustProxy?: TrustProxy;
  /**
   * Development mode (`ninepoint dev`, see `people/dev-mode.ts`): a demo user per role, made or brought up
   * to date at each start, and `POST /api/dev/sign-in-as`, which signs in as one without a
   * password. Never for production; `ninepoint serve` never sets it. Default false.
   */
  devMode?: boolean;
  /**
   * Adds the caller's own calls to the app before its catch-all answers: `ninepoint dev` adds the
   * Studio's (`dev/studio-routes.ts`). Pages named in `pages` are served the web app.
   */
  extend?: { register: (app: FastifyInstance) => void; pages: readonly string[] };
  /**
   * How the app sends mail (password reset links) and the address its links point to. Without it
   * mail is not sent: asking for a reset answers the same, and the start says once that email is
   * not configured.
   */
  mail?: MailOptions;
  /** Live updates (`GET /api/events`): for tests, a shorter heartbeat or another bound per user. */
  live?: Pick<LiveOptions, 'heartbeatMs' | 'maxStreamsPerUser'>;
  /** Sign-in with an OpenID Connect provider (`OIDC_ISSUER`…, see people/oidc-settings.ts); none by default. */
  oidc?: OidcSettings | null;
  /**
   * `SECRET_KEY`: two-factor secrets are sealed with a key derived from it, so that a copy of the
   * database alone cannot make sign-in codes (people/secret-key.ts). None by default: kept as they are.
   */
  secretKey?: string | null;
  /** `APP_URL`'s origin: passkeys are bound to it (people/passkeys.ts). None: each request's own origin. */
  appUrl?: string | null;
  /** How long `close` waits for requests under way before cutting them. Default `CLOSE_GRACE_MS` (8 s). */
  closeGraceMs?: number;
  /**
   * Point 7's notifications and calls to other systems: the environment their URLs, secrets,
   * addresses and `CALLS_ALLOW_PRIVATE` are read from (default `process.env`), and for tests,
   * faster retries.
   */
  outbox?: { env?: NodeJS.ProcessEnv; timing?: OutboxTiming };
  /**
   * The spec's folder, where the TypeScript modules point 7 names are (custom calls, hooks,
   * scheduled jobs). Needed when the spec names one: the server refuses to start without it, or
   * when a module is missing or lacks its export.
   */
  codeFolder?: string;
  /** Added to each module's URL so a changed file is loaded anew (`ninepoint dev` after a save). */
  codeVersion?: string;
  /** For tests: how long a module may run, instead of `CODE_TIMEOUT_SECONDS`. */
  codeTimeoutMs?: number;
  /**
   * For tests and `bench/timers.ts`: how many due records one PostgreSQL transaction of the
   * scheduler takes, instead of `PG_ROUND_BATCH` (1: each its own). SQLite takes each alone.
   */
  roundBatch?: number;
  /** For tests: milliseconds between the scheduler's rounds, instead of `ROUND_INTERVAL_MS` (30 s). */
  roundIntervalMs?: number;
  /**
   * Where uploaded files go (`FILE_STORAGE` / `--file-storage` for `ninepoint serve`): a folder, an
   * `s3://bucket/prefix` address (with `AWS_*` and `S3_ENDPOINT` from `filesEnv`), or a storage.
   * Default: `files/` beside the SQLite database (`data/files` on PostgreSQL).
   */
  fileStorage?: string | FileStorage;
  /** The environment S3's settings are read from. Default `process.env`. */
  filesEnv?: NodeJS.ProcessEnv;
  /** Sweep pending uploads at start and every 10 minutes. Default true; tests sweep themselves. */
  sweepFiles?: boolean;
}

/** The spec names modules that are not there or lack their exports: the messages, as `check` words them. */
export class CodeModulesError extends Error {
  override name = 'CodeModulesError';
}

/** Fastify's `trustProxy`: all, none, addresses/CIDRs, or a function of the address and its hop. */
export type TrustProxy = boolean | string | string[] | ((address: string, hop: number) => boolean);

export interface NinepointServer {
  readonly app: FastifyInstance;
  readonly compiled: CompiledApp;
  readonly store: Store;
  /** Users, sessions, API tokens and rate limits, in the same database. */
  readonly auth: AuthStore;
  /** What opening the database did to bring it to this spec (steps empty when nothing changed). */
  readonly migration: MigrationPlan;
  /** Starts listening; resolves to the URL it listens at. Default: 127.0.0.1, port 3000. */
  listen(options?: { port?: number; host?: string }): Promise<string>;
  /** Ends the live update streams (`GET /api/events`): a replaced dev app's pages reconnect to the new one. */
  endStreams(): void;
  /** The transitions the system takes by itself (`timers/`); tests with an injected clock run rounds. */
  readonly timers: Timers;
  /** Point 7's TypeScript modules (`code/`), or null when the spec names none. */
  readonly code:
    | (Pick<CodeFeature, 'idle'> & {
        /** Loads the modules anew (`version` busts Node's cache); answers what is wrong, keeping the old ones then. */
        reload(version: string): Promise<Diagnostic[]>;
      })
    | null;
  /** Uploaded files (their table, storage and sweep), when the spec has file fields. */
  readonly files: RecordFiles | null;
  /** Stops taking requests, lets those under way finish, then closes the database. Safe to call twice. */
  close(): Promise<void>;
}

const serverCreated = channel(SERVER_CREATED_CHANNEL);

/** The system clock, looked up at each call (as `new Date()` is): a test that mocks `Date` moves it. */
const systemClock = (): number => Date.now();

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 3000;
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * A logger for a server at `LOG_LEVEL` (default info; another value throws `LogLevelError`):
 * pretty lines on a terminal, JSON lines otherwise, unless `format` says which.
 */
export function defaultLogger(format: LogFormat = defaultLogFormat()): Logger {
  return createLogger({ level: parseLogLevel(process.env.LOG_LEVEL), format });
}

/**
 * Compiles the model, opens its database and migrates it to the model (docs/migrations.md), and
 * builds the HTTP server around them. It does not listen until `listen` is called. Throws
 * `MigrationRefusedError` (with the plan) when the migration could lose or invalidate data.
 *
 * @example
 * const server = await createServer({ model, dbPath: 'data/ninepoint.db' });
 * console.log(await server.listen({ port: 3000 }));
 */
export async function createServer(options: ServerOptions): Promise<NinepointServer> {
  const compiled = compileApp(options.model, { clock: options.now });
  const logger = options.logger === false ? pino({ level: 'silent' }) : (options.logger ?? defaultLogger());
  const store = await openStore(options);
  try {
    const allowDestructive = options.allowDestructive ?? false;
    const { plan } = await store.applySchema(compiled.sqlSchema, compiled.model, { allowDestructive });
    if (changesSchema(plan)) {
      logger.info(
        { steps: plan.steps.filter((s) => s.changes.length > 0).map((s) => s.summary) },
        'migrated the database',
      );
    }
    for (const step of plan.steps.filter((s) => s.safety !== 'safe')) {
      logger.warn({ kind: step.kind, table: step.table, column: step.column, rows: step.rows }, step.summary);
    }
    const auth = new AuthStore(store.sql);
    await auth.setUp();
    // Tokens and sessions found lately are kept while this server hears their tables' changes.
    if (store instanceof PgStore && options.databaseUrl) await store.sql.watchIdentity(options.databaseUrl, logger);
    const oidc = options.oidc ? { settings: options.oidc, logins: new OidcStore(store.sql) } : null;
    await oidc?.logins.setUp();
    const views = new SavedViewsStore(store.sql);
    await views.setUp();
    // Files: their table and storage only when the spec has file fields.
    let recordFiles: RecordFiles | null = null;
    if (compiled.model.entities.some((e) => e.fields.some(isFileField))) {
      const table = new FilesTable(store.sql);
      await table.setUp();
      const storage = await fileStorageFrom({
        fileStorage: options.fileStorage,
        dbPath: options.dbPath,
        databaseUrl: options.databaseUrl,
        ...(options.filesEnv ? { env: options.filesEnv } : {}),
      });
      recordFiles = new RecordFiles({
        storage,
        table,
        store,
        now: options.now ?? systemClock,
        logger,
        maxRecordBytes: compiled.settings.MAX_BODY_BYTES,
      });
    }
    const outbox = await Outbox.open({
      model: compiled.model,
      store,
      auth,
      permissions: compiled.permissions,
      settings: compiled.settings,
      mailer: options.mail?.mailer ?? null,
      logger,
      ...(options.outbox?.env ? { env: options.outbox.env } : {}),
      ...(options.outbox?.timing ? { timing: options.outbox.timing } : {}),
    });
    const runner = await openCode(compiled, options, logger);
    // The code plugin decorates the app once it has loaded: reached through the app, when used.
    let codeOf: () => CodeFeature | null = () => null;
    // Point 7's recurring jobs: their runs table only when the spec declares some.
    let jobs: RecurringJobs | null = null;
    if (compiled.model.schedules.length > 0) {
      const runs = new ScheduleRuns(store.sql);
      await runs.setUp();
      const clock = options.now ?? systemClock;
      jobs = new RecurringJobs({
        schedules: compiled.model.schedules,
        runs,
        timeZone: timeZoneOf(compiled.model),
        run: async (job, dueAt) => {
          await outbox.scheduled(job, dueAt, clock());
          await codeOf()?.scheduled(job, dueAt);
        },
        now: clock,
        logger,
      });
    }
    const devMode = options.devMode ?? false;
    // What to do next (add a user; dev mode's demo users; email not configured) is said once by
    // the command that started the server (`ninepoint serve`, `ninepoint dev`), not at every app
    // `dev` builds.
    if (devMode) await ensureDemoUsers(auth, compiled.model);
    for (const call of compiled.routeTable.shadowed) {
      logger.warn({ method: call.method, path: call.path }, 'a system call takes precedence over this spec call');
    }
    // Several servers may share a PostgreSQL database: changes reach the others through it.
    const feed =
      store instanceof PgStore && options.databaseUrl
        ? new PgFeed({
            url: options.databaseUrl,
            notify: (channel, payloads) => store.pool.query({ ...NOTIFY_MANY, values: [channel, payloads] }),
            logger,
          })
        : new LocalFeed();
    if (feed instanceof PgFeed) await feed.ready;
    const { app, endStreams } = buildApp(compiled, store, logger, auth, feed, {
      views,
      files: recordFiles === null ? null : { files: recordFiles, sweep: options.sweepFiles ?? true },
      outbox,
      jobs,
      now: options.now,
      devMode,
      trustProxy: options.trustProxy ?? false,
      extend: options.extend,
      mail: options.mail ?? null,
      oidc,
      secretKey: options.secretKey ?? null,
      appUrl: options.appUrl ?? null,
      live: options.live ?? {},
      runner,
      roundBatch: options.roundBatch,
      roundIntervalMs: options.roundIntervalMs,
    });
    if (runner) codeOf = () => app.code;
    if (serverCreated.hasSubscribers) serverCreated.publish({ app, openapi: compiled.openapi } satisfies ServerCreated);
    const code = runner
      ? {
          idle: () => app.code.idle(),
          reload: async (version: string) => {
            const loaded = await loadModules(compiled.model, options.codeFolder ?? '.', version);
            const problems = checkModules(compiled.model, loaded.facts);
            // A module saved half-written: the app keeps the modules it had, as it keeps the last good spec.
            if (problems.length === 0) runner.reload(loaded);
            return problems;
          },
        }
      : null;
    return wrap(app, compiled, store, auth, plan, options.closeGraceMs, endStreams, code, recordFiles);
  } catch (error) {
    await store.close();
    throw error;
  }
}

function buildApp(
  compiled: CompiledApp,
  store: Store,
  logger: Logger,
  auth: AuthStore,
  feed: ChangeFeed,
  {
    views,
    files,
    outbox,
    jobs,
    now,
    devMode,
    trustProxy,
    extend,
    mail,
    oidc,
    secretKey,
    appUrl,
    live: liveOptions,
    runner,
    roundBatch,
    roundIntervalMs,
  }: {
    views: SavedViewsStore;
    files: { files: RecordFiles; sweep: boolean } | null;
    outbox: Outbox;
    jobs: RecurringJobs | null;
    now: (() => number) | undefined;
    devMode: boolean;
    trustProxy: TrustProxy;
    extend: ServerOptions['extend'];
    mail: MailOptions | null;
    oidc: { settings: OidcSettings; logins: OidcStore } | null;
    secretKey: string | null;
    appUrl: string | null;
    live: NonNullable<ServerOptions['live']>;
    runner: CodeRunner | null;
    roundBatch: number | undefined;
    roundIntervalMs: number | undefined;
  },
): { app: FastifyInstance; endStreams: () => void } {
  const { catalogue, settings } = compiled;
  const sendProblem = (
    request: FastifyRequest,
    reply: FastifyReply,
    code: string,
    params: ProblemParams = {},
    extras: ProblemExtras = {},
  ) => {
    const instance = request.url.split('?', 1)[0] ?? '/';
    noteRefusal(request, code);
    const body = catalogue.problem(code, params, { instance, requestId: request.id }, extras);
    return reply.code(body.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
  };

  const app = Fastify({
    // A hop count is valid (Fastify docs), though its types list only the other forms.
    trustProxy: trustProxy as boolean | string,
    // Fastify makes a child of its logger for every request, which costs even when it is silent
    // (about a tenth of a get's time): with logging off it gets no logger at all.
    ...(logger.level === 'silent' ? {} : requestLogging(logger)),
    bodyLimit: settings.MAX_BODY_BYTES,
    // Slow clients (slowloris) are cut off after REQUEST_TIMEOUT_SECONDS; what Node's parser
    // refuses before Fastify sees a request is answered from the catalogue too.
    requestTimeout: requestTimeouts(settings).requestTimeout,
    http: requestTimeouts(settings),
    clientErrorHandler: clientErrorHandler(catalogue, settings, logger),
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
  registerJsonBody(app);
  registerCompression(app);

  // A callback hook, not an async one: it runs on every call, and an async hook costs a promise.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', REFERRER_POLICY);
    // HTTPS as Secure cookies see it (auth.ts): a TLS socket, or a trusted proxy's X-Forwarded-Proto.
    if (request.protocol === 'https') reply.header('strict-transport-security', HSTS);
    done();
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

  // Each feature is a Fastify plugin: people first, since the others read the `request.actor` it sets.
  void app.register(people, {
    compiled,
    auth,
    sql: store.sql,
    store,
    mail,
    oidc,
    devMode,
    secretKey,
    appUrl,
    ...(now ? { now } : {}),
    events: {
      signedOut: (credential) => app.live.signedOut(credential),
      accountChanged: (userId) => app.live.accountChanged(userId),
    },
  });
  void app.register(liveUpdates, {
    store,
    auth,
    feed,
    permissions: compiled.permissions,
    settings,
    now,
    ...liveOptions,
  });
  const clock = now ?? systemClock;
  // Every committed write: live updates, and the outbox's notifications and calls to other systems.
  // A write in a held transaction (a before hook's, code/) is told of once that has committed.
  const committed = (change: LocalChange) =>
    store.afterCommit(() => {
      app.live.committed(change);
      outbox.committed(change.entity, change.kind);
      if (runner) app.code.committed(change);
    });
  if (files) {
    void app.register(filesPlugin, { ...files, readRecord: recordReader(compiled, store) });
  }
  // Before the records, whose writes run through its `around`.
  if (runner) void app.register(codePlugin, { compiled, auth, store, runner, actors: runner.actors, logger });
  void app.register(records, {
    compiled,
    store,
    committed,
    now: clock,
    files: files?.files ?? null,
    // A before hook runs in its write's transaction, once an upload's files are stored.
    ...(runner
      ? {
          around: (request: FastifyRequest, reply: FastifyReply, work: () => Promise<unknown>) =>
            app.code.around(request, reply, work),
        }
      : {}),
  });
  void app.register(imports, { compiled, store, auth, committed, now: clock });
  void app.register(timers, {
    compiled,
    store,
    logger,
    now: clock,
    committed,
    jobs,
    ...(roundBatch === undefined ? {} : { batch: roundBatch }),
    ...(roundIntervalMs === undefined ? {} : { intervalMs: roundIntervalMs }),
  });
  void app.register(savedViews, {
    views,
    screens: effectiveScreens(compiled.model),
    roles: assignableRoles(compiled.model),
    managesPeople: (roles) => peopleAccess(compiled.model, roles).manage,
    ...(now ? { now } : {}),
  });
  void app.register(outboxPlugin, {
    outbox,
    managesPeople: (actor) => actor.userId !== null && peopleAccess(compiled.model, actor.roles).manage,
    now: now ?? Date.now,
  });
  void app.register(validators, { model: compiled.model });
  extend?.register(app);

  // Any other path answers UNKNOWN_CALL (transition calls too, until they are served). Fastify
  // reads a body before resolving the call, so a malformed or oversized body answers
  // INVALID_PAYLOAD or PAYLOAD_TOO_LARGE even on a path that does not exist.
  const webApp = registerWebApp(
    app,
    [...effectiveScreens(compiled.model).map((screen) => screen.route), ...(extend?.pages ?? [])],
    { devMode },
  );
  app.setNotFoundHandler((request, reply) =>
    // A browser asking for a page the app does not have sees the app's own "not found" page.
    webApp.isPage(request) ? webApp.sendPage(reply, 404) : sendProblem(request, reply, 'UNKNOWN_CALL'),
  );

  app.setErrorHandler((error, request, reply) => {
    const classified = classifyError(error, settings);
    // A refusal's code is on the request's one log line; an internal error gets its own, with the stack.
    if (classified.internal) request.log.error({ err: error }, 'internal error');
    if (!request.raw.complete) lingerBeforeClose(request.raw.socket);
    return sendProblem(request, reply, classified.code, classified.params, classified.extras);
  });
  return { app, endStreams: () => app.live.endStreams() };
}

function wrap(
  app: FastifyInstance,
  compiled: CompiledApp,
  store: Store,
  auth: AuthStore,
  migration: MigrationPlan,
  closeGraceMs: number | undefined,
  endStreams: () => void,
  code: NinepointServer['code'],
  files: RecordFiles | null,
): NinepointServer {
  let closing: Promise<void> | null = null;
  return {
    app,
    compiled,
    store,
    auth,
    migration,
    endStreams,
    code,
    files,
    get timers() {
      return app.timers;
    },
    async listen({ port = DEFAULT_PORT, host = DEFAULT_HOST } = {}) {
      // Fastify logs "Server listening at …" on its own; `serve` says where it listens once,
      // with the spec and the database, so Fastify's line is held back.
      const level = app.log.level;
      const hold = level === 'info' || level === 'debug' || level === 'trace';
      if (hold) app.log.level = 'warn';
      try {
        await app.listen({ port, host });
      } finally {
        if (hold) app.log.level = level;
      }
      const address = app.server.address();
      const bound = typeof address === 'object' && address ? address.port : port;
      const shown = host.includes(':') ? `[${host}]` : host;
      return `http://${shown}:${bound}`;
    },
    close() {
      closing ??= closeGracefully(app, closeGraceMs).then(() => store.close());
      return closing;
    },
  };
}

/**
 * Loads the modules point 7 names from the spec's folder and checks them as `ninepoint check`
 * does; null when the spec names none. Throws `CodeModulesError` when one is missing or lacks
 * its export, so a server never starts half able to answer its spec.
 */
async function openCode(compiled: CompiledApp, options: ServerOptions, logger: Logger): Promise<CodeRunner | null> {
  const { model } = compiled;
  if (codeNeeds(model).length === 0) return null;
  if (options.codeFolder === undefined) {
    throw new CodeModulesError(
      "The spec names TypeScript modules (point 7), but the server was not told the spec's folder (codeFolder).",
    );
  }
  const loaded = await loadModules(model, options.codeFolder, options.codeVersion);
  const problems = checkModules(model, loaded.facts);
  if (problems.length > 0) {
    throw new CodeModulesError(
      problems.map((d) => `line ${d.line}: ${d.message}${d.hint ? ` ${d.hint}` : ''} (${d.code})`).join('\n'),
    );
  }
  return new CodeRunner({
    model,
    routes: compiled.routeTable.routes,
    actors: new CodeActors(),
    logger,
    timeoutMs: options.codeTimeoutMs ?? compiled.settings.CODE_TIMEOUT_SECONDS * 1000,
    loaded,
    systemId: SYSTEM_ACTOR_ID,
  });
}
