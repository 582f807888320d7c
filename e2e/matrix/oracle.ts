import { type Access, ANYONE, type Model, type Permission, type Transition, USER_ENTITY } from '@ninepoint/spec';

/**
 * What point 6 of docs/spec-format.md says an actor may do, written from the documentation alone
 * (it does not use the server's `compile/permissions.ts`), so the authorisation matrix compares
 * two readings of the same text:
 *
 * - A cell grants `create`, and `read`/`update`/`delete` on every record or on the role's `own`
 *   records only; `all` is all four; `-` or empty is nothing.
 * - A user's **own** records are those they created (`created_by`) and those naming them in a
 *   field of type `User`; for a grant `own via a.b`, instead, those whose chain of references
 *   `a.b` leads to them (several chains joined by `or`: any of them).
 * - The row **`anyone`** grants signed-out visitors, and so everybody; a visitor owns nothing.
 *   A user has what any of their roles (and `anyone`) grants: the best of the cells.
 * - Point 6 **not shown**: no roles; a signed-in user may do everything, a visitor nothing.
 * - A record holds the system fields and the fields the rows granting its read show (`read
 *   except (speaker)`); history entries' `changes` and `before` hold no others.
 * - A **transition** may be taken by the roles its `who` names (`anyone`: everybody); an empty
 *   `who` means whoever may update the record; `system` alone, that no person may take it. Creating a record takes the creating transition,
 *   so it needs both `create` and that transition's `who`.
 *
 * The status rules (docs/spec-format.md point 8's built-in codes, and the runtime's stated rules):
 *
 * - No access to the entity at all: NOT_SIGNED_IN (401) for a visitor, FORBIDDEN (403) for a user.
 * - A record the actor may not read is NOT_FOUND (404) for every call on it: indistinguishable
 *   from a record that does not exist; a list holds exactly the readable records.
 * - A record the actor may read but not change, delete or move on: FORBIDDEN for a user. For a
 *   visitor the refusal is NOT_SIGNED_IN (401), "Sign in to do this.": signing in is what could
 *   grant it, and 401 is HTTP's answer to a request without credentials (see VISITOR_REFUSAL).
 * - A create whose reference names a record the actor may not read is UNKNOWN_REFERENCE (422),
 *   as a reference to a record that does not exist (the harness asks `verdict('get', …)` of it).
 * - Allowed: 200 (201 for a create, 204 for a delete).
 */

/** Who makes a call: a signed-in user and their roles, or a visitor (`userId` null). */
export interface MatrixActor {
  /** For messages: `visitor`, `staff`, `all roles`. */
  name: string;
  userId: string | null;
  roles: readonly string[];
}

export type Operation = 'list' | 'get' | 'create' | 'update' | 'delete' | 'history' | 'transition';

/** An answer as the matrix compares it: the status, and the problem's code for an error. */
export interface Outcome {
  status: number;
  code: string | null;
}

export const NOT_SIGNED_IN: Outcome = { status: 401, code: 'NOT_SIGNED_IN' };
export const FORBIDDEN: Outcome = { status: 403, code: 'FORBIDDEN' };
export const NOT_FOUND: Outcome = { status: 404, code: 'NOT_FOUND' };

/**
 * The refusal of a visitor who may read a record but not do what they asked (a visitor updating
 * a book of a public catalogue). docs/spec-format.md does not say which of NOT_SIGNED_IN and
 * FORBIDDEN it is; the matrix expects NOT_SIGNED_IN, as for a visitor with no access at all.
 */
export const VISITOR_REFUSAL: Outcome = NOT_SIGNED_IN;

/** What the oracle says of one call: refused with this answer, or allowed (2xx unless a guard or rule refuses). */
export type Verdict = { allowed: false; outcome: Outcome; why: string } | { allowed: true; why: string };

const RANK: Record<Access, number> = { none: 0, own: 1, all: 2 };

/** A record by entity and id, for following `own via` chains; undefined when there is none. */
export type Lookup = (entity: string, id: unknown) => Readonly<Record<string, unknown>> | undefined;

export class PermissionOracle {
  readonly model: Model;
  /** Point 6 shown: roles exist. */
  readonly rolesShown: boolean;

