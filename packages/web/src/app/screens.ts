import {
  ANYONE,
  type Call,
  type CallAction,
  collectionName,
  type Entity,
  effectiveCalls,
  effectiveScreens,
  type Model,
  type Screen,
} from '@ninepoint/spec';
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

/** Abbreviations a name may hold that read as letters: `isbn` → `ISBN`, `vat_id` → `VAT ID`. */
const INITIALISMS = new Set([
  'api',
  'bic',
  'cc',
  'csv',
  'dob',
  'eta',
  'faq',
  'gps',
  'hr',
  'html',
  'iban',
  'id',
  'ip',
  'isbn',
  'issn',
  'kpi',
  'nhs',
  'pdf',
  'po',
  'sku',
  'sla',
  'sms',
  'ssn',
  'uk',
  'url',
  'usb',
  'uuid',
  'vat',
  'vin',
]);

/** A readable label: `due_date` → `Due date`, `dueDate` → `Due date`, `isbn` → `ISBN`. */
export function label(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase()
    .split(/\s+/)
    .map((word) => (INITIALISMS.has(word) ? word.toUpperCase() : word))
    .join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What screens call a field: the spec's own label (point 3's `label` column), else its name as words. */
export function fieldLabel(field: { name: string; label?: string }): string {
  return field.label ?? label(field.name);
}

/**
 * A choice value as words: `in_progress` → `In progress`, `hardware` → `Hardware`; a value
 * written in capitals or with digits (`EUR`, `A4`) is kept as the spec writes it.
 */
export function choiceLabel(value: string): string {
  if (/[A-Z0-9]/.test(value)) return value.replace(/_/g, ' ');
  return label(value);
}

/**
 * A screen filter's field as words: `borrower` → `Borrower`; a chain through references reads
 * as a possessive, `doctor.account` → `Doctor’s account`.
 */
export function pathLabel(path: string): string {
  const [first = '', ...rest] = path.split('.');
  return [label(first), ...rest.map((step) => label(step).toLowerCase())].join('’s ');
}

/** Two-letter route words that are ordinary words, not abbreviations to write in capitals (`/kb` → `KB`). */
const SHORT_WORDS = new Set([
  'my',
  'me',
  'us',
  'in',
  'on',
  'to',
  'at',
  'by',
  'of',
  'up',
  'do',
  'go',
  'no',
  'so',
  'or',
  'an',
  'as',
  'is',
  'it',
  'we',
]);

/** The words of a route without its parameters and `new`/`edit`: `/my/old-loans` → `My old loans`; '' for `/`. */
export function routeWords(route: string): string {
  const words = route
    .split('/')
    .filter((s) => s !== '' && !s.startsWith(':') && s !== 'new' && s !== 'edit')
    .flatMap((s) => s.split(/[-_]+/))
    .filter((w) => w !== '');
  if (words.length === 0) return '';
  return words
    .map((word, i) => {
      if (word.length === 2 && !SHORT_WORDS.has(word)) return word.toUpperCase();
      return i === 0 ? word.charAt(0).toUpperCase() + word.slice(1) : word;
    })
    .join(' ');
}

/** `Book` → `Books`, `ExpenseReport` → `Expense reports`. */
export function pluralLabel(entity: string): string {
  return label(collectionName(entity).replaceAll('-', ' '));
}

/**
 * A screen's title: the home screen is the product; a list or board is named by its route, which
 * the spec's author chose (`/books` → Books, `/my/loans` → My loans, `/overdue` → Overdue, `/kb` →
 * KB), or by its entity when the route has no words; a detail by its entity; a form is New … or
 * Edit …. The screen's `doc` (the spec's meaning column) is its description: see `screenDoc`.
 */
export function screenTitle(screen: Screen, model: Model): string {
  if (screen.kind === 'home') return model.product.name;
  const entity = screen.entity ?? '';
  switch (screen.kind) {
    case 'list':
    case 'board':
      return routeWords(screen.route) || pluralLabel(entity);
    case 'detail':
      return entity;
    case 'form':
      return screen.params.length > 0 ? `Edit ${entity.toLowerCase()}` : `New ${entity.toLowerCase()}`;
    case 'dashboard':
      return routeWords(screen.route) || 'Dashboard';
  }
}

/** A screen's `doc` as a sentence (`the catalogue` → `The catalogue`), or '' when the spec gives none. */
export function screenDoc(screen: Screen): string {
  const doc = screen.doc.trim();
  return doc === '' ? '' : doc.charAt(0).toUpperCase() + doc.slice(1);
}

/**
 * Titles for several screens shown together (the navigation, the home page), each distinct: when
 * two would read the same, the board says so (`Loans (board)`) and a filtered list names its
 * filter (`Loans where state = overdue`).
 */
export function screenTitles(screens: readonly Screen[], model: Model): Map<Screen, string> {
  const titles = new Map(screens.map((s) => [s, s.kind === 'home' ? 'Home' : screenTitle(s, model)]));
  const counts = new Map<string, number>();
  for (const title of titles.values()) counts.set(title, (counts.get(title) ?? 0) + 1);
  for (const [screen, title] of titles) {
    if ((counts.get(title) ?? 0) < 2) continue;
    if (screen.kind === 'board') titles.set(screen, `${title} (board)`);
    else if (screen.filters.length > 0) titles.set(screen, `${title} where ${filterText(screen)}`);
  }
  return titles;
}

/** A screen's `where` as written: `borrower = me and state = out`. */
export function filterText(screen: Screen): string {
  return screen.filters.map((f) => `${f.field} = ${'me' in f.value ? 'me' : String(f.value.literal)}`).join(' and ');
}

/** The screen whose route matches a path, with its parameters; undefined when none does. */
export function screenAt(model: Model, pathname: string): Screen | undefined {
  const path = pathname.replace(/\/+$/, '') || '/';
  const matching = screensOf(model).filter((s) => {
    const pattern = s.route
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    return new RegExp(`^${pattern || '/'}$`).test(path);
  });
  // As the router ranks them: `/books/new` before `/books/:id`.
  return matching.sort((a, b) => a.params.length - b.params.length)[0];
}

/** An entity's call of a kind (`list`, `get`, `create`…) as the server serves it (point 7, or derived); undefined when it is not served. */
export function callOf(model: Model, entity: string, kind: CallAction['kind']): Call | undefined {
  return effectiveCalls(model).find((c) => c.action.entity === entity && c.action.kind === kind);
}

/** A call's path with its parameter filled in: `/api/books/:id` → `/api/books/0190…`. */
export function callUrl(call: Call, id?: string): string {
  return call.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/, () => encodeURIComponent(id ?? ''));
}

/**
 * Whether the user may create records of an entity: point 6's create, and the creating
 * transition's `who` when the entity has a state machine (the server checks both).
 */
export function mayCreate(model: Model, me: Me, entity: string): boolean {
  const access = me.access[entity];
  if (!access?.create) return false;
  const creating = model.machines.find((m) => m.entity === entity)?.transitions.find((t) => t.creates);
  return !creating || (access.transitions[creating.name] ?? 'none') !== 'none';
}

/** The create form of an entity the user may open and use, for "New …" buttons; undefined when there is none. */
export function createScreen(model: Model, me: Me, entity: string): Screen | undefined {
  const form = screenFor(model, entity, 'form', false);
  if (!form || refusal(form, me) !== null || !mayCreate(model, me, entity)) return undefined;
  return form;
}
