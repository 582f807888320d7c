import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ProblemBody } from '../compile/problems.ts';
import type { Route } from '../compile/route-table.ts';
import type { RequestActor } from '../people/index.ts';
import type { AnySpec, RecordsAccess } from './code-types.ts';
import { letOthersIn } from './let-others-in.ts';

/** The header an injected call names its actor by: a secret that exists only while a module runs. */
export const CODE_ACTOR_HEADER = 'x-ninepoint-code-actor';

/** A refusal the API gave a module's call: its problem, which the module's request answers if left uncaught. */
export class CodeRefusal extends Error {
  override name = 'CodeRefusal';
  readonly problem: ProblemBody;

  constructor(problem: ProblemBody) {
    super(`${problem.code}: ${problem.detail}`);
    this.problem = problem;
  }
}

/** Thrown when an access made for reading only is asked to write. */
export class ReadOnlyError extends Error {
  override name = 'ReadOnlyError';
}

/**
 * The actors modules act as, each under a 256-bit secret that exists while the module runs: an
 * injected call carrying it in `CODE_ACTOR_HEADER` is made as that actor (`code-plugin.ts` swaps
 * it in after people's own hook). A header with any other value changes nothing.
 */
export class CodeActors {
  readonly #live = new Map<string, RequestActor>();

  enter(actor: RequestActor): string {
    const secret = randomBytes(32).toString('base64url');
    this.#live.set(secret, actor);
    return secret;
  }

  leave(secret: string): void {
    this.#live.delete(secret);
  }

  get(secret: string): RequestActor | undefined {
    return this.#live.get(secret);
  }
}

/**
 * A module's reader and writer: every call is the spec's own API call, made in-process
 * (`app.inject`) as the actor, so permissions, rules, limits and guards are exactly the user's.
 * A call the spec does not serve (point 7 lists no `update Quote`) cannot be made.
 */
export function recordsAccess(
  app: FastifyInstance,
  routes: readonly Route[],
  secret: string,
  options: { readOnly: boolean },
): RecordsAccess<AnySpec> {
  const route = (entity: string, kinds: readonly string[], transition?: string): Route => {
    const found = routes.find(
      (r) =>
        r.action.entity === entity &&
        kinds.includes(r.action.kind) &&
        (transition === undefined || (r.action.kind === 'transition' && r.action.transition === transition)),
    );
    if (!found) {
      const what = transition ? `${entity}: ${transition}` : `${kinds[0]} ${entity}`;
      throw new Error(`The spec serves no call for ${what} (point 7), so a module cannot make it.`);
    }
    return found;
  };
  const write = (what: string) => {
    if (options.readOnly) throw new ReadOnlyError(`This access reads only (${what}).`);
  };
  const call = async (r: Route, id: string | null, body?: unknown, query = ''): Promise<unknown> => {
    const url = (id === null ? r.path : r.path.replace(`:${r.params[0] ?? 'id'}`, encodeURIComponent(id))) + query;
    await letOthersIn();
    const answer = await app.inject({
      method: r.method,
      url,
      headers: { [CODE_ACTOR_HEADER]: secret, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    if (answer.statusCode === 204) return undefined;
    const parsed = answer.body === '' ? undefined : (JSON.parse(answer.body) as unknown);
    if (answer.statusCode >= 400) throw new CodeRefusal(parsed as ProblemBody);
    return parsed;
  };
  type Row = { id: string } & Record<string, unknown>;
  return {
    get: async (entity, id) => (await call(route(entity, ['get']), id)) as Row,
    list: async (entity, filter = {}) => {
      const r = route(entity, ['list']);
      const items: Row[] = [];
      let cursor: string | null = null;
      do {
        const query = new URLSearchParams();
        for (const [field, value] of Object.entries(filter)) query.append(`filter[${field}]`, String(value));
        if (cursor) query.set('cursor', cursor);
        const page = (await call(r, null, undefined, `?${query}`)) as { items: Row[]; next?: string | null };
        items.push(...page.items);
        cursor = page.next ?? null;
      } while (cursor);
      return items;
    },
    create: async (entity, values) => {
      write(`create ${entity}`);
      return (await call(route(entity, ['create']), null, values)) as Row;
    },
    update: async (entity, id, values) => {
      write(`update ${entity}`);
      return (await call(route(entity, ['update']), id, values)) as Row;
    },
    transition: async (entity, id, transition, values = {}) => {
      write(`${entity}: ${transition}`);
      return (await call(route(entity, ['transition'], transition), id, values)) as Row;
    },
    delete: async (entity, id) => {
      write(`delete ${entity}`);
      await call(route(entity, ['delete']), id);
    },
  };
}
