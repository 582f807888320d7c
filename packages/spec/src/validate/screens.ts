import type { DiagnosticBag } from '../diagnostics.ts';
import { assertNever, familyOf, isGroupable, isNumeric } from '../field-kinds.ts';
import type { Entity, Model, Screen, ScreenFilter } from '../model.ts';
import type { FilterDraft, ScreenDraft, TileDraft } from '../read-screens.ts';
import { suggest } from '../suggest.ts';

/**
 * Point 2's checks against points 3 and 4, once every point is read: a board shows an entity with
 * states to make columns of, a `where` clause's value fits what its field holds, and a
 * dashboard's figures sum number fields and go by state (of an entity that has states), a choice
 * or a yes/no field. Returns the screens that pass, for the model; one failing clause or figure
 * leaves its whole screen out.
 */
export function validateScreens(drafts: readonly ScreenDraft[], model: Model, bag: DiagnosticBag): Screen[] {
  const machines = new Set(model.machines.map((m) => m.entity));
  const entities = new Map(model.entities.map((e) => [e.name, e]));
  const screens: Screen[] = [];
  for (const { screen, linked, shows, tiles, filters } of drafts) {
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
    const values: ScreenFilter[] = [];
    for (const filter of filters) {
      const value = filterValue(filter, screen, bag);
      if (value) values.push(value);
      else ok = false;
    }
    if (ok) screen.filters = values;
    for (const tile of tiles) {
      const entity = entities.get(tile.tile.entity);
      if (entity && !validTile(tile, entity, machines.has(entity.name), screen.route, bag)) ok = false;
    }
    if (ok) screens.push(screen);
  }
  return screens;
}

/**
 * A `where` clause's value read as what its field holds: `me` for a User reference (at the end of
 * a chain through references, only `me`), a state, a choice value, a number, true/false or a
 * quoted text. Null, reported, when it cannot be compared.
 */
function filterValue(filter: FilterDraft, screen: Screen, bag: DiagnosticBag): ScreenFilter | null {
  const { field, type, raw, value: valueCell } = filter;
  const entityName = screen.entity ?? '';
  if (filter.kind === 'state') return { field, value: { literal: raw } };
  if (filter.kind === 'path') {
    if (raw === 'me' && type?.kind === 'reference' && type.entity === 'User') return { field, value: { me: true } };
    bag.report(
      'invalid-filter',
      valueCell.span,
      `A filter through references compares with me, so ${entityName}.${field} must end at a field referring to User.`,
      { hint: 'Write e.g. "Appointment where doctor.account = me", where account is a User field of Doctor.' },
    );
    return null;
  }
  if (raw === 'me') {
    if (type?.kind === 'reference' && type.entity === 'User') return { field, value: { me: true } };
    bag.report(
      'invalid-filter',
      valueCell.span,
      `"me" is the signed-in user, but ${entityName}.${field} does not reference User.`,
    );
    return null;
  }
  const bad = (expected: string) => {
    bag.report(
      'invalid-filter',
      valueCell.span,
      `"${raw}" cannot be compared with ${entityName}.${field}, which needs ${expected}.`,
    );
    return null;
  };
  const quoted = /^"(.*)"$/.exec(raw);
  const family = type === undefined ? 'text' : familyOf(type);
  switch (family) {
    case 'choice':
      if (type?.kind !== 'choice') return null; // narrows `type`: only a choice is of its family
      if (!type.values.includes(quoted?.[1] ?? raw)) {
        bag.report('invalid-filter', valueCell.span, `"${raw}" is not one of ${entityName}.${field}'s values.`, {
          expected: suggest(raw, type.values),
        });
        return null;
      }
      return { field, value: { literal: quoted?.[1] ?? raw } };
    case 'number':
      return /^-?\d+(\.\d+)?$/.test(raw) ? { field, value: { literal: Number(raw) } } : bad('a number');
    case 'boolean':
      return /^(true|false)$/.test(raw) ? { field, value: { literal: raw === 'true' } } : bad('true or false');
    case 'reference':
      return bad(
        type?.kind === 'reference' && type.entity === 'User'
          ? 'me (the signed-in user)'
          : 'a record, which a screen filter cannot name',
      );
    case 'text':
    case 'moment':
      return quoted ? { field, value: { literal: quoted[1] ?? '' } } : bad('a "quoted" text');
    case 'file':
      return bad('a file, which a screen filter cannot name');
    default:
      return assertNever(family);
  }
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
