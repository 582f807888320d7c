import type { DashboardTile, Model } from '@ninepoint/spec';
import type { Me } from '../api/session.ts';
import { label } from '../app/screens.ts';
import { choiceColor } from '../format.ts';
import { filterParams, machineOf } from '../list/query.ts';
import { stateColor } from '../records/access.ts';
import { callFor } from '../records/calls.ts';
import { collectionLabel } from '../records/labels.ts';
import { listScreen } from '../records/navigation.ts';

/** What `GET …/summary` answers. */
export interface Summary {
  count: number;
  sums: Record<string, number>;
  groups?: { value: string | boolean | null; count: number; sums: Record<string, number> }[];
}

/** A tile the user may see, with where its figures come from. */
export interface ShownTile {
  tile: DashboardTile;
  /** `/api/tickets/summary?by=state&sum=time_spent`. */
  url: string;
  title: string;
}

/**
 * The tiles of a dashboard the user may see: of entities they may read and served with a list
 * call, over fields the model they see still has (`read except (…)` removes the others).
 * `model` is the model as the user sees it (`visibleModel`).
 */
export function shownTiles(model: Model, me: Me, tiles: readonly DashboardTile[]): ShownTile[] {
  return tiles.flatMap((tile) => {
    const access = me.access[tile.entity];
    const entity = model.entities.find((e) => e.name === tile.entity);
    const list = callFor(model, tile.entity, 'list');
    if (!access || access.read === 'none' || !entity || !list) return [];
    const has = (name: string) => name === 'state' || entity.fields.some((f) => f.name === name);
    if ((tile.field && !has(tile.field)) || (tile.by && !has(tile.by))) return [];
    const query = new URLSearchParams();
    if (tile.by) query.set('by', tile.by);
    if (tile.field) query.set('sum', tile.field);
    const search = query.toString();
    return [{ tile, url: `${list.path}/summary${search ? `?${search}` : ''}`, title: tileTitle(tile) }];
  });
}

/** `Tickets by state`, `Time spent by category`, `Tickets`, `Time spent`. */
export function tileTitle(tile: DashboardTile): string {
  const what = tile.measure === 'sum' && tile.field ? label(tile.field) : collectionLabel(tile.entity);
  return tile.by ? `${what} by ${label(tile.by).toLowerCase()}` : what;
}

/** A group's value as words: a state or a choice read as a label, booleans as Yes/No, none as "Not set". */
export function groupLabel(value: string | boolean | null): string {
  if (value === null) return 'Not set';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return label(value);
}

/** A group's value as the list's address writes it; null when the list cannot filter by it ("Not set"). */
export function filterValue(value: string | boolean | null): string | null {
  if (value === null) return null;
  return typeof value === 'boolean' ? String(value) : value;
}

/**
 * Where the records behind a figure are listed: the entity's list the user may open, filtered by
 * the group's value in the list's own address format (`/tickets?filter[priority]=high`); null when
 * there is no such list, or the value cannot be filtered by.
 */
export function recordsLink(
  model: Model,
  me: Me,
  entity: string,
  by: string | null,
  value: string | boolean | null = null,
): string | null {
  const screen = listScreen(model, me, entity);
  if (!screen) return null;
  if (by === null) return screen.route;
  const written = filterValue(value);
  if (written === null) return null;
  const query = new URLSearchParams(filterParams(by, { values: [written] }));
  return `${screen.route}?${query.toString()}`;
}

/**
 * The Mantine colour of a group: a state's badge colour; a choice's declared colour, or by how
 * pressing its value is (low grey to urgent red), or else its place in the spec's list; yes teal and no grey.
 */
export function groupColor(model: Model, entityName: string, by: string, value: string | boolean | null): string {
  if (value === null) return 'gray.4';
  if (typeof value === 'boolean') return value ? 'teal.6' : 'gray.6';
  if (by === 'state') return `${stateColor(machineOf(model, entityName), value)}.6`;
  const type = model.entities.find((e) => e.name === entityName)?.fields.find((f) => f.name === by)?.type;
  return `${type?.kind === 'choice' ? choiceColor(by, type.values, value, type.colours) : 'indigo'}.6`;
}

/**
 * The order groups are shown in: a state's place in its machine, a choice's place in the spec's
 * list of values (so low comes before urgent), yes before no; "Not set" last.
 */
export function groupOrder(model: Model, entityName: string, by: string): (value: string | boolean | null) => number {
  const machine = machineOf(model, entityName);
  const type = model.entities.find((e) => e.name === entityName)?.fields.find((f) => f.name === by)?.type;
  const values =
    by === 'state' ? (machine?.states.map((s) => s.name) ?? []) : type?.kind === 'choice' ? type.values : [];
  return (value) => {
    if (value === null) return Number.MAX_SAFE_INTEGER;
    if (typeof value === 'boolean') return value ? 0 : 1;
    const at = values.indexOf(value);
    return at < 0 ? values.length : at;
  };
}

/** Words the meaning column starts with that name a unit: `hours, to the quarter hour` → `hours`. */
const UNIT_WORDS =
  /^(hours?|minutes?|seconds?|days?|weeks?|months?|years?|km|kilometres?|kilometers?|miles?|kg|kilograms?|grams?|litres?|liters?|pages?|points?|items?|people|persons?|euros?|eur|dollars?|usd|gbp|pounds?|chf|percent|%)\b/i;

/**
 * The unit a number field is counted in, read from the start of its meaning (`hours, to the
 * quarter hour`); null when the meaning names none.
 */
export function unitOf(model: Model, entityName: string, field: string | null): string | null {
  if (!field) return null;
  const doc = model.entities.find((e) => e.name === entityName)?.fields.find((f) => f.name === field)?.doc ?? '';
  const match = UNIT_WORDS.exec(doc.trim());
  return match?.[1] ? match[1].toLowerCase().replace(/^(eur|usd|gbp|chf)$/, (c) => c.toUpperCase()) : null;
}

/** A figure with its unit: `1.5 hours`, `1 hour`, `12 EUR`. */
export function withUnit(text: string, value: number, unit: string | null): string {
  if (!unit) return text;
  if (unit === '%' || unit === 'percent') return `${text} %`;
  const one = value === 1 && unit.endsWith('s') && unit !== 'people' ? unit.slice(0, -1) : unit;
  return `${text} ${one}`;
}