  readonly #lookup: Lookup;

  constructor(model: Model, lookup: Lookup = () => undefined) {
    this.model = model;
    this.#lookup = lookup;
    this.rolesShown = model.points.find((p) => p.number === 6)?.shown === true;
  }

  /** `created_by` and the entity's `User` fields. */
  ownerColumns(entity: string): string[] {
    const found = this.model.entities.find((e) => e.name === entity);
    if (!found) throw new Error(`No entity ${entity}`);
    const users = found.fields.filter((f) => f.type.kind === 'reference' && f.type.entity === USER_ENTITY);
    return ['created_by', ...users.map((f) => f.name)];
  }

  /** Whether the record is the actor's own: by the default owners, or by any of a grant's `via` chains. */
  owns(
    entity: string,
    record: Readonly<Record<string, unknown>>,
    actor: MatrixActor,
    chains: readonly (readonly string[])[] | null = null,
  ): boolean {
    if (actor.userId === null) return false;
    if (chains === null) return this.ownerColumns(entity).some((c) => record[c] === actor.userId);
    return chains.some((chain) => this.leadsTo(entity, record, chain, actor.userId));
  }

  /** Whether following the references of `chain` from the record ends at the user. */
  leadsTo(
    entity: string,
    record: Readonly<Record<string, unknown>>,
    chain: readonly string[],
    userId: unknown,
  ): boolean {
    let at: Readonly<Record<string, unknown>> | undefined = record;
    let on = entity;
    for (const step of chain.slice(0, -1)) {
      const field = this.model.entities.find((e) => e.name === on)?.fields.find((f) => f.name === step);
      if (field?.type.kind !== 'reference') throw new Error(`${on}.${step} is no reference`);
      on = field.type.entity;
      at = this.#lookup(on, at[step]);
      if (!at) return false;
    }
    return at[chain[chain.length - 1] ?? ''] === userId;
  }

  /** Whether a row of the actor grants the operation on this record: on all, or on own records it owns. */
  grants(
    entity: string,
    actor: MatrixActor,
    operation: 'read' | 'update' | 'delete',
    record: Readonly<Record<string, unknown>>,
  ): boolean {
    if (!this.rolesShown) return actor.userId !== null;
    return this.rows(entity, actor).some(
      (r) => r[operation] === 'all' || (r[operation] === 'own' && this.owns(entity, record, actor, r.via[operation])),
    );
  }

  /** The point-6 rows that apply to the actor for an entity: `anyone`'s, and their roles' when signed in. */
  rows(entity: string, actor: MatrixActor): Permission[] {
    return this.model.permissions.filter(
      (p) => p.entity === entity && (p.role === ANYONE || (actor.userId !== null && actor.roles.includes(p.role))),
    );
  }

  access(entity: string, actor: MatrixActor, operation: 'read' | 'update' | 'delete'): Access {
    if (!this.rolesShown) return actor.userId === null ? 'none' : 'all';
    let best: Access = 'none';
    for (const row of this.rows(entity, actor)) if (RANK[row[operation]] > RANK[best]) best = row[operation];
    return best;
  }

  mayCreate(entity: string, actor: MatrixActor): boolean {
    if (!this.rolesShown) return actor.userId !== null;
    return this.rows(entity, actor).some((r) => r.create);
  }

  /**
   * The fields the actor may set on create or change on update (`create (title)`), or null for
   * all: what any of the rows granting the operation names, all when one names none; a row
   * without a list sets the fields it reads (`read except (notes)`).
   */
  settable(entity: string, actor: MatrixActor, operation: 'create' | 'update'): ReadonlySet<string> | null {
    if (!this.rolesShown) return null;
    const granting = this.rows(entity, actor).filter((r) => (operation === 'create' ? r.create : r.update !== 'none'));
    const lists = granting.map((r) => (operation === 'create' ? r.createFields : r.updateFields) ?? r.readFields);
    if (lists.length === 0 || lists.some((l) => l === null)) return null;
    return new Set(lists.flatMap((l) => l ?? []));
  }

  /** Whether `who` names the actor: one of their roles, or `anyone`. */
  named(transition: Transition, actor: MatrixActor): boolean {
    if (transition.who.includes(ANYONE)) return true;
    return actor.userId !== null && actor.roles.some((r) => transition.who.includes(r));
  }

