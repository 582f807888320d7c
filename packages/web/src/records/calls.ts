import { type Call, callsDeclared, type Entity, effectiveCalls, type Field, type Model } from '@ninepoint/spec';
import type { EntityAccess } from '../api/session.ts';

/** A record as the API answers it: the system fields, then the entity's fields (null when unset). */
export interface ApiRecord {
  id: string;
  created_at: string;
  updated_at: string;
  created_by: string | null;
  state?: string;
  [field: string]: unknown;
}

/** One page of a list call. */
export interface Page {
  items: ApiRecord[];
  next: string | null;
  total?: number;
}

export type { HistoryEntry } from '../api/wire.ts';

type PlainKind = 'list' | 'get' | 'create' | 'update' | 'delete' | 'history';

const served = new WeakMap<Model, Call[]>();

/** The calls the server serves: point 7 as declared, or the derived set. */
export function servedCalls(model: Model): Call[] {
  let calls = served.get(model);
  if (!calls) {
    calls = effectiveCalls(model);
    served.set(model, calls);
  }
  return calls;
}

/** The served call doing `kind` for an entity, if there is one. */
export function callFor(model: Model, entity: string, kind: PlainKind): Call | undefined {
  return servedCalls(model).find((c) => c.action.kind === kind && c.action.entity === entity);
}

/**
 * The path of an entity's summary call (`/api/tickets/summary`: counts and totals over its list's
 * filters), as the server serves it (`summary-routes.ts`): beside its list call, for every entity
 * when the calls are derived, else for those a dashboard counts; null when it serves none.
 */
export function summaryPath(model: Model, entity: string): string | null {
  const list = callFor(model, entity, 'list');
  if (!list) return null;
  const path = `${list.path}/summary`;
  if (servedCalls(model).some((c) => c.method === 'GET' && c.path === path)) return null;
  const counted = model.screens.some((s) => (s.tiles ?? []).some((t) => t.entity === entity));
  return callsDeclared(model) && !counted ? null : path;
}

/** The served call of a transition, if there is one (the creating transition has none: it runs on create). */
export function transitionCall(model: Model, entity: string, transition: string): Call | undefined {
  return servedCalls(model).find(
    (c) => c.action.kind === 'transition' && c.action.entity === entity && c.action.transition === transition,
  );
}

/** A call's path with its record id filled in. */
export function pathOf(call: Call, id?: string): string {
  return call.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, () => encodeURIComponent(id ?? ''));
}

/** The fields a call's payload accepts, in the entity's order; none when it takes no body. */
export function payloadFields(entity: Entity, call: Call | undefined): Field[] {
  const payload = call?.payload;
  if (!payload) return [];
  const named = payload.fields;
  return named === null ? entity.fields : entity.fields.filter((f) => named.includes(f.name));
}

/**
 * The fields of a form the user may fill in: those point 6 lets their roles set (`create (title)`)
 * or change (`update own (notes)`). The server refuses the others, so the form leaves them out.
 */
export function writableFields(fields: readonly Field[], access: EntityAccess | undefined, editing: boolean): Field[] {
  const allowed = editing ? access?.updateFields : access?.createFields;
  return allowed == null ? [...fields] : fields.filter((f) => allowed.includes(f.name));
}

export function entityNamed(model: Model, name: string): Entity | undefined {
  return model.entities.find((e) => e.name === name);
}

export function machineOf(model: Model, entity: string) {
  return model.machines.find((m) => m.entity === entity);
}
