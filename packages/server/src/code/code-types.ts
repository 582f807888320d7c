/**
 * What a TypeScript module beside a spec is given and gives back: the public types of the escape
 * hatch (point 7's custom calls `code pricing.ts`, hooks and scheduled jobs), and the `define…`
 * functions that mark an export for its use. `ninepoint types spec.md` writes a spec's own
 * `SpecTypes` (its records, states, transitions, constants and error codes), so a module is
 * checked by TypeScript against the spec it runs under:
 *
 * ```ts
 * import { defineCall } from './quotes.types.ts';
 *
 * export default defineCall('Quote', async ({ record, payload, records, refuse }) => {
 *   if ((payload.discount ?? 0) > 20) refuse('DISCOUNT_TOO_HIGH');
 *   return records.update('Quote', record.id, { total: record.quantity * 12.5 });
 * });
 * ```
 */

/** The shape of a spec as TypeScript sees it; `ninepoint types` writes one per spec. */
export interface SpecTypes {
  /** Entity name → its record as the API answers it. */
  records: Record<string, object>;
  /** Entity name → its transitions' names (never for an entity without a state machine). */
  transitions: Record<string, string>;
  /** Point 9's constants by name, with their values' types. */
  constants: object;
  /** Point 8's codes and the built-in ones, as a union. */
  errors: string;
}

/** Any spec: what a module gets without generated types. */
export interface AnySpec extends SpecTypes {
  records: Record<string, { id: string } & Record<string, unknown>>;
  transitions: Record<string, string>;
  constants: Record<string, number | string | boolean>;
  errors: string;
}

type EntityOf<S extends SpecTypes> = keyof S['records'] & string;
type RecordOf<S extends SpecTypes, E extends EntityOf<S>> = S['records'][E];
/** What a write may send: some of the record's fields (the system's are ignored or refused as through the API). */
export type Changes<S extends SpecTypes, E extends EntityOf<S>> = Partial<RecordOf<S, E>>;

/** The user a module acts for: who made the request or the write (null for a visitor, the system, a job). */
export interface CodeUser {
  id: string;
  email: string;
  name: string;
  roles: readonly string[];
}

/** A module's logger: lines go to the server's log with the request id and the module's name. */
export interface CodeLogger {
  info(message: string, details?: Record<string, unknown>): void;
  warn(message: string, details?: Record<string, unknown>): void;
  error(message: string, details?: Record<string, unknown>): void;
}

/**
 * The app's records as the acting user may see and change them: every call goes through the
 * spec's API, so point 6's permissions, point 5's rules and limits and point 4's guards hold for
 * a module exactly as for the user's own calls. A refusal throws a `CodeRefusal` carrying the
 * problem; left uncaught, it is what the request answers.
 */
export interface RecordsAccess<S extends SpecTypes> {
  get<E extends EntityOf<S>>(entity: E, id: string): Promise<RecordOf<S, E>>;
  /** Every record the user may list, filtered by equality on fields (`{ state: 'draft' }`). */
  list<E extends EntityOf<S>>(
    entity: E,
    filter?: { [F in keyof RecordOf<S, E>]?: string | number | boolean },
  ): Promise<RecordOf<S, E>[]>;
  create<E extends EntityOf<S>>(entity: E, values: Changes<S, E>): Promise<RecordOf<S, E>>;
  update<E extends EntityOf<S>>(entity: E, id: string, values: Changes<S, E>): Promise<RecordOf<S, E>>;
  transition<E extends EntityOf<S> & keyof S['transitions']>(
    entity: E,
    id: string,
    transition: S['transitions'][E],
    values?: Changes<S, E>,
  ): Promise<RecordOf<S, E>>;
  delete<E extends EntityOf<S>>(entity: E, id: string): Promise<void>;
}