  refusal(actor: MatrixActor): Outcome {
    return actor.userId === null ? NOT_SIGNED_IN : FORBIDDEN;
  }

  /** The records of `all` a list answers the actor: exactly the readable ones. */
  visible<R extends Readonly<Record<string, unknown>>>(entity: string, actor: MatrixActor, all: readonly R[]): R[] {
    return all.filter((r) => this.grants(entity, actor, 'read', r));
  }

  /**
   * The keys a record the actor reads holds: the system fields, and the entity's fields that any
   * row granting the actor read of this record shows (`read (title)`, `read except (speaker)`;
   * a `read own` row only on their own records, or on every record when `owned` says so). Point 6
   * not shown: every field.
   */
  shownKeys(
    entity: string,
    actor: MatrixActor,
    record: Readonly<Record<string, unknown>>,
    owned?: boolean,
  ): Set<string> {
    const found = this.model.entities.find((e) => e.name === entity);
    if (!found) throw new Error(`No entity ${entity}`);
    const machine = this.model.machines.some((m) => m.entity === entity);
    const system = ['id', 'created_at', 'updated_at', 'created_by', ...(machine ? ['state'] : [])];
    const every = found.fields.map((f) => f.name);
    if (!this.rolesShown) return new Set([...system, ...every]);
    const reading = this.rows(entity, actor).filter(
      (r) => r.read === 'all' || (r.read === 'own' && (owned ?? this.owns(entity, record, actor, r.via.read))),
    );
    const shown = reading.some((r) => r.readFields === null) ? every : reading.flatMap((r) => r.readFields ?? []);
    return new Set([...system, ...shown]);
  }

  /** The verdict on one call; `record` for the calls on one record, `transition` for a transition. */
  verdict(
    operation: Operation,
    entity: string,
    actor: MatrixActor,
    record?: Readonly<Record<string, unknown>>,
    transition?: Transition,
  ): Verdict {
    const refuse = (why: string, outcome = this.refusal(actor)): Verdict => ({ allowed: false, outcome, why });
    if (operation === 'create') {
      if (!this.mayCreate(entity, actor)) return refuse('no create');
      const creating = this.model.machines.find((m) => m.entity === entity)?.transitions.find((t) => t.creates);
      if (creating && creating.who.length > 0 && !this.named(creating, actor)) {
        return refuse(`"${creating.name}" names ${creating.who.join(', ')}`);
      }
      return { allowed: true, why: 'create' };
    }
    const read = this.access(entity, actor, 'read');
    if (read === 'none') return refuse('no read');
    if (operation === 'list') return { allowed: true, why: `read ${read}` };
    if (!record) throw new Error(`${operation} needs a record`);
    if (!this.grants(entity, actor, 'read', record)) return refuse('read own, not theirs', NOT_FOUND);
    if (operation === 'get' || operation === 'history') return { allowed: true, why: `read ${read}` };
    const visitor = actor.userId === null;
    const writes = (kind: 'update' | 'delete'): Verdict => {
      const access = this.access(entity, actor, kind);
      if (access === 'none') return refuse(`no ${kind}`, visitor ? VISITOR_REFUSAL : FORBIDDEN);
      if (!this.grants(entity, actor, kind, record))
        return refuse(`${kind} own, not theirs`, visitor ? VISITOR_REFUSAL : FORBIDDEN);
      return { allowed: true, why: `${kind} ${access}` };
    };
    if (operation === 'update' || operation === 'delete') return writes(operation);
    if (!transition) throw new Error('a transition call needs its transition');
    // `system` alone in who: the app takes it by itself and no person may.
    if (transition.automatic && transition.who.length === 0) {
      return refuse('who: system', visitor ? VISITOR_REFUSAL : FORBIDDEN);
    }
    if (transition.who.length === 0) return writes('update');
    if (this.named(transition, actor)) return { allowed: true, why: `who: ${transition.who.join(', ')}` };
    return refuse(`who: ${transition.who.join(', ')}`, visitor ? VISITOR_REFUSAL : FORBIDDEN);
  }
}
