import {
  type Access,
  ANYONE,
  type Model,
  type Permission,
  rolesDeclared,
  type SpecLine,
  specLine,
  type Transition,
  USER_ENTITY,
} from '@ninepoint/spec';
import type { ApiRecord } from './record-types.ts';
import {
  covers,
  coversEveryRecord,
  EVERY_RECORD,
  type Grant,
  type RowLoader,
  type RowPath,
  rowPath,
} from './row-access.ts';

/** Who makes a call: a signed-in user with their roles, or a signed-out visitor (`userId` null). */
export interface Actor {
  userId: string | null;
  roles: readonly string[];
}

export type Operation = 'read' | 'update' | 'delete';

/**
 * The role of the system's actor when a module acts as the system (`asSystem`, after hooks, jobs):
 * every permission of point 6 (rules, guards and limits still hold), and `system` in history. It
 * is no name a spec can give a role, so no user can hold it.
 */
export const SYSTEM_ROLE = ':system';

const NO_GRANTS: readonly Grant[] = Object.freeze([]);
const ONLY_EVERY_RECORD: readonly Grant[] = Object.freeze([EVERY_RECORD]);

const isSystem = (actor: Actor): boolean => actor.userId !== null && actor.roles.includes(SYSTEM_ROLE);

/** A signed-out visitor. */
export const VISITOR: Actor = Object.freeze({ userId: null, roles: Object.freeze([]) as readonly string[] });

/**
 * What point 6 lets each actor do with one entity's records, compiled once. The semantics:
 *
 * - Point 6 **declares nothing** (`rolesDeclared`): there are no roles; a signed-in user may do everything, a signed-out
 *   visitor nothing.
 * - Point 6 **shown**: a user has the access of the best of their roles (`all` over `own` over
 *   none). The row `anyone` applies to everybody, signed in or not; it is all a visitor has.
 * - **own** covers the records the user created or that name the user in a field referring to
 *   `User` (`borrower`): `ownerColumns`; or, with `own via doctor.account`, the records those
 *   chains lead from to the user. **while** limits a grant to records in some states.
 * - A **transition** may be taken by the roles in its `who` (the creating one also needs create
 *   access); an empty `who` means whoever may update the record.
 * - **Fields** a role may set: `create (title)` and `update own (due)` limit what the role's
 *   create sets and its update changes; a user may set what any of their granting roles may.
 *   Without a list, a role sets the fields it reads.
 * - **Fields** a role may read: `read (title)`, `read except (speaker)`. Of a record, a user sees
 *   the fields any of their roles that grant reading *that record* shows (a `read own` role's
 *   only on their own records); the system fields always.
 */
export interface EntityPermissions {
  readonly entity: string;
  /** `created_by` and the fields referring to `User`: a record is a user's own when one names them. */
  readonly ownerColumns: readonly string[];
  mayCreate(actor: Actor): boolean;
  /**
   * The actor's access: `all` when some grant covers every record, `own` when grants cover some
   * records (their own, or records in some states: `covers` decides per record), else `none`.
   */
  access(actor: Actor, operation: Operation): Access;
  /** What each of the actor's granting roles grants: the records and states it covers (see `Grant`). */
  grants(actor: Actor, operation: Operation): readonly Grant[];
  /** The grants a transition's `who` gives: every record when named, else those of update. */
  transitionGrants(actor: Actor, transition: Transition): readonly Grant[];
  /** Whether the actor may take the transition on a record they may read (`own` is checked by the caller). */
  transitionAccess(actor: Actor, transition: Transition): Access;
  /**
   * The fields the actor may set on create or change on update, or null for every field (also
   * when the actor may not create or update at all: that is refused before fields matter).
   */
  settable(actor: Actor, operation: 'create' | 'update'): ReadonlySet<string> | null;
  /** Whether some role of point 6 reads only some fields of these records (`read except (x)`). */
  readonly listsFields: boolean;
  /**
   * The entity's fields the actor does not see of this record: those no role of theirs whose read
   * grant covers the record (its `own via` chains, its `while` states) shows. `load` reads the
   * records a chain goes through (inside a write, its `TxReader`; outside, `settle`).
   */
  hiddenOn(actor: Actor, record: ApiRecord, load: RowLoader): ReadonlySet<string>;
  /**
   * The fields some record the actor may list could hide from them: filtering, sorting and
   * searching by them is refused as for a field that does not exist.
   */
  unsearchable(actor: Actor): ReadonlySet<string>;
  /** Whether anybody at all may read this entity, signed out. */
  readonly visitorsMayRead: boolean;
  /**
   * Where point 6 writes what the actor may do with these records, for a refusal to name: the
   * cell of their first role that has a row (else `anyone`'s), else point 6's heading.
   */
  specLine(actor: Actor): SpecLine | null;
}

