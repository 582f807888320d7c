import { isNumeric } from './field-kinds.ts';
import type { DashboardTile, Entity, FieldType, Screen, ScreenKind } from './model.ts';
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
const KINDS: readonly ScreenKind[] = ['home', 'list', 'detail', 'form', 'board', 'dashboard'];
const ROUTE = /^\/([a-z0-9][a-z0-9-]*|:[A-Za-z_][A-Za-z0-9_]*)?(\/([a-z0-9][a-z0-9-]*|:[A-Za-z_][A-Za-z0-9_]*))*$/;

/**
 * A dashboard figure as read and linked, with the cells `validate/screens.ts` judges against
 * points 3 and 4: `summed` when its summed field is a field of the entity, `by` when it goes by
 * state or by a field of the entity.
 */
export interface TileDraft {
  tile: DashboardTile;
  summed: Cell | null;
  by: Cell | null;
}

/**
 * A screen as read and linked. `linked` is false when a cell of its row did not read or link (and
 * was reported): the screen is left out of the model, but its figures are still judged. `shows`
 * is the cell naming a board's entity, `tiles` a dashboard's figures.
 */
export interface ScreenDraft {
  screen: Screen;
  linked: boolean;
  shows: Cell;
  tiles: TileDraft[];
  filters: FilterDraft[];
}

/**
 * A `where` clause as read and linked: `field` is the field, `state`, or a chain through
 * references (`path`, its fields joined by dots), `type` what it holds; `validate/screens.ts`
 * reads `raw` (the value, at `value`) as that type.
 */
export interface FilterDraft {
  field: string;
  kind: 'field' | 'state' | 'path';
  type: FieldType | undefined;
  raw: string;
  value: Cell;
}

/**
 * Point 2: screens with their route, kind, what they show (with an optional `where` filter) and
 * who may open them. Whether what a screen shows suits it (a board's states, a figure's field)
 * is `validate/screens.ts`'s to judge.
 */
export function readScreens(section: Section, scope: Scope): ScreenDraft[] {
  const { bag } = scope;
  const routes = new NameSet(bag, 'route');
  const screens: ScreenDraft[] = [];
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
    const draft: ScreenDraft = { screen, linked: true, shows, tiles: [], filters: [] };
    if (kind === 'home') {
      if (shows.text !== '') {
        bag.report(
          'invalid-screen',
          shows.span,
          'A home screen shows the product, not an entity; leave "shows" empty.',
        );
      }
    } else if (shows.text === '') {
      bag.report('empty-cell', shows.span, `The ${kind} screen ${route.text} must say which entity it shows.`, {
        hint: kind === 'dashboard' ? 'Write e.g. "Ticket: count by state, sum of time_spent by category".' : undefined,
      });
      continue;
    } else if (kind === 'dashboard') {
      if (params.length > 0) {
        bag.report('invalid-route', route.span, `Dashboard ${route.text} shows figures of many records: no :param.`, {
          hint: 'Give it a route of its own, e.g. /overview.',
        });
        continue;
      }
      const dashboard = readDashboard(shows, scope, route.text);
      draft.tiles = dashboard.tiles;
      screen.tiles = dashboard.tiles.map((t) => t.tile);
      if (!dashboard.linked) {
        // Left out of the model, but its figures that did link are still judged.
        screens.push({ ...draft, linked: false });
        continue;
      }
    } else if (!readShows(shows, draft, scope)) {
      // Left out of the model, but a board's entity, once linked, is still judged.
      if (screen.entity !== null) screens.push({ ...draft, linked: false });
      continue;
    }
    screen.who = splitList(cellOf(row, 'who'))
      .filter((r) => scope.role(r, `Screen ${route.text}`))
      .map((r) => r.text);
    screens.push(draft);
  }
  return screens;
}

/** `count`, `count by state`, `sum of amount`, `sum of amount by category` (`per` reads as `by`). */
const TILE = /^(count|sum(?:\s+of)?\s+([A-Za-z_][A-Za-z0-9_]*))(?:\s+(?:by|per)\s+([A-Za-z_][A-Za-z0-9_]*))?$/i;
const TILE_HINT = 'Write e.g. "Ticket: count by state, sum of time_spent by category; Article: count by category".';

/** The parts of a cell between separators, each with its own span, trimmed; empty parts dropped. */
function partsOf(cell: Cell, separator: string): Cell[] {
  const parts: Cell[] = [];
  let at = 0;
  for (const raw of cell.text.split(separator)) {
    const start = at + (raw.length - raw.trimStart().length);
    const text = raw.trim();
    if (text !== '') parts.push(cellPart(cell, start, text.length));
    at += raw.length + separator.length;
  }
  return parts;
}

/**
 * A dashboard's `shows`: groups separated by `;`, each an entity with its figures after a colon,
 * separated by commas. An entity alone counts its records per state, or in all when it has none.
 * `linked` is false when a group or figure did not read or link (reported here).
 */
