import type { DashboardTile, Model } from '@ninepoint/spec';
import type { Me } from '../api/session.ts';
import { label } from '../app/screens.ts';
import { callFor } from '../records/calls.ts';
import { collectionLabel } from '../records/labels.ts';

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
