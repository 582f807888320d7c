import type { FieldType, Screen, ScreenFilter, ScreenKind } from './model.ts';
import type { Section } from './parse-sections.ts';
import { type Cell, cellPart, splitList } from './parse-tables.ts';
import { allTables, cellOf, docOf, NameSet, pathParams, requiredCell, rowsOf } from './read-helpers.ts';
import { readReferencePath } from './reference-paths.ts';
import type { Scope } from './scope.ts';
import { suggest } from './suggest.ts';

const COLUMNS = [
  { key: 'route', names: ['route', 'path', 'url'], required: true },
  { key: 'screen', names: ['screen', 'kind', 'type'], required: true },
  { key: 'shows', names: ['shows', 'entity', 'what', 'show'] },
  { key: 'who', names: ['who', 'roles', 'for'] },
];
const KINDS: readonly ScreenKind[] = ['home', 'list', 'detail', 'form', 'board'];
const ROUTE = /^\/([a-z0-9][a-z0-9-]*|:[A-Za-z_][A-Za-z0-9_]*)?(\/([a-z0-9][a-z0-9-]*|:[A-Za-z_][A-Za-z0-9_]*))*$/;

/** Point 2: screens with their route, kind, what they show (with an optional `where` filter) and who may open them. */
export function readScreens(section: Section, scope: Scope): Screen[] {
  const { bag } = scope;
  const routes = new NameSet(bag, 'route');
  const screens: Screen[] = [];
  for (const row of rowsOf(allTables(section), COLUMNS, bag, 'screens')) {
    const route = requiredCell(row, 'route', bag, 'A screen');
    const kindCell = requiredCell(row, 'screen', bag, `Screen ${route?.text ?? ''}`.trim());
    if (!route || !kindCell) continue;
    const kind = kindCell.text.toLowerCase() as ScreenKind;
    if (!KINDS.includes(kind)) {
      bag.report('invalid-screen', kindCell.span, `"${kindCell.text}" is not a kind of screen.`, {
        expected: suggest(kind, KINDS),
        hint: `Screens are ${KINDS.join(', ')}.`,
      });
      continue;
    }
    const params = pathParams(route.text);
    if (!ROUTE.test(route.text)) {
      bag.report('invalid-route', route.span, `Route "${route.text}" is not a valid route.`, {
        hint: 'Routes start with / and use lowercase words, digits, - and :params, e.g. /books/:id/edit.',
      });
      continue;
    }
    if (!routes.add(route, route.text.replace(/:[^/]+/g, ':'))) continue;
    if (kind === 'detail' && params.length === 0) {
      bag.report(
        'invalid-route',
        route.span,
        `Detail screen ${route.text} has no :id parameter to say which record it shows.`,
        {
          hint: `Write e.g. ${route.text.replace(/\/$/, '')}/:id.`,
        },
      );
    }
    const shows = cellOf(row, 'shows');
    const screen: Screen = {
      route: route.text,
      params,
      kind,
      entity: null,
      filters: [],
      who: [],
      doc: docOf(row),
      span: row.span,
    };
    if (kind === 'home') {
      if (shows.text !== '') {
        bag.report(
          'invalid-screen',
          shows.span,
          'A home screen shows the product, not an entity; leave "shows" empty.',
        );
      }
    } else if (shows.text === '') {
      bag.report('empty-cell', shows.span, `The ${kind} screen ${route.text} must say which entity it shows.`);
      continue;
    } else if (!readShows(shows, screen, scope)) continue;
    screen.who = splitList(cellOf(row, 'who'))
      .filter((r) => scope.role(r, `Screen ${route.text}`))
      .map((r) => r.text);
    screens.push(screen);
  }
  return screens;
}

