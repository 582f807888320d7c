import type { Model, Screen } from '@ninepoint/spec';
import type { Me } from '../api/session.ts';
import { refusal, routeTo, screenFor, screensOf } from '../app/screens.ts';

/** The route of a record's detail screen, when the spec has one the user may open. */
export function detailRoute(model: Model, me: Me, entity: string, id: string): string | null {
  const screen = screenFor(model, entity, 'detail', true);
  if (!screen || refusal(screen, me) !== null) return null;
  return routeTo(screen, { [screen.params[0] ?? 'id']: id });
}

/** The route of a record's edit form, when the spec has one the user may open. */
export function editRoute(model: Model, me: Me, entity: string, id: string): string | null {
  const screen = screenFor(model, entity, 'form', true);
  if (!screen || refusal(screen, me) !== null) return null;
  return routeTo(screen, { [screen.params[0] ?? 'id']: id });
}

/** The route of the create form of an entity, when the user may open it. */
export function createRoute(model: Model, me: Me, entity: string): string | null {
  const screen = screenFor(model, entity, 'form', false);
  if (!screen || refusal(screen, me) !== null) return null;
  return screen.route;
}

/**
 * Where an entity's records are listed, for a "back" link: an unfiltered list or board first, else
 * any the user may open (a member's "my loans").
 */
export function listScreen(model: Model, me: Me, entity: string): Screen | null {
  const candidates = screensOf(model).filter(
    (s) => s.entity === entity && (s.kind === 'list' || s.kind === 'board') && s.params.length === 0,
  );
  const open = candidates.filter((s) => refusal(s, me) === null);
  return open.find((s) => s.filters.length === 0) ?? open[0] ?? null;
}

/** The Studio opened at a spec line (`?line=…&text=…`), as a refusal's "why?" and a history entry link it. */
export function studioLineRoute(line: number, text: string): string {
  return `/studio?${new URLSearchParams({ line: String(line), text })}`;
}