const NOTHING_HIDDEN: ReadonlySet<string> = new Set();
/** The system field a role may be kept from seeing (`read except (created_by)`), with history's `by`. */
export const AUTHOR = 'created_by';

/** Compiles point 6 (and the transitions' `who`) into a permission table per entity. */
export function compilePermissions(
  model: Pick<Model, 'entities' | 'permissions' | 'roles'> & Partial<Pick<Model, 'points' | 'lines'>>,
): Map<string, EntityPermissions> {
  const rolesShown = rolesDeclared(model);
  const heading = specLine(model, model.points?.find((p) => p.key === 'roles')?.span);
  const table = new Map<string, EntityPermissions>();
  for (const entity of model.entities) {
    const rows = model.permissions.filter((p) => p.entity === entity.name);
    const byRole = new Map(rows.map((p) => [p.role, p]));
    const ownerColumns = [
      'created_by',
      ...entity.fields.filter((f) => f.type.kind === 'reference' && f.type.entity === USER_ENTITY).map((f) => f.name),
    ];
    /** The roles whose rows apply to an actor: theirs, and `anyone`. */
    const rowsOf = (actor: Actor) => {
      const found = [];
      const anyone = byRole.get(ANYONE);
      if (anyone) found.push(anyone);
      if (actor.userId !== null) {
        for (const role of actor.roles) {
          const row = byRole.get(role);
          if (row && role !== ANYONE) found.push(row);
        }
      }
      return found;
    };
    const rowLines = new Map(rows.map((row) => [row.role, specLine(model, row.span)]));
    const lineFor = (actor: Actor): SpecLine | null => {
      const own = actor.userId === null ? undefined : actor.roles.find((r) => rowLines.get(r));
      return (own ? rowLines.get(own) : rowLines.get(ANYONE)) ?? heading;
    };
    const defaultPaths: RowPath[] = ownerColumns.map((c) => ({ column: c, through: [] }));
    const pathsOf = new Map<Permission, Record<Operation, RowPath[] | null>>();
    for (const row of rows) {
      const resolve = (operation: Operation) =>
        row.via[operation]?.map((fields) => rowPath(model, entity, fields)) ?? defaultPaths;
      pathsOf.set(row, { read: resolve('read'), update: resolve('update'), delete: resolve('delete') });
    }
    const grantsOf = (actor: Actor, operation: Operation): readonly Grant[] => {
      if (!rolesShown) return actor.userId === null ? NO_GRANTS : ONLY_EVERY_RECORD;
      return Object.freeze(
        rowsOf(actor)
          .filter((row) => row[operation] !== 'none')
          .map((row) =>
            Object.freeze({
              paths: row[operation] === 'all' ? null : (pathsOf.get(row)?.[operation] ?? defaultPaths),
              states: row.inStates[operation],
            }),
          ),
      );
    };
    // A visitor's grants, and each roles array's: every call asks, and the roles come from the
    // session or token found lately, the same array from one call to the next.
    const visitorGrants: Partial<Record<Operation, readonly Grant[]>> = {};
    const grantsByRoles = new WeakMap<readonly string[], Partial<Record<Operation, readonly Grant[]>>>();
    const grants = (actor: Actor, operation: Operation): readonly Grant[] => {
      let known = actor.userId === null ? visitorGrants : grantsByRoles.get(actor.roles);
      if (known === undefined) {
        known = {};
        grantsByRoles.set(actor.roles, known);
      }
      known[operation] ??= grantsOf(actor, operation);
      return known[operation];
    };
    const access = (actor: Actor, operation: Operation): Access => {
      const granted = grants(actor, operation);
      return granted.length === 0 ? 'none' : coversEveryRecord(granted) ? 'all' : 'own';
    };
    const mayCreate = (actor: Actor): boolean => {
      if (!rolesShown) return actor.userId !== null;
      return rowsOf(actor).some((row) => row.create);
    };
    const transitionAccess = (actor: Actor, transition: Transition): Access => {
      // Taken by the system alone (`system` is its only who): no person may take it.
      if (transition.automatic && transition.who.length === 0) return 'none';
      if (transition.who.length === 0)
        return transition.creates ? (mayCreate(actor) ? 'all' : 'none') : access(actor, 'update');
      const named =
        transition.who.includes(ANYONE) ||
        (actor.userId !== null && actor.roles.some((r) => transition.who.includes(r)));
      if (!named) return 'none';
      if (transition.creates) return mayCreate(actor) ? 'all' : 'none';
      return 'all';
    };
    const transitionGrants = (actor: Actor, transition: Transition): readonly Grant[] => {
      if (transition.who.length === 0 && !transition.automatic) return grants(actor, 'update');
      return transitionAccess(actor, transition) === 'none' ? [] : [EVERY_RECORD];
    };
    const settable = (actor: Actor, operation: 'create' | 'update'): ReadonlySet<string> | null => {
      if (!rolesShown) return null;
      const granting = rowsOf(actor).filter((row) => (operation === 'create' ? row.create : row.update !== 'none'));
      // A role without a list sets what it reads: writing a field it cannot see is for the list to grant.
      const lists = granting.map(
        (row) => (operation === 'create' ? row.createFields : row.updateFields) ?? row.readFields,
      );
      if (lists.length === 0 || lists.some((fields) => fields === null)) return null;
      return new Set(lists.flatMap((fields) => fields ?? []));
    };
    // `created_by` is hidden like a field from a role that hides authors (`read except (created_by)`).
    const fieldNames = [...entity.fields.map((f) => f.name), AUTHOR];
    const listsFields = rolesShown && rows.some((row) => row.readFields !== null || row.hidesAuthor === true);
    const shows = (row: Permission, field: string) =>
      field === AUTHOR ? row.hidesAuthor !== true : row.readFields === null || row.readFields.includes(field);
    /** The read grant of one role row: its records (own, via) and states (while). */
    const readGrant = (row: Permission): Grant => ({
      paths: row.read === 'all' ? null : (pathsOf.get(row)?.read ?? defaultPaths),
      states: row.inStates.read,
    });
    const hiddenOn = (actor: Actor, record: ApiRecord, load: RowLoader): ReadonlySet<string> => {
      // Most entities hide nothing from anybody: their reads pay nothing for this.
      if (!listsFields) return NOTHING_HIDDEN;
      // Only the rows whose own grant covers this record show its fields; none: nothing shows.
      const seen = new Set<string>();
      for (const row of rowsOf(actor)) {
        if (row.read === 'none' || !covers([readGrant(row)], record, actor.userId, load)) continue;
        if (row.readFields === null && row.hidesAuthor !== true) return NOTHING_HIDDEN;
        for (const field of fieldNames) if (shows(row, field)) seen.add(field);
      }
      const unseen = fieldNames.filter((name) => !seen.has(name));
      return unseen.length === 0 ? NOTHING_HIDDEN : new Set(unseen);
    };
    const unsearchable = (actor: Actor): ReadonlySet<string> => {
      if (!listsFields) return NOTHING_HIDDEN;
      // A field is seen on every record a list may hold when a grant of every record shows it,
      // or when every reading row shows it; otherwise filtering, sorting or searching by it
      // would tell its values on the records that hide it.
      const reading = rowsOf(actor).filter((row) => row.read !== 'none');
      const unseen = fieldNames.filter((field) => {
        const everywhere = reading.some((row) => {
          const grant = readGrant(row);
          return grant.paths === null && grant.states === null && shows(row, field);
        });
        return !everywhere && !reading.every((row) => shows(row, field));
      });
      return unseen.length === 0 ? NOTHING_HIDDEN : new Set(unseen);
    };
    table.set(entity.name, {
      entity: entity.name,
      ownerColumns,
      mayCreate: (actor) => isSystem(actor) || mayCreate(actor),
      access: (actor, operation) => (isSystem(actor) ? 'all' : access(actor, operation)),
      grants: (actor, operation) => (isSystem(actor) ? ONLY_EVERY_RECORD : grants(actor, operation)),
      transitionGrants: (actor, transition) =>
        isSystem(actor) ? ONLY_EVERY_RECORD : transitionGrants(actor, transition),
      transitionAccess: (actor, transition) => (isSystem(actor) ? 'all' : transitionAccess(actor, transition)),
      settable: (actor, operation) => (isSystem(actor) ? null : settable(actor, operation)),
      listsFields,
      hiddenOn: (actor, record, load) => (isSystem(actor) ? NOTHING_HIDDEN : hiddenOn(actor, record, load)),
      unsearchable: (actor) => (isSystem(actor) ? NOTHING_HIDDEN : unsearchable(actor)),
      visitorsMayRead: access({ userId: null, roles: [] }, 'read') !== 'none',
      specLine: lineFor,
    });
  }
  return table;
}

