import type { DiagnosticBag } from '../diagnostics.ts';
import { isGroupable, isNumeric } from '../field-kinds.ts';
import type { Entity, Model, Screen } from '../model.ts';
import type { ScreenDraft, TileDraft } from '../read-screens.ts';

/**
 * Point 2's checks against points 3 and 4, once every point is read: a board shows an entity with
 * states to make columns of, and a dashboard's figures sum number fields and go by state (of an
 * entity that has states), a choice or a yes/no field. Returns the screens that pass, for the
 * model; one failing figure leaves its whole dashboard out.
 */
export function validateScreens(drafts: readonly ScreenDraft[], model: Model, bag: DiagnosticBag): Screen[] {
  const machines = new Set(model.machines.map((m) => m.entity));
  const entities = new Map(model.entities.map((e) => [e.name, e]));
  const screens: Screen[] = [];
  for (const { screen, linked, shows, tiles } of drafts) {
    let ok = linked;
    if (screen.kind === 'board' && screen.entity !== null && !machines.has(screen.entity)) {
      bag.report(
        'invalid-screen',
        shows.span,
        `Board ${screen.route} shows ${screen.entity}, which has no states to make columns of.`,
        {
          hint: `Give ${screen.entity} a state machine in point 4, or make this a list screen.`,
        },
      );
      ok = false;
    }
    for (const tile of tiles) {
      const entity = entities.get(tile.tile.entity);
      if (entity && !validTile(tile, entity, machines.has(entity.name), screen.route, bag)) ok = false;
    }
    if (ok) screens.push(screen);
  }
  return screens;
}

function validTile(draft: TileDraft, entity: Entity, machine: boolean, route: string, bag: DiagnosticBag): boolean {
  const what = `Dashboard ${route}`;
  const { tile } = draft;
  let ok = true;
  const field = entity.fields.find((f) => f.name === tile.field);
  if (draft.summed && field && !isNumeric(field.type)) {
    const numbers = entity.fields.filter((f) => isNumeric(f.type));
    bag.report(
      'invalid-dashboard',
      draft.summed.span,
      `${what} sums ${entity.name}.${tile.field}, which is not a number.`,
      {
        hint:
          numbers.length > 0
            ? `Sum a number field of ${entity.name}: ${numbers.map((f) => f.name).join(', ')}; or count by ${tile.field}.`
            : `${entity.name} has no number field to sum; count its records instead.`,
      },
    );
    ok = false;
  }
  if (draft.by) {
    const by = tile.by;
    const groupable = entity.fields.filter((f) => isGroupable(f.type));
    const choices = [...(machine ? ['state'] : []), ...groupable.map((f) => f.name)];
    const hint =
      choices.length > 0
        ? `Figures go per state, a choice or a yes/no field: ${choices.join(', ')}.`
        : `${entity.name} has no states, choice or yes/no fields to go by.`;
    if (by === 'state' && !machine) {
      bag.report('invalid-dashboard', draft.by.span, `${what} goes by state, but ${entity.name} has no states.`, {
        hint,
      });
      ok = false;
    } else if (by !== 'state' && !groupable.some((f) => f.name === by)) {
      bag.report(
        'invalid-dashboard',
        draft.by.span,
        `${what} goes by ${entity.name}.${by}, which has too many values to chart.`,
        {
          hint,
        },
      );
      ok = false;
    }
  }
  return ok;
}
