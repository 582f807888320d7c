import { readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { basename, dirname, join } from 'node:path';
import {
  behaviourKey,
  checkSpec,
  codeNeeds,
  type Diagnostic,
  type Model,
  type StudioStatus,
  specTypes,
  specTypesFile,
} from '@ninepoint/spec';
import {
  formatDiagnostic,
  listenFailure,
  loggerOf,
  readMailSettings,
  readOidcSettings,
  readSecretKey,
  readServable,
  type ServeOptions,
  startFailure,
  trustProxyFromEnv,
  verifyMailServer,
  where,
} from '../app/serve.ts';
import { createServer, DEFAULT_HOST, DEFAULT_PORT, type NinepointServer } from '../app/server.ts';
import { changesSchema } from '../compile/migration-contract.ts';
import { formatMigrationPlan, MigrationRefusedError } from '../compile/migration-report.ts';
import { clientErrorHandler, requestTimeouts } from '../http/client-errors.ts';
import { isLocalHostname } from '../http/local-host.ts';
import { defaultLogFormat } from '../http/logging.ts';
import { closeOnSignals } from '../http/shutdown.ts';
import { type Mailer, Outbox, smtpMailer } from '../mail/mailer.ts';
import type { MailOptions } from '../people/index.ts';
import { DEFAULT_DB_PATH } from '../store/open-store.ts';
import { redact } from '../store/postgres/pg-store.ts';
import { OUTBOX_ROUTE, registerOutboxRoutes } from './outbox-routes.ts';
import { SPEC_EVENTS_PATH, SpecEvents } from './spec-events.ts';
import { registerStudioRoutes, STUDIO_ROUTES, type Studio } from './studio-routes.ts';

import { watchCode, watchSpec } from './watch-spec.ts';

/** `ninepoint dev`'s server: the app of the last good spec, replaced whenever the spec file is saved. */
export interface DevServer {
  readonly url: string;
  /** The app serving now; a new one after each applied save. */
  current(): NinepointServer;
  /** How the last attempt to apply the spec went. */
  status(): StudioStatus;
  /** Reads the spec file and applies it, as a save does; resolves when that is done. */
  reload(): Promise<StudioStatus>;
  /** Writes the spec file (the Studio's Save) and applies it. */
  save(source: string): Promise<StudioStatus>;
  /** Stops watching, ends the event streams, lets calls under way finish, closes the database. */
  close(): Promise<void>;
}

export type DevServeResult = { ok: true; server: DevServer; url: string } | { ok: false; exitCode: 1 | 2 };

/** One app in the life of a dev server, with the calls it is answering. */
interface Generation {
  server: NinepointServer;
  inFlight: number;
  retired: boolean;
}

/**
 * `ninepoint dev`: serves the spec in development mode (`ServerOptions.devMode`) with the Studio,
 * watches the spec file and re-applies it on every save without a restart: it checks the new
 * text, migrates the database when that is safe, and swaps the app that answers calls. A spec
 * with errors, or one whose migration would lose or invalidate data, is not applied: the app
 * keeps serving the last good spec, and the terminal, the Studio and every open page (through
 * `GET /api/dev/events`) are told why. The spec must check at start, as for `serve`.
 *
 * Calls under way finish on the app that took them; an old app closes its database once they
 * have. Sessions, users and data are in the database, so they carry over.
 */
export async function serveDev(options: ServeOptions): Promise<DevServeResult> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const printError = options.printError ?? ((line: string) => process.stderr.write(`${line}\n`));
  const logger = loggerOf(options, options.logFormat ?? defaultLogFormat(), printError);
  if (logger === null) return { ok: false, exitCode: 2 };
  const read = await readServable(options, printError);
  if (!read.ok) return read;
  const { databaseUrl } = read;
  const dbPath = options.dbPath ?? DEFAULT_DB_PATH;
  const allowDestructive = options.allowDestructive ?? false;
  const specPath = options.specPath;
  const database = databaseUrl ? redact(databaseUrl) : dbPath;
  const mailSettings = readMailSettings(options.env ?? process.env, printError, { appUrlOptional: true });
  if (mailSettings === null) return { ok: false, exitCode: 2 };
  const oidc = readOidcSettings(options.env ?? process.env, mailSettings.appUrl, printError);
  if (oidc === undefined) return { ok: false, exitCode: 2 };
  const secretKey = readSecretKey(options.env ?? process.env, printError);
  if (secretKey === undefined) return { ok: false, exitCode: 2 };
  // Without SMTP settings mails go to an outbox the developer reads (the terminal, GET /api/dev/outbox);
  // it belongs to the dev server, so it outlives each app a save replaces.
  const { smtp, from } = mailSettings;
  const outbox = smtp && from ? null : new Outbox({ from, print });
  const mailer: Mailer = smtp && from ? smtpMailer(smtp, from) : (outbox as Outbox);
  /** Set once the dev server listens: links point here unless APP_URL says otherwise. */
  let listeningAt = '';
  const mail: MailOptions = { mailer, appUrl: () => mailSettings.appUrl ?? listeningAt };

  let lastSeen = read.source;
  let servedKey = behaviourKey(read.model);
  let version = 1;
  let queue: Promise<unknown> = Promise.resolve();
  const retired = new Set<Generation>();

  const studio: Studio = {
    read: () => ({ path: specPath, source: lastSeen, status: events.status }),
    save: (source) => enqueue(() => writeAndApply(source)),
  };
  const extend = {
    register: (app: NinepointServer['app']) => {
      registerStudioRoutes(app, studio);
      registerOutboxRoutes(app, mailer, outbox);
    },
    pages: [STUDIO_ROUTES.page],
  };
  const folder = dirname(specPath);
  const typesFile = join(folder, specTypesFile(basename(specPath)));
  /** Each app loads the modules anew: a save of a module or of the spec may have changed them. */
  let codeGeneration = 0;
  let watchingCode = false;
  let stopWatchingCode = () => {};
  const open = (model: NinepointServer['compiled']['model']) =>
    createServer({
      codeFolder: folder,
      codeVersion: String(++codeGeneration),
      model,
      dbPath,
      databaseUrl,
      logger,
      allowDestructive,
      devMode: true,
      trustProxy: trustProxyFromEnv(process.env.TRUST_PROXY),
      extend,
      mail,
      oidc,
      secretKey,
      // Passkeys follow APP_URL when it is set; otherwise the address the browser opened.
      appUrl: mailSettings.appUrl,
    });

  let first: NinepointServer;
  try {
    await writeTypes(read.model);
    first = await open(read.model);
    await first.app.ready();
  } catch (error) {
    printError(`Ninepoint: ${startFailure(error, database)}`);
    return { ok: false, exitCode: 1 };
  }
  let current: Generation = { server: first, inFlight: 0, retired: false };
  const events = new SpecEvents({
    version,
    outcome: 'applied',
    at: new Date().toISOString(),
    message: `Serving "${read.model.product.name}".`,
    diagnostics: read.diagnostics,
    plan: changesSchema(first.migration)
      ? formatMigrationPlan(first.migration, { allowDestructive, mode: 'applied' })
      : null,
  });

  // The same cut-off for slow clients and the same catalogued answer to what Node's parser refuses
  // as `serve` (Fastify sets these on its own server, which dev mode does not listen with), with
  // the settings of the spec being served.
  const http: Server = createHttpServer(requestTimeouts(first.compiled.settings), (request, response) => {
    const path = (request.url ?? '/').split('?', 1)[0];
    if (path === SPEC_EVENTS_PATH && request.method === 'GET') {
      if (!isLocalHost(request)) {
        response
          .writeHead(403, { 'content-type': 'text/plain; charset=utf-8' })
          .end('Dev mode answers only localhost.');
        return;
      }
      events.attach(request, response);
      return;
    }
    dispatch(current, request, response);
  });

  http.on('clientError', (error: Error & { code?: string }, socket: Socket) => {
    const { catalogue, settings } = current.server.compiled;
    clientErrorHandler(catalogue, settings, logger || { info: () => undefined })(error, socket);
  });

  const dispatch = (generation: Generation, request: IncomingMessage, response: ServerResponse) => {
    generation.inFlight++;
    // A call is over when its connection is done with and its handler has answered. A caller who
    // hangs up closes the response at once while the handler goes on using the database, and
    // Fastify ends the response only when the handler is done: wait for both, so that a replaced
    // app never closes its database under a handler still running.
    let closed = false;
    let ended = false;
    const settle = () => {
      if (!closed || !ended) return;
      generation.inFlight--;
      if (generation.retired && generation.inFlight === 0) closeGeneration(generation);
    };
    const end = response.end;
    response.end = function (this: ServerResponse, ...args: unknown[]) {
      const result = Reflect.apply(end, this, args) as ServerResponse;
      if (!ended) {
        ended = true;
        settle();
      }
      return result;
    } as ServerResponse['end'];
    response.once('close', () => {
      closed = true;
      settle();
    });
    generation.server.app.routing(request, response);
  };

  /** Replaced apps being closed: `close()` waits for them too. */
  const closings = new Set<Promise<void>>();
  const closeGeneration = (generation: Generation) => {
    retired.delete(generation);
    const done = generation.server
      .close()
      .catch((error: unknown) => {
        if (logger) logger.warn({ err: error }, 'closing a replaced app failed');
      })
      .finally(() => closings.delete(done));
    closings.add(done);
  };

  const retire = (generation: Generation) => {
    generation.retired = true;
    retired.add(generation);
    // Its pages' live update streams would keep it open for good: they reconnect to the new app.
    generation.server.endStreams();
    if (generation.inFlight === 0) closeGeneration(generation);
  };

  let stopping = false;
  function enqueue(task: () => Promise<StudioStatus>): Promise<StudioStatus> {
    // A save that arrives while the server closes would open an app nobody closes.
    const guarded = () => (stopping ? Promise.resolve(events.status) : task());
    const run = queue.then(guarded, guarded);
    queue = run.catch(() => undefined);
    return run;
  }

  const publish = (status: Omit<StudioStatus, 'at'>): StudioStatus => {
    const full = { ...status, at: new Date().toISOString() };
    events.publish(full);
    const ok = full.outcome === 'applied' || full.outcome === 'unchanged';
    const out = ok ? print : printError;
    out(`Ninepoint: ${full.message}`);
    if (full.plan && full.outcome !== 'unchanged') out(full.plan.trimEnd());
    return full;
  };

  async function apply(source: string): Promise<StudioStatus> {
    const { model, diagnostics, ok } = checkSpec(source);
    for (const d of diagnostics) printError(formatDiagnostic(specPath, d));
    if (!ok) {
      const errors = diagnostics.filter((d) => d.severity === 'error').length;
      return publish({
        version,
        outcome: 'invalid',
        message: `Not applied: the spec has ${errors} error${errors === 1 ? '' : 's'}; the app keeps serving the last good spec.`,
        diagnostics,
        plan: null,
      });
    }
    const key = behaviourKey(model);
    if (key === servedKey) {
      return publish({
        version,
        outcome: 'unchanged',
        message: 'Nothing to apply: the spec describes the same app as the one being served.',
        diagnostics,
        plan: null,
      });
    }
    let next: NinepointServer | undefined;
    try {
      await writeTypes(model);
      next = await open(model);
      await next.app.ready();
    } catch (error) {
      await next?.close().catch(() => undefined);
      return publish(refusal(error, diagnostics));
    }
    const previous = current;
    current = { server: next, inFlight: 0, retired: false };
    retire(previous);
    servedKey = key;
    const timeouts = requestTimeouts(next.compiled.settings);
    http.requestTimeout = timeouts.requestTimeout;
    http.headersTimeout = timeouts.headersTimeout;
    version++;
    const changed = next.migration.steps.filter((s) => s.changes.length > 0).map(sentence);
    return publish({
      version,
      outcome: 'applied',
      message:
        changed.length > 0
          ? `Applied version ${version}: ${changed.join('; ')}.`
          : `Applied version ${version}: the database needed no change.`,
      diagnostics,
      plan: changed.length > 0 ? formatMigrationPlan(next.migration, { allowDestructive, mode: 'applied' }) : null,
    });
  }

  function refusal(error: unknown, diagnostics: Diagnostic[]): Omit<StudioStatus, 'at'> {
    if (error instanceof MigrationRefusedError) {
      const what = error.blocking.map(sentence).join('; ');
      return {
        version,
        outcome: 'refused',
        message: `Not applied: migrating the database would lose or invalidate data (${what}); the app keeps serving the last good spec. Restart with --allow-destructive to apply it anyway.`,
        diagnostics,
        plan: formatMigrationPlan(error.plan, { allowDestructive, mode: 'refused' }),
      };
    }
    if (logger) logger.error({ err: error }, 'applying the spec failed');
    return {
      version,
      outcome: 'failed',
      message: `Not applied: ${startFailure(error, database)} The app keeps serving the last good spec.`,
      diagnostics,
      plan: null,
    };
  }

  /**
   * `ninepoint types` on every save: the spec's types beside it, for the modules it names (or once
   * written, kept up to date). Written only when they change, so an editor's TypeScript sees a
   * save only when there is something new.
   */
  async function writeTypes(model: Model): Promise<void> {
    // The folder is watched (recursively) only once a spec names modules: most never do.
    if (!watchingCode && codeNeeds(model).length > 0) {
      watchingCode = true;
      stopWatchingCode = watchCode(folder, basename(typesFile), () => {
        void enqueue(reloadCode);
      });
    }
    const exists = await stat(typesFile).then(
      () => true,
      () => false,
    );
    if (!exists && codeNeeds(model).length === 0) return;
    const text = specTypes(model, basename(specPath));
    const old = exists ? await readFile(typesFile, 'utf8').catch(() => '') : '';
    if (old !== text) await writeFile(typesFile, text);
  }

  /** A module was saved: the app loads the modules anew, or keeps the ones it has and says why. */
  async function reloadCode(): Promise<StudioStatus> {
    const code = current.server.code;
    if (!code) return events.status;
    const problems = await code.reload(String(++codeGeneration));
    for (const d of problems) printError(formatDiagnostic(specPath, d));
    if (problems.length === 0) print('Ninepoint: loaded the modules beside the spec again.');
    else printError('Ninepoint: the modules were not reloaded; the app keeps the ones it had.');
    return events.status;
  }

  async function writeAndApply(source: string): Promise<StudioStatus> {
    lastSeen = source;
    let temporary: string | null = null;
    try {
      // Write beside the spec, then rename over it: the watcher and other editors never see half a
      // file. A symlinked spec is written where it points, and keeps its permissions.
      const target = await realpath(specPath).catch(() => specPath);
      const mode = (await stat(target).catch(() => null))?.mode;
      temporary = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
      await writeFile(temporary, source, { encoding: 'utf8', ...(mode === undefined ? {} : { mode }) });
      await rename(temporary, target);
    } catch (error) {
      if (temporary) await rm(temporary, { force: true }).catch(() => undefined);
      return publish({
        version,
        outcome: 'failed',
        message: `Not saved: cannot write "${specPath}": ${error instanceof Error ? error.message : String(error)}.`,
        diagnostics: checkSpec(source).diagnostics,
        plan: null,
      });
    }
    return apply(source);
  }

  async function reload(): Promise<StudioStatus> {
    let source: string;
    try {
      source = await readFile(specPath, 'utf8');
    } catch (error) {
      return publish({
        version,
        outcome: 'failed',
        message: `Cannot read "${specPath}": ${error instanceof Error ? error.message : String(error)}; the app keeps serving the last good spec.`,
        diagnostics: [],
        plan: null,
      });
    }
    lastSeen = source;
    return apply(source);
  }

  const port = options.port ?? DEFAULT_PORT;
  const host = options.host ?? DEFAULT_HOST;
  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(port, host, () => {
        http.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await first.close();
    printError(`Ninepoint: ${listenFailure(error, host, port)}`);
    return { ok: false, exitCode: 1 };
  }
  const address = http.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  listeningAt = url;

  const stopWatching = watchSpec(specPath, () => {
    void enqueue(async () => {
      let source: string;
      try {
        source = await readFile(specPath, 'utf8');
      } catch {
        // Mid-rename, or deleted: the next save brings it back.
        return events.status;
      }
      if (source === lastSeen) return events.status;
      lastSeen = source;
      return apply(source);
    });
  });

  let closing: Promise<void> | null = null;
  const server: DevServer = {
    url,
    current: () => current.server,
    status: () => events.status,
    reload: () => enqueue(reload),
    save: studio.save,
    close() {
      closing ??= (async () => {
        stopping = true;
        stopWatching();
        stopWatchingCode();
        events.close();
        await queue;
        const closed = new Promise<void>((resolve) => http.close(() => resolve()));
        http.closeIdleConnections();
        await closed;
        await Promise.all([current.server.close(), ...[...retired].map((g) => g.server.close()), ...closings]);
      })();
      return closing;
    },
  };
  if (options.handleSignals ?? true) closeOnSignals(server, logger ? { logger } : {});
  print(`Ninepoint: serving "${read.model.product.name}" at ${url} (${where(first.store, dbPath)})`);
  print(`Ninepoint: Studio at ${url}${STUDIO_ROUTES.page}; watching ${specPath} for changes.`);
  if (outbox) {
    print(`Ninepoint: no SMTP settings: mails are printed here and kept at ${url}${OUTBOX_ROUTE}, not sent.`);
  } else if (smtp) verifyMailServer(mail, smtp.host, logger);
  return { ok: true, server, url };
}

/** A step's summary without its full stop, to join several in one sentence. */
function sentence(step: { summary: string }): string {
  return step.summary.replace(/\.\s*$/, '');
}

/** Whether a raw request is addressed to localhost or an IP address (not a rebound DNS name). */
function isLocalHost(request: IncomingMessage): boolean {
  return isLocalHostname((request.headers.host ?? '').replace(/:\d+$/, ''));
}
