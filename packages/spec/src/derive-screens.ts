import type { DashboardTile, Model, Screen } from './model.ts';
import { collectionName } from './names.ts';

/** Screens for a model whose point 2 is not shown: a home screen, then list, detail and forms per entity. */
export function deriveScreens(model: Pick<Model, 'entities'>): Screen[] {
  const screen = (route: string, kind: Screen['kind'], entity: string | null): Screen => ({
    route,
    params: route.includes(':id') ? ['id'] : [],
    kind,
    entity,
    filters: [],
    who: [],
    doc: '',
    span: { line: 0, column: 0, endLine: 0, endColumn: 0, offset: 0 },
  });
  const screens = [screen('/', 'home', null)];
  for (const entity of model.entities) {
    const base = `/${collectionName(entity.name)}`;
    screens.push(
      screen(base, 'list', entity.name),
      screen(`${base}/new`, 'form', entity.name),
      screen(`${base}/:id`, 'detail', entity.name),
      screen(`${base}/:id/edit`, 'form', entity.name),
    );
  }
  return screens;
}

/** The screens the app shows: point 2 as declared, or the derived set when it is not shown. */
export function effectiveScreens(model: Model): Screen[] {
  const shown = model.points.find((p) => p.key === 'screens')?.shown ?? false;
  return shown ? model.screens : deriveScreens(model);
}

/** Screens as point 2's Markdown table, for inserting the derived screens into a spec. */
export function formatScreensTable(screens: readonly Screen[]): string {
  const rows = screens.map((s) => {
    const filters = s.filters.map((f) => `${f.field} = ${'me' in f.value ? 'me' : String(f.value.literal)}`);
    const shows = s.tiles
      ? dashboardText(s.tiles)
      : s.entity
        ? [s.entity, ...(filters.length > 0 ? [`where ${filters.join(' and ')}`] : [])].join(' ')
        : '';
    return `| ${s.route} | ${s.kind} | ${shows} | ${s.who.join(', ')} |`;
  });
  return ['| route | screen | shows | who |', '|---|---|---|---|', ...rows].join('\n');
}

/** A dashboard's tiles as point 2 writes them: `Ticket: count by state, sum of time_spent; Article: count`. */
export function dashboardText(tiles: readonly DashboardTile[]): string {
  const groups: { entity: string; figures: string[] }[] = [];
  for (const tile of tiles) {
    const figure = `${tile.measure === 'sum' ? `sum of ${tile.field}` : 'count'}${tile.by ? ` by ${tile.by}` : ''}`;
    const last = groups.at(-1);
    if (last?.entity === tile.entity) last.figures.push(figure);
    else groups.push({ entity: tile.entity, figures: [figure] });
  }
  return groups.map((g) => `${g.entity}: ${g.figures.join(', ')}`).join('; ');
}