/** The roles a user may be given: the spec's, but `anyone`, which everybody has. */
export function assignableRoles(model: Pick<Model, 'roles'>): string[] {
  return model.roles.map((r) => r.name).filter((r) => r !== ANYONE);
}

/** What an actor may do with one entity's records, for the web app (`GET /api/auth/me`). */
export interface AccessSummary {
  create: boolean;
  read: Access;
  update: Access;
  delete: Access;
  /** By transition name (the creating one included). */
  transitions: Record<string, Access>;
  /** The fields the actor may set on create and change on update, in the entity's order; null for all. */
  createFields: string[] | null;
  updateFields: string[] | null;
  /** The states a record must be in to be updated or deleted (`while`); null for any. */
  updateStates: string[] | null;
  deleteStates: string[] | null;
  /** Whether some `own` grant reaches records through references (`own via doctor.account`). */
  ownedVia: boolean;
  /**
   * The fields the actor sees of every record they may read, in the entity's order; null for all.
   * (A `read own` role may show more of the actor's own records: those come with the record.)
   */
  readFields: string[] | null;
}

/** The states some grant needs, together; null when one of them applies in every state. */
function statesOf(grants: readonly Grant[]): string[] | null {
  if (grants.length === 0 || grants.some((g) => g.states === null)) return null;
  return [...new Set(grants.flatMap((g) => g.states ?? []))];
}