/** What every module is given. */
export interface CodeContext<S extends SpecTypes> {
  /** Who the module acts for; null for a visitor, the system and in a scheduled job. */
  user: CodeUser | null;
  /** Point 9's constants. */
  constants: Readonly<S['constants']>;
  /** The records as `user` may see and change them (see `RecordsAccess`). */
  records: RecordsAccess<S>;
  /**
   * The records as the system: every role's permissions, the rules, guards and limits still
   * checked, and history saying `system` made the change. In a `before` hook, in the write's transaction.
   */
  asSystem: RecordsAccess<S>;
  log: CodeLogger;
  /** The platform's `fetch`, aborted with the module when it runs out of time. */
  fetch: typeof fetch;
  /** Aborted when the module runs out of time (`CODE_TIMEOUT_SECONDS`). */
  signal: AbortSignal;
  /** Refuses with a code of the spec's error catalogue (its status and message): nothing is written. */
  refuse(code: S['errors'], params?: Record<string, string | number | boolean>): never;
  /** The request's id (the `x-request-id` of the answer and the log), or null in a scheduled job. */
  requestId: string | null;
}

/** A custom call's context: the record it is called on, the payload the spec declares, the path's parameters. */
export interface CallContext<S extends SpecTypes, E extends EntityOf<S>> extends CodeContext<S> {
  record: RecordOf<S, E>;
  payload: Changes<S, E>;
  params: Readonly<Record<string, string>>;
}

/** A hook's context: the write it runs for. */
export interface HookContext<S extends SpecTypes, E extends EntityOf<S>> extends CodeContext<S> {
  event: 'create' | 'update' | 'delete' | 'transition';
  /** The transition, for a `transition` event. */
  transition: string | null;
  /**
   * `before`: the record as stored (null on create). `after`: the record as committed (as it
   * was, for a delete).
   */
  record: RecordOf<S, E> | null;
  /** `before`: the fields the write sends. `after`: the record's fields as committed. */
  changes: Changes<S, E>;
  moment: 'before' | 'after';
}

/** A scheduled job's context: the job and the time it fell due. */
export interface JobContext<S extends SpecTypes> extends CodeContext<S> {
  job: string;
  /** ISO 8601 in UTC. */
  due: string;
}

/** What `defineCall` makes: the function, marked for `ninepoint check`. */
export type CodeCall<S extends SpecTypes, E extends EntityOf<S>> = ((context: CallContext<S, E>) => unknown) & {
  readonly ninepoint: 'call';
};
/** What `defineHook` makes. A `before` hook answers nothing (undefined); to refuse it calls `refuse`. */
export type CodeHook<S extends SpecTypes, E extends EntityOf<S>> = ((context: HookContext<S, E>) => unknown) & {
  readonly ninepoint: 'hook';
};
/** What `defineJob` makes. */
export type CodeJob<S extends SpecTypes> = ((context: JobContext<S>) => unknown) & { readonly ninepoint: 'job' };

/**
 * A custom call's export: `export default defineCall(async (context) => answer)`. The answer must
 * match the call's `answer` cell (a record of the entity, some of its fields, or any JSON when
 * empty); `ninepoint types` writes a `defineCall` typed for the spec.
 */
export function defineCall<S extends SpecTypes = AnySpec, E extends EntityOf<S> = EntityOf<S>>(
  run: (context: CallContext<S, E>) => unknown,
): CodeCall<S, E> {
  return Object.assign(run, { ninepoint: 'call' as const });
}

/** A hook's export: `export default defineHook(async (context) => { … })`. */
export function defineHook<S extends SpecTypes = AnySpec, E extends EntityOf<S> = EntityOf<S>>(
  run: (context: HookContext<S, E>) => unknown,
): CodeHook<S, E> {
  return Object.assign(run, { ninepoint: 'hook' as const });
}

/** A scheduled job's export: `export default defineJob(async (context) => { … })`. */
export function defineJob<S extends SpecTypes = AnySpec>(run: (context: JobContext<S>) => unknown): CodeJob<S> {
  return Object.assign(run, { ninepoint: 'job' as const });
}
