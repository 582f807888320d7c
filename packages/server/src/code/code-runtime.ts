import type { Hook, Model, OutgoingEvent } from '@ninepoint/spec';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { SYSTEM_ROLE } from '../compile/permissions.ts';
import { ProblemError } from '../compile/problems.ts';
import type { Route } from '../compile/route-table.ts';
import type { RequestActor } from '../people/index.ts';
import { type CodeActors, CodeRefusal, recordsAccess } from './code-records.ts';
import type { AnySpec, CodeContext, CodeLogger, CodeUser } from './code-types.ts';
import { exportOf, type LoadedModules } from './load-modules.ts';

/** Thrown when a module does not finish in time or answers what it may not: logged, answered INTERNAL_ERROR. */
export class CodeFault extends Error {
  override name = 'CodeFault';
}

/** The system's actor in the API: every permission, `system` in history (as the scheduler's transitions). */
export function systemActor(systemId: string): RequestActor {
  return { userId: systemId, roles: [SYSTEM_ROLE], user: null, via: null };
}

export interface RunOptions {
  /** The module's file and export, for the log and for messages. */
  file: string;
  export: string;
  actor: RequestActor;
  requestId: string | null;
  /** Reads only (a custom call reading its record); a `before` hook writes in its write's transaction. */
  readOnly: boolean;
  /** What this kind of module is given besides the shared context. */
  extra: Record<string, unknown>;
}

/**
 * Runs modules: builds their context, holds them to `timeoutMs` (aborting their `fetch` and
 * `signal`), and turns what they throw into answers: `refuse(code)` and a refusal of the API left
 * uncaught are the problem they name; anything else is the module's fault (INTERNAL_ERROR, logged
 * with its stack by the server's error handler). The app never crashes on a module.
 */
export class CodeRunner {
  readonly #model: Model;
  readonly #routes: readonly Route[];
  readonly actors: CodeActors;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  readonly #system: RequestActor;
  #loaded: LoadedModules;
  #app: FastifyInstance | null = null;

  constructor(options: {
    model: Model;
    routes: readonly Route[];
    actors: CodeActors;
    logger: Logger;
    timeoutMs: number;
    loaded: LoadedModules;
    systemId: string;
  }) {
    this.#model = options.model;
    this.#routes = options.routes;
    this.actors = options.actors;
    this.#logger = options.logger;
    this.#timeoutMs = options.timeoutMs;
    this.#loaded = options.loaded;
    this.#system = systemActor(options.systemId);
  }

  /** The app whose API modules call (set once it is built). */
  attach(app: FastifyInstance): void {
    this.#app = app;
  }

  /** Modules loaded anew (`ninepoint dev` after a save). */
  reload(loaded: LoadedModules): void {
    this.#loaded = loaded;
  }

  get system(): RequestActor {
    return this.#system;
  }

  /** The hooks of a moment on an event, in the spec's order. */
  hooksOn(moment: Hook['moment'], event: OutgoingEvent): Hook[] {
    return this.#model.hooks.filter((h) => h.moment === moment && sameEvent(h.event, event));
  }

  async run(options: RunOptions): Promise<unknown> {
    const app = this.#app;
    if (!app) throw new Error('The code runner is not attached to an app.');
    const fn = exportOf(this.#loaded, options.file, options.export);
    if (!fn) throw new CodeFault(`${options.file} does not export ${options.export} (it failed to load or changed).`);
    const controller = new AbortController();
    const userSecret = this.actors.enter(options.actor);
    const systemSecret = this.actors.enter(this.#system);
    const log = this.#logger.child({
      module: options.file,
      export: options.export,
      reqId: options.requestId ?? undefined,
    });
    const context: CodeContext<AnySpec> & Record<string, unknown> = {
      user: codeUser(options.actor),
      constants: Object.fromEntries(this.#model.constants.map((c) => [c.name, c.value])),
      records: recordsAccess(app, this.#routes, userSecret, { readOnly: options.readOnly }),
      asSystem: recordsAccess(app, this.#routes, systemSecret, { readOnly: options.readOnly }),
      log: codeLogger(log),
      fetch: (input, init) => fetch(input, { ...init, signal: init?.signal ?? controller.signal }),
      signal: controller.signal,
      refuse: (code, params = {}) => {
        throw new ProblemError(code, params);
      },
      requestId: options.requestId,
      ...options.extra,
    };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(
          new CodeFault(
            `${options.file} (${options.export}) did not finish within ${this.#timeoutMs} ms (CODE_TIMEOUT_SECONDS); it was stopped and nothing it was asked to do was written.`,
          ),
        );
      }, this.#timeoutMs);
    });
    try {
      return await Promise.race([Promise.resolve().then(() => fn(context as never)), timeout]);
    } catch (error) {
      if (error instanceof CodeRefusal) {
        const { problem } = error;
        throw new ProblemError(
          problem.code,
          {},
          { message: problem.detail, ...(problem.errors ? { errors: problem.errors } : {}) },
        );
      }
      throw error;
    } finally {
      clearTimeout(timer);
      this.actors.leave(userSecret);
      this.actors.leave(systemSecret);
    }
  }
}

function sameEvent(a: OutgoingEvent, b: OutgoingEvent): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'schedule' || b.kind === 'schedule')
    return a.kind === b.kind && 'job' in a && 'job' in b && a.job === b.job;
  if (a.entity !== b.entity) return false;
  return a.kind !== 'transition' || (b.kind === 'transition' && a.transition === b.transition);
}

function codeUser(actor: RequestActor): CodeUser | null {
  const user = actor.user;
  if (!user) return null;
  return { id: user.id, email: user.email, name: user.name, roles: [...user.roles] };
}

function codeLogger(log: Logger): CodeLogger {
  return {
    info: (message, details) => log.info(details ?? {}, message),
    warn: (message, details) => log.warn(details ?? {}, message),
    error: (message, details) => log.error(details ?? {}, message),
  };
}
