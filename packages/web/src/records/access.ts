import { type Access, type Model, type StateMachine, type Transition, USER_ENTITY } from '@ninepoint/spec';
import type { EntityAccess, Me } from '../api/session.ts';
import { label } from '../app/screens.ts';
import { stateColor as sharedStateColor } from '../format.ts';
import { type ApiRecord, entityNamed, machineOf, transitionCall } from './calls.ts';

/** An entity the user may do nothing with: what `accessTo` answers for one `/api/auth/me` leaves out. */
export const NO_ACCESS: Readonly<EntityAccess> = {
  create: false,
  read: 'none',
  update: 'none',
  delete: 'none',
  transitions: {},
  createFields: null,
  updateFields: null,
  readFields: null,
  updateStates: null,
  deleteStates: null,
  ownedVia: false,
};

/** What point 6 lets the signed-in user (or a visitor) do with an entity, as `/api/auth/me` says. */
export function accessTo(me: Me, entity: string): EntityAccess {
  return me.access[entity] ?? NO_ACCESS;
}

/**
 * Whether a record is the user's own, as the server decides for `own` access: they created it, or a
 * field referring to `User` names them.
 */
export function owns(model: Model, entityName: string, record: ApiRecord, me: Me): boolean {
  const id = me.user?.id;
  if (!id) return false;
  // Ownership through references (`own via doctor.account`) needs the records on the way:
  // `useOwned` reads them; here, the buttons show and the server decides.
  if (accessTo(me, entityName).ownedVia) return true;
  if (record.created_by === id) return true;
  const entity = entityNamed(model, entityName);
  return (entity?.fields ?? []).some(
    (f) => f.type.kind === 'reference' && f.type.entity === USER_ENTITY && record[f.name] === id,
  );
}

/**
 * Whether an access covers this record: `all`, or `own` and it is theirs; and, when the grant
 * holds only in some states (`while`), the record is in one of them.
 */
export function covers(access: Access, owned: boolean, states?: string[] | null, state?: unknown): boolean {
  if (states && !states.includes(String(state ?? ''))) return false;
  return access === 'all' || (access === 'own' && owned);
}

/** A transition the user may take from the record's state, with its served call. */
export interface Move {
  transition: Transition;
  /** The state it leads to. */
  to: string;
}

/**
 * The transitions the user may take on a record now: from its state, named in `who` for them
 * (or, with an empty `who`, covered by their update access, `while` included), and served by a call.
 * `owned`: whether the record is theirs to update (`useOwned` follows `own via` chains).
 */
export function movesOf(
  model: Model,
  me: Me,
  entity: string,
  record: ApiRecord,
  owned = owns(model, entity, record, me),
): Move[] {
  const machine = machineOf(model, entity);
  if (!machine || typeof record.state !== 'string') return [];
  const access = accessTo(me, entity);
  return (
    machine.transitions
      .filter((t) => !t.creates && t.from.includes(record.state as string))
      // An empty `who` is whoever may update the record: in the states their update grant holds in too.
      .filter((t) =>
        covers(
          access.transitions[t.name] ?? 'none',
          owned,
          t.who.length === 0 ? access.updateStates : null,
          record.state,
        ),
      )
      .filter((t) => transitionCall(model, entity, t.name) !== undefined)
      .map((t) => ({ transition: t, to: t.to }))
  );
}

/** `in_progress` → `In progress`. */
export function stateLabel(state: string): string {
  return label(state);
}

/** `mark overdue` → `Mark overdue`. */
export function transitionLabel(transition: Transition | string): string {
  const name = typeof transition === 'string' ? transition : transition.name;
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** A badge colour for a state, the same as the lists give it: one state has one colour on every screen. */
export function stateColor(machine: StateMachine | undefined, state: string): string {
  return sharedStateColor(machine?.states.map((s) => s.name) ?? [], state);
}
