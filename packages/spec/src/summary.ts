import { DEFAULT_LONG_TEXT_LENGTH, DEFAULT_TEXT_LENGTH } from './field-kinds.ts';
import type { Model, PointKey } from './model.ts';

/** One line of the nine-point summary: whether the point is shown and how much it holds. */
export interface PointSummary {
  number: number;
  key: PointKey;
  title: string;
  shown: boolean;
  /** The main count (entities, screens, rules, …); 0 when not shown. */
  count: number;
  /** E.g. "3 entities, 14 fields", or "not shown". */
  detail: string;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The nine points of a model with counts, for `ninepoint check` and the Studio's progress view. */
export function summarizePoints(model: Model): PointSummary[] {
  return model.points.map((point) => {
    const [count, detail] = describe(model, point.key);
    return {
      number: point.number,
      key: point.key,
      title: point.title,
      shown: point.shown,
      count: point.shown ? count : 0,
      detail: point.shown ? detail : 'not shown',
    };
  });
}

function describe(model: Model, key: PointKey): [number, string] {
  switch (key) {
    case 'product':
      return [1, model.product.summary === '' ? 'prose' : 'summary and description'];
    case 'screens':
      return [model.screens.length, plural(model.screens.length, 'screen')];
    case 'entities': {
      const fields = model.entities.reduce((n, e) => n + e.fields.length, 0);
      return [
        model.entities.length,
        `${plural(model.entities.length, 'entity').replace('entitys', 'entities')}, ${plural(fields, 'field')}${unbounded(model)}`,
      ];
    }
    case 'states': {
      const transitions = model.machines.reduce((n, m) => n + m.transitions.length, 0);
      return [
        model.machines.length,
        `${plural(model.machines.length, 'state machine')}, ${plural(transitions, 'transition')}`,
      ];
    }
    case 'rules':
      return [model.rules.length, plural(model.rules.length, 'rule')];
    case 'roles':
      return [
        model.roles.length,
        `${plural(model.roles.length, 'role')}, ${plural(model.permissions.length, 'permission')}`,
      ];
    case 'calls':
      return [model.calls.length, plural(model.calls.length, 'call')];
    case 'errors':
      return [model.errors.length, plural(model.errors.length, 'error code')];
    case 'constants':
      return [model.constants.length, plural(model.constants.length, 'constant')];
  }
}

/**
 * The texts whose rules give no length, which the runtime bounds by a default maximum (point 3):
 * said where the author looks after every check, so that a limit they did not write is no surprise.
 */
function unbounded(model: Model): string {
  const count = (kind: 'text' | 'longText') =>
    model.entities.reduce((n, e) => n + e.fields.filter((f) => f.type.kind === kind && f.maxLength === null).length, 0);
  const parts = [
    [count('text'), 'text', DEFAULT_TEXT_LENGTH],
    [count('longText'), 'long text', DEFAULT_LONG_TEXT_LENGTH],
  ] as const;
  return parts
    .filter(([n]) => n > 0)
    .map(
      ([n, what, most]) =>
        `; ${n} ${what}${n === 1 ? ' with no length rule holds' : 's with no length rule hold'} at most ${most} characters (the default)`,
    )
    .join('');
}
