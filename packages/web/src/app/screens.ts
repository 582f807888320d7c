import { ANYONE, collectionName, type Entity, effectiveScreens, type Model, type Screen } from '@ninepoint/spec';
import type { Me } from '../api/session.ts';

/** The screens the app shows: point 2 as declared, or a list, detail and form per entity. */
export function screensOf(model: Model): Screen[] {
  return effectiveScreens(model);
}

/** Why a screen cannot be opened, or null when it can: the screen's `who`, then point 6. */
export function refusal(screen: Screen, me: Me): 'sign-in' | 'forbidden' | null {
  const signedIn = me.user !== null;
  const roles = me.user?.roles ?? [];
  if (screen.who.length > 0) {
    const named = screen.who.includes(ANYONE) || (signedIn && roles.some((r) => screen.who.includes(r)));
    if (!named) return signedIn ? 'forbidden' : 'sign-in';
  } else if (!signedIn && screen.kind !== 'home') {
    // An empty `who` means every signed-in user.
    return 'sign-in';
  }
  if (screen.entity === null) return null;
  const access = me.access[screen.entity];
  if (!access) return signedIn ? 'forbidden' : 'sign-in';
  const editing = screen.kind === 'form' && screen.params.length > 0;
  const creating = screen.kind === 'form' && screen.params.length === 0;
  const allowed = creating ? access.create : editing ? access.update !== 'none' : access.read !== 'none';
  if (allowed) return null;
  return signedIn ? 'forbidden' : 'sign-in';
}

/** The screens worth a link in the navigation: those without parameters the user may open. */
export function navigation(model: Model, me: Me): Screen[] {
  return screensOf(model).filter((s) => s.params.length === 0 && !(s.kind === 'form') && refusal(s, me) === null);
}

export function entityOf(model: Model, name: string | null): Entity | undefined {
  return name === null ? undefined : model.entities.find((e) => e.name === name);
}

/** `/api/books`: the collection path of an entity's calls. */
export function apiPath(entity: string): string {
  return `/api/${collectionName(entity)}`;
}

/** The route of a screen with its parameters filled in. */
export function routeTo(screen: Screen, params: Record<string, string> = {}): string {
  return screen.route.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) =>
    encodeURIComponent(params[name] ?? ''),
  );
}

/** The screen of a kind for an entity (the first declared), to link records to their detail or form. */
export function screenFor(model: Model, entity: string, kind: Screen['kind'], withParam: boolean): Screen | undefined {
  return screensOf(model).find((s) => s.entity === entity && s.kind === kind && s.params.length > 0 === withParam);
}

/** A readable label: `due_date` → `Due date`, `dueDate` → `Due date`. */
export function label(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A screen's title: its doc, else the kind and entity (`Books`, `Loan board`). */
export function screenTitle(screen: Screen, model: Model): string {
  if (screen.kind === 'home') return model.product.name;
  const entity = screen.entity ?? '';
  switch (screen.kind) {
    case 'list':
      return label(collectionName(entity).replaceAll('-', ' '));
    case 'board':
      return `${entity} board`;
    case 'detail':
      return entity;
    case 'form':
      return screen.params.length > 0 ? `Edit ${entity.toLowerCase()}` : `New ${entity.toLowerCase()}`;
  }
}
