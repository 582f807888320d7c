import type { Call, CodeRef, OutgoingEvent } from '@ninepoint/spec';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { Logger } from 'pino';
import { createAjv } from '../compile/ajv.ts';
import type { CompiledApp } from '../compile/compiled-app.ts';
import type { Actor } from '../compile/permissions.ts';
import { ProblemError } from '../compile/problems.ts';
import type { Route } from '../compile/route-table.ts';
import type { LocalChange } from '../live/index.ts';
import type { AuthStore, RequestActor } from '../people/index.ts';
import { justRun, type WriteAround } from '../records/index.ts';
import type { Store } from '../store/store.ts';
import { codeCallSchemas } from './code-api.ts';
import { CODE_ACTOR_HEADER, type CodeActors, CodeRefusal, recordsAccess } from './code-records.ts';
import { CodeFault, type CodeRunner } from './code-runtime.ts';

export interface CodeOptions {
  compiled: CompiledApp;
  /** Who made a write, for its `after` hooks' `user`. */
  auth: AuthStore;
  store: Store;
  runner: CodeRunner;
  actors: CodeActors;
  logger: Logger;
}

/** What the rest of the server (and tests) reach of the code feature. */
export interface CodeFeature {
  /** Runs a record write with its `before` hooks, all in one transaction (`holdBeforeWrites`). */
  around: WriteAround;
  /** Runs the `after` hooks of a committed write, off the request's path. */
  committed(change: LocalChange): void;
  /** Runs the modules of a scheduled job that fell due (`schedule <job>`). */
  scheduled(job: string, dueAt: string): Promise<void>;
  /** Resolves once no `after` hook runs. */
  idle(): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Point 7's TypeScript modules (`code` plugin). */
    code: CodeFeature;
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Point 7's TypeScript modules as a Fastify plugin: custom calls (`code pricing.ts`) served on
 * their paths, `before` hooks run in the transaction of the write they are on (`around`: a
 * refusal answers, and nothing of the hook or the write is kept), `after` hooks once it has committed, and modules of scheduled jobs.
 */
export function registerCode(app: FastifyInstance, options: CodeOptions): CodeFeature {
  const { compiled, runner, actors, logger } = options;
  runner.attach(app);

  // A module's own API calls are made as its actor, set before people's hook (which then keeps it
  // and counts nothing against the rate limit: the request that ran the module was counted).
  app.addHook('onRequest', (request, _reply, done) => {
    const secret = request.headers[CODE_ACTOR_HEADER];
    if (typeof secret === 'string') {
      const actor = actors.get(secret);
      if (actor) request.actor = actor;
    }
    done();
  });

  for (const call of compiled.model.calls) {
    if (call.action.kind !== 'code') continue;
    if (compiled.routeTable.shadowed.includes(call)) continue;
    registerCustomCall(app, options, call, call.action.code);
  }

  const before = beforeHooks(compiled.routeTable.routes, runner);
  const around: WriteAround = before.size > 0 ? holdBeforeWrites(app, before, options) : justRun;

  const pending = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };
  return {
    around,
    committed(change) {
      if (change.kind === 'notification' || change.kind === 'account') return;
      const event: OutgoingEvent =
        change.kind === 'transition'
          ? { kind: 'transition', entity: change.entity, transition: change.transition ?? '' }
          : { kind: change.kind, entity: change.entity };
      const hooks = runner.hooksOn('after', event);
      if (hooks.length === 0) return;
      track(
        (async () => {
          const actor = await actorOf(options.auth, change.by, runner.system);
          for (const hook of hooks) {
            try {
              await runner.run({
                file: hook.code.file,
                export: hook.code.export,
                actor,
                requestId: null,
                readOnly: false,
                extra: {
                  moment: 'after',
                  event: change.kind,
                  transition: change.transition ?? null,
                  record: change.record,
                  changes: change.record,
                },
              });
            } catch (error) {
              logger.error(
                { err: error, module: hook.code.file, entity: change.entity, id: change.id },
                'an after hook failed; the write it followed stays committed',
              );
            }
          }
        })(),
      );
    },
    async scheduled(job, dueAt) {
      for (const hook of runner.hooksOn('schedule', { kind: 'schedule', job })) {
        try {
          await runner.run({
            file: hook.code.file,
            export: hook.code.export,
            actor: runner.system,
            requestId: null,
            readOnly: false,
            extra: { job, due: dueAt },
          });
        } catch (error) {
          logger.error({ err: error, module: hook.code.file, job }, 'a scheduled module failed');
        }
      }
    },
    async idle() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}

/**
 * Who an `after` hook acts for: the user who made the write (as their roles stand now), a visitor
 * for a visitor's, or the system for the system's own writes and for a user since deactivated.
 */
async function actorOf(auth: AuthStore, by: string | null | undefined, system: RequestActor): Promise<RequestActor> {
  if (by === null) return { userId: null, roles: [], user: null, via: null };
  if (by === undefined || by === system.userId) return system;
  const user = await auth.users.activeById(by);
  return user ? { userId: user.id, roles: user.roles, user, via: null } : system;
}

/** The calls whose answer is leaving while their held transaction is open (`holdBeforeWrites`). */
const answering = new WeakMap<FastifyRequest, { started: (status: number) => void; ended: Promise<unknown> }>();

/**
 * Runs a write that has `before` hooks inside one transaction held open across the hooks and the
 * write (`Store.hold`): the hooks' reads see what the write will see, their writes are the
 * write's, and a refusal (of a hook or of the write) rolls all of it back. The records' handlers
 * call it with their write once what they received is stored (an upload's files stream to storage
 * before, not while the transaction is held). The answer, once it starts to leave (`onSend`), ends
 * the transaction: committed for a success, rolled back for a refusal; it leaves only after that,
 * so a client never hears of a write that is not there yet, and a commit that fails answers that
 * failure instead.
 */
function holdBeforeWrites(app: FastifyInstance, before: Map<string, Route>, options: CodeOptions): WriteAround {
  const { compiled, store } = options;
  app.addHook('onSend', async (request, reply) => {
    const held = answering.get(request);
    if (!held) return;
    answering.delete(request);
    held.started(reply.statusCode);
    const failure = await held.ended;
    if (failure !== undefined) throw failure;
  });
  return async (request, reply, work) => {
    const route = before.get(`${request.method} ${request.routeOptions.url}`);
    const event = route ? eventOf(route) : null;
    // A caller point 6 refuses outright hears that from the call itself, never a module's answer
    // (which could tell them something about the records): the hook runs for callers who may write.
    if (!route || !event || !mayAttempt(compiled, request.actor, event)) return work();
    let started: (status: number) => void = () => {};
    const sending = new Promise<number>((resolve) => {
      started = resolve;
    });
    let end: (failure: unknown) => void = () => {};
    const ended = new Promise<unknown>((resolve) => {
      end = resolve;
    });
    answering.set(request, { started, ended });
    let handled: Promise<unknown> | undefined;
    let sent = false;
    try {
      await store.hold(async () => {
        await runBefore(request, route, options);
        // Not awaited whole: a write that answers waits for its answer to have left (a reply is
        // a thenable), which waits for this transaction to end.
        handled = Promise.resolve(work());
        const status = await Promise.race([sending, handled.then(() => reply.statusCode)]);
        sent = true;
        // A refusal the write answered rather than threw: nothing of it may stay.
        if (status >= 400) throw new RolledBack();
      }, `ninepoint before ${event.entity}`);
      end(undefined);
    } catch (error) {
      // Its answer waits in onSend: a failed commit is answered instead of it.
      end(sent && !(error instanceof RolledBack) ? error : undefined);
      if (!sent) throw error;
    }
    return handled;
  };
}

/** Ends a held transaction with a rollback: the call has answered a refusal. */
class RolledBack extends Error {
  override name = 'RolledBack';
}

/** The entity routes that have `before` hooks, by method and path. */
function beforeHooks(routes: readonly Route[], runner: CodeRunner): Map<string, Route> {
  const found = new Map<string, Route>();
  for (const route of routes) {
    const event = eventOf(route);
    if (event && runner.hooksOn('before', event).length > 0) found.set(`${route.method} ${route.path}`, route);
  }
  return found;
}

function eventOf(route: Route): Exclude<OutgoingEvent, { kind: 'schedule' }> | null {
  const { action } = route;
  switch (action.kind) {
    case 'create':
    case 'update':
    case 'delete':
      return { kind: action.kind, entity: action.entity };
    case 'transition':
      return { kind: 'transition', entity: action.entity, transition: action.transition };
    default:
      return null;
  }
}

async function runBefore(request: FastifyRequest, route: Route, { store, runner }: CodeOptions): Promise<void> {
  const event = eventOf(route);
  if (!event) return;
  const idParam = route.params[0];
  const id = idParam ? (request.params as Record<string, string>)[idParam] : undefined;
  const stored = id === undefined ? undefined : await store.records(event.entity).get(id);
  // A record that is not there: the write answers NOT_FOUND itself; a hook has nothing to judge.
  if (id !== undefined && !stored) return;
  for (const hook of runner.hooksOn('before', event)) {
    const answer = await runner.run({
      file: hook.code.file,
      export: hook.code.export,
      actor: request.actor,
      requestId: request.id,
      // In the write's transaction: what it writes is undone with the write if either refuses.
      readOnly: false,
      extra: {
        moment: 'before',
        event: event.kind,
        transition: event.kind === 'transition' ? event.transition : null,
        record: stored?.record ?? null,
        changes: typeof request.body === 'object' && request.body !== null ? request.body : {},
      },
    });
    if (answer !== undefined && answer !== null) {
      throw new CodeFault(
        `${hook.code.file} (${hook.code.export}), a before hook, answered ${typeof answer}: it answers nothing, and refuses with refuse(code). The write was not made.`,
      );
    }
  }
}

/** Whether point 6 lets the actor make this kind of write at all (`own` is the call's to decide per record). */
function mayAttempt(compiled: CompiledApp, actor: Actor, event: Exclude<OutgoingEvent, { kind: 'schedule' }>): boolean {
  const permissions = compiled.permissions.get(event.entity);
  if (!permissions) return false;
  switch (event.kind) {
    case 'create':
      return permissions.mayCreate(actor);
    case 'update':
    case 'delete':
      return permissions.access(actor, event.kind) !== 'none';
    case 'transition': {
      const transition = compiled.model.machines
        .find((m) => m.entity === event.entity)
        ?.transitions.find((t) => t.name === event.transition);
      return transition !== undefined && permissions.transitionAccess(actor, transition) !== 'none';
    }
  }
}

function registerCustomCall(app: FastifyInstance, options: CodeOptions, call: Call, code: CodeRef): void {
  const { compiled, store, runner, actors } = options;
  const entity = call.action.entity;
  const { payload, answer } = codeCallSchemas(call, compiled.jsonSchemas.get(entity));
  const ajv = createAjv();
  const checkPayload = ajv.compile(payload);
  const checkAnswer = answer ? ajv.compile(answer) : null;
  const get = compiled.routeTable.routes.find((r) => r.action.entity === entity && r.action.kind === 'get');
  const permissions = compiled.permissions.get(entity);
  app.route({
    method: call.method,
    url: call.path,
    handler: async (request, reply) => {
      const params = request.params as Record<string, string>;
      const id = params[call.params[0] ?? 'id'] ?? '';
      const { actor } = request;
      // The record, as the caller may read it: through the spec's get call when it has one.
      let record: unknown;
      if (get) {
        const secret = actors.enter(actor);
        try {
          record = await recordsAccess(app, compiled.routeTable.routes, secret, { readOnly: true }).get(entity, id);
        } catch (error) {
          if (error instanceof CodeRefusal)
            throw new ProblemError(error.problem.code === 'NOT_FOUND' ? 'NOT_FOUND' : error.problem.code, {
              entity,
              id,
            });
          throw error;
        } finally {
          actors.leave(secret);
        }
      } else {
        const stored = await store.records(entity).get(id);
        const read = permissions?.access(actor, 'read') ?? 'none';
        const mine = stored?.record.created_by === actor.userId && actor.userId !== null;
        if (!stored || read === 'none' || (read !== 'all' && !mine))
          throw new ProblemError('NOT_FOUND', { entity, id });
        record = stored.record;
      }
      const body = request.body ?? {};
      if (!checkPayload(body)) {
        const where = checkPayload.errors?.[0];
        throw new ProblemError('INVALID_PAYLOAD', {
          detail: `the body does not match the call's payload${where ? ` (${where.instancePath || 'body'} ${where.message})` : ''}`,
        });
      }
      const result = await runner.run({
        file: code.file,
        export: code.export,
        actor,
        requestId: request.id,
        readOnly: false,
        extra: { record, payload: body, params },
      });
      if (checkAnswer && !checkAnswer(result)) {
        const where = checkAnswer.errors?.[0];
        throw new CodeFault(
          `${code.file} (${code.export}) answered what ${call.method} ${call.path} does not declare${where ? `: ${where.instancePath || 'the answer'} ${where.message}` : ''}.`,
        );
      }
      return reply.type(JSON_TYPE).send(JSON.stringify(result ?? null));
    },
  });
}

/** The code feature as a Fastify plugin; not encapsulated, so its hooks reach the entity calls. */
export const code = fastifyPlugin<CodeOptions>(
  (app, options, done) => {
    app.decorate('code', registerCode(app, options));
    done();
  },
  // Before the records plugin: Fastify gives a route the hooks added before it is declared.
  { name: 'ninepoint-code', fastify: '5.x', dependencies: ['ninepoint-people'] },
);
