import { callsDeclared, type Entity, isGroupable, isNumeric, type Model, type StateMachine } from '@ninepoint/spec';
import type { Route } from '../compile/route-table.ts';

/** An entity's summary call: its dashboards' figures, served beside its list (`/api/tickets/summary`). */
export interface SummaryRoute {
  entity: string;
  path: string;
  openapiPath: string;
  operationId: string;
  list: Route;
}

/**
 * The summary calls, at a list call's path plus `/summary` (unless a call of the spec takes that
 * path): of every entity with a list call when the calls are derived; when point 7 declares them,
 * only of the entities a dashboard screen counts, so that the app serves what its spec says.
 */
export function summaryRoutes(
  routes: readonly Route[],
  model: Pick<Model, 'points' | 'screens' | 'calls'>,
): SummaryRoute[] {
  const declared = callsDeclared(model);
  // Derived screens are never dashboards: the declared ones are all there are to look at.
  const counted = new Set(model.screens.flatMap((s) => s.tiles ?? []).map((t) => t.entity));
  const taken = new Set(routes.filter((r) => r.method === 'GET').map((r) => r.path));
  const ids = new Set(routes.map((r) => r.operationId));
  return routes
    .filter((r) => r.action.kind === 'list' && !taken.has(`${r.path}/summary`))
    .filter((r) => !declared || counted.has(r.action.entity))
    .map((list) => {
      const base = list.operationId.startsWith('list')
        ? `summarize${list.operationId.slice(4)}`
        : `${list.operationId}Summary`;
      let operationId = base;
      for (let n = 2; ids.has(operationId); n++) operationId = `${base}${n}`;
      ids.add(operationId);
      return {
        entity: list.action.entity,
        path: `${list.path}/summary`,
        openapiPath: `${list.openapiPath}/summary`,
        operationId,
        list,
      };
    });
}

/** The fields a summary may go by: the state, choice and boolean fields. */
export function groupableFields(entity: Entity, machine: StateMachine | undefined): string[] {
  return [...(machine ? ['state'] : []), ...entity.fields.filter((f) => isGroupable(f.type)).map((f) => f.name)];
}

/** The fields a summary may total: integer and decimal fields. */
export function summableFields(entity: Entity): string[] {
  return entity.fields.filter((f) => isNumeric(f.type)).map((f) => f.name);
}