function readDashboard(cell: Cell, scope: Scope, route: string): { tiles: TileDraft[]; linked: boolean } {
  const tiles: TileDraft[] = [];
  let ok = true;
  for (const group of partsOf(cell, ';')) {
    const colon = group.text.indexOf(':');
    const nameCell = colon < 0 ? group : cellPart(group, 0, colon);
    const name = nameCell.text.trim();
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name)) {
      scope.bag.report('invalid-dashboard', group.span, `"${group.text}" is not understood.`, { hint: TILE_HINT });
      ok = false;
      continue;
    }
    const entity = scope.entity(cellPart(group, 0, name.length), `Dashboard ${route}`);
    if (!entity) {
      ok = false;
      continue;
    }
    const machine = scope.machines.has(entity.name);
    if (colon < 0) {
      const tile: DashboardTile = { entity: entity.name, measure: 'count', field: null, by: machine ? 'state' : null };
      tiles.push({ tile, summed: null, by: null });
      continue;
    }
    const figures = partsOf(cellPart(group, colon + 1, group.text.length - colon - 1), ',');
    if (figures.length === 0) {
      scope.bag.report('invalid-dashboard', group.span, `Dashboard ${route} names ${entity.name} without figures.`, {
        hint: TILE_HINT,
      });
      ok = false;
    }
    for (const figure of figures) {
      const read = readTile(figure, entity, machine, scope, route);
      if (read) tiles.push(read.draft);
      if (!read?.linked) ok = false;
    }
  }
  return { tiles, linked: ok && tiles.length > 0 };
}

/** A figure as written, its fields linked; null when it does not read. */
function readTile(
  cell: Cell,
  entity: Entity,
  machine: boolean,
  scope: Scope,
  route: string,
): { draft: TileDraft; linked: boolean } | null {
  const m = TILE.exec(cell.text);
  if (!m) {
    scope.bag.report('invalid-dashboard', cell.span, `Figure "${cell.text}" of dashboard ${route} is not understood.`, {
      hint: 'A figure is count, count by a field, sum of a number field, or sum of it by a field.',
    });
    return null;
  }
  const what = `Dashboard ${route}`;
  const [, , summed, by] = m;
  const draft: TileDraft = {
    tile: { entity: entity.name, measure: summed ? 'sum' : 'count', field: summed ?? null, by: by ?? null },
    summed: null,
    by: null,
  };
  let linked = true;
  if (summed) {
    const at = cell.text.indexOf(summed, 3);
    const fieldCell = cellPart(cell, at, summed.length);
    const numbers = entity.fields.filter((f) => isNumeric(f.type));
    if (entity.fields.some((f) => f.name === summed)) draft.summed = fieldCell;
    else if (entity.untyped?.includes(summed)) linked = false;
    else {
      scope.bag.report(
        'unknown-field',
        fieldCell.span,
        `${what} names field "${summed}", which ${entity.name} does not have.`,
        {
          expected: suggest(
            summed,
            numbers.map((f) => f.name),
          ),
          hint:
            numbers.length > 0
              ? `The number fields of ${entity.name}: ${numbers.map((f) => f.name).join(', ')}.`
              : `${entity.name} has no number field to sum; count its records instead.`,
        },
      );
      linked = false;
    }
  }
  if (by) {
    const byCell = cellPart(cell, cell.text.lastIndexOf(by), by.length);
    if (by === 'state' || scope.field(entity, byCell, what, machine ? ['state'] : [])) draft.by = byCell;
    else linked = false;
  }
  return { draft, linked };
}

function readShows(cell: Cell, draft: ScreenDraft, scope: Scope): boolean {
  const { screen } = draft;
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
  if (!m[2]) return true;
  const whereAt = cell.text.indexOf(m[2], name.length);
  let ok = true;
  let offset = whereAt;
  for (const clause of m[2].split(/\s+and\s+/i)) {
    const at = cell.text.indexOf(clause, offset);
    offset = at + clause.length;
    const filter = readFilter(cellPart(cell, at, clause.length), entity.name, scope, screen.route);
    if (filter) draft.filters.push(filter);
    else ok = false;
  }
  return ok;
}

function readFilter(cell: Cell, entityName: string, scope: Scope, route: string): FilterDraft | null {
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
    return { field: path.fields.join('.'), kind: 'path', type: path.type ?? undefined, raw, value: valueCell };
  }
  const field = written;
  if (field === 'state') {
    if (!scope.state(scope.machines.get(entityName), entityName, valueCell, `Screen ${route}`)) return null;
    return { field, kind: 'state', type: undefined, raw, value: valueCell };
  }
  if (
    field !== 'created_by' &&
    !scope.field(entity, cellPart(cell, 0, field.length), `Screen ${route}`, ['created_by', 'state'])
  )
    return null;
  const type: FieldType | undefined =
    field === 'created_by' ? { kind: 'reference', entity: 'User' } : entity.fields.find((f) => f.name === field)?.type;
  return { field, kind: 'field', type, raw, value: valueCell };
}