/**
 * What point 6 and the transitions' `who` let an actor do, per entity: the same table the server
 * enforces, so the app shows exactly the buttons and screens that will work.
 */
export function accessSummary(
  permissions: ReadonlyMap<string, EntityPermissions>,
  model: Pick<Model, 'entities' | 'machines'>,
  actor: Actor,
): Record<string, AccessSummary> {
  const summary: Record<string, AccessSummary> = {};
  const machines = model.machines;
  for (const [entity, p] of permissions) {
    const fields = model.entities.find((e) => e.name === entity)?.fields ?? [];
    const listed = (operation: 'create' | 'update') => {
      const settable = p.settable(actor, operation);
      return settable === null ? null : fields.map((f) => f.name).filter((name) => settable.has(name));
    };
    const read = p.access(actor, 'read');
    const hidden = read === 'none' ? NOTHING_HIDDEN : p.unsearchable(actor);
    const transitions: Record<string, Access> = {};
    for (const t of machines.find((m) => m.entity === entity)?.transitions ?? []) {
      transitions[t.name] = p.transitionAccess(actor, t);
    }
    summary[entity] = {
      create: p.mayCreate(actor),
      read,
      update: p.access(actor, 'update'),
      delete: p.access(actor, 'delete'),
      transitions,
      createFields: listed('create'),
      updateFields: listed('update'),
      updateStates: statesOf(p.grants(actor, 'update')),
      deleteStates: statesOf(p.grants(actor, 'delete')),
      ownedVia: (['read', 'update', 'delete'] as const).some((op) =>
        p.grants(actor, op).some((g) => g.paths?.some((path) => path.through.length > 0)),
      ),
      readFields: hidden.size === 0 ? null : fields.map((f) => f.name).filter((name) => !hidden.has(name)),
    };
  }
  return summary;
}