function readShows(cell: Cell, screen: Screen, scope: Scope): boolean {
  const m = /^([A-Za-z][A-Za-z0-9]*)(?:\s+where\s+(.+))?$/.exec(cell.text);
  if (!m) {
    scope.bag.report('invalid-filter', cell.span, `"${cell.text}" is not understood.`, {
      hint: 'Write an entity, optionally with a filter: "Loan where borrower = me".',
    });
    return false;
  }
  const name = m[1] as string;
  const entity = scope.entity(cellPart(cell, 0, name.length), `Screen ${screen.route}`);
  if (!entity) return false;
  screen.entity = entity.name;
  if (screen.kind === 'board' && !scope.machines.has(entity.name)) {
    scope.bag.report(
      'invalid-screen',
      cell.span,
      `Board ${screen.route} shows ${entity.name}, which has no states to make columns of.`,
      {
        hint: `Give ${entity.name} a state machine in point 4, or make this a list screen.`,
      },
    );
    return false;
  }
  if (!m[2]) return true;
  const whereAt = cell.text.indexOf(m[2], name.length);
  let ok = true;
  let offset = whereAt;
  for (const clause of m[2].split(/\s+and\s+/i)) {
    const at = cell.text.indexOf(clause, offset);
    offset = at + clause.length;
    const filter = readFilter(cellPart(cell, at, clause.length), entity.name, scope, screen.route);
    if (filter) screen.filters.push(filter);
    else ok = false;
  }
  return ok;
}

function readFilter(cell: Cell, entityName: string, scope: Scope, route: string): ScreenFilter | null {
  const m = /^([A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*=\s*(.+)$/.exec(cell.text);
  if (!m) {
    scope.bag.report('invalid-filter', cell.span, `Filter "${cell.text}" of screen ${route} is not understood.`, {
      hint: 'Write "field = value", where value is me, a state, a choice value, a number, true/false or a "quoted text".',
    });
    return null;
  }
  const [, written, raw] = m as unknown as [string, string, string];
  const entity = scope.entities.get(entityName);
  if (!entity) return null;
  const valueCell = cellPart(cell, cell.text.lastIndexOf(raw), raw.length);
  if (written.includes('.')) {
    // A chain through references: `doctor.account = me` keeps the records whose doctor's account is the user.
    const path = readReferencePath(cellPart(cell, 0, written.length), entity, scope, `Screen ${route}`);
    if (!path) return null;
    const field = path.fields.join('.');
    if (raw === 'me' && path.type?.kind === 'reference' && path.type.entity === 'User') {
      return { field, value: { me: true } };
    }
    scope.bag.report(
      'invalid-filter',
      valueCell.span,
      `A filter through references compares with me, so ${entityName}.${field} must end at a field referring to User.`,
      { hint: 'Write e.g. "Appointment where doctor.account = me", where account is a User field of Doctor.' },
    );
    return null;
  }
  const field = written;
  if (field === 'state') {
    if (!scope.state(scope.machines.get(entityName), entityName, valueCell, `Screen ${route}`)) return null;
    return { field, value: { literal: raw } };
  }
  if (
    field !== 'created_by' &&
    !scope.field(entity, cellPart(cell, 0, field.length), `Screen ${route}`, ['created_by', 'state'])
  )
    return null;
  const type: FieldType | undefined =
    field === 'created_by' ? { kind: 'reference', entity: 'User' } : entity.fields.find((f) => f.name === field)?.type;
  if (raw === 'me') {
    if (type?.kind === 'reference' && type.entity === 'User') return { field, value: { me: true } };
    scope.bag.report(
      'invalid-filter',
      valueCell.span,
      `"me" is the signed-in user, but ${entityName}.${field} does not reference User.`,
    );
    return null;
  }
  const bad = (expected: string) => {
    scope.bag.report(
      'invalid-filter',
      valueCell.span,
      `"${raw}" cannot be compared with ${entityName}.${field}, which needs ${expected}.`,
    );
    return null;
  };
  const quoted = /^"(.*)"$/.exec(raw);
  switch (type?.kind) {
    case 'choice':
      if (!type.values.includes(quoted?.[1] ?? raw)) {
        scope.bag.report('invalid-filter', valueCell.span, `"${raw}" is not one of ${entityName}.${field}'s values.`, {
          expected: suggest(raw, type.values),
        });
        return null;
      }
      return { field, value: { literal: quoted?.[1] ?? raw } };
    case 'integer':
    case 'decimal':
      return /^-?\d+(\.\d+)?$/.test(raw) ? { field, value: { literal: Number(raw) } } : bad('a number');
    case 'boolean':
      return /^(true|false)$/.test(raw) ? { field, value: { literal: raw === 'true' } } : bad('true or false');
    case 'reference':
      return bad(type.entity === 'User' ? 'me (the signed-in user)' : 'a record, which a screen filter cannot name');
    default:
      return quoted ? { field, value: { literal: quoted[1] ?? '' } } : bad('a "quoted" text');
  }
}
