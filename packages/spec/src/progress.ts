import { BUILTIN_ERRORS } from './builtin-errors.ts';
import { deriveCalls } from './derive-calls.ts';
import { deriveScreens } from './derive-screens.ts';
import { explainEffects, explainOutgoing } from './explain-outgoing.ts';
import { type InsertablePoint, isInsertable } from './insert-derived.ts';
import type { Model, PointKey } from './model.ts';
import { RUNTIME_CONSTANTS } from './runtime-constants.ts';
import { type PointSummary, summarizePoints } from './summary.ts';

/** One point of the Studio's progress view. */
export interface PointProgress extends PointSummary {
  /** For a point not shown: what the runtime does instead, in a sentence; null when shown. */
  instead: string | null;
  /** Set when what the runtime derives can be written into the spec with `insertDerived`. */
  insertable: InsertablePoint | null;
  /**
   * What the product does as records change, one sentence each: the fields point 4's
   * transitions set, point 7's notifications and calls to other systems. Empty for other points.
   */
  acts: string[];
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The nine points with, for each one not shown, what the running app does in its place: derived
 * screens and calls (which can be inserted), open access for signed-in users, built-in errors
 * and limits.
 */
export function pointProgress(model: Model): PointProgress[] {
  return summarizePoints(model).map((summary) => {
    if (summary.shown) return { ...summary, instead: null, insertable: null, acts: acts(model, summary.key) };
    return {
      ...summary,
      acts: [],
      instead: instead(model, summary.key),
      insertable: isInsertable(summary.key) && model.entities.length > 0 ? summary.key : null,
    };
  });
}

function acts(model: Model, key: PointKey): string[] {
  if (key === 'states') return explainEffects(model);
  if (key === 'calls') return explainOutgoing(model);
  return [];
}

function instead(model: Model, key: PointKey): string {
  switch (key) {
    case 'product':
      return 'The app shows only the product name; say what it does and for whom.';
    case 'screens': {
      const n = deriveScreens(model).length;
      return model.entities.length === 0
        ? 'Only the home page: there are no entities to show yet.'
        : `${plural(n, 'derived screen')}: the home page, and a list, a detail page and forms per entity.`;
    }
    case 'entities':
      return 'Nothing is stored: add an entity with its fields.';
    case 'states':
      return 'Records have no state: they are created, edited and deleted freely.';
    case 'rules':
      return "Only the fields' own rules (required, ranges, lengths, patterns) are checked.";
    case 'roles':
      return 'No roles: every signed-in user may do everything, visitors nothing.';
    case 'calls': {
      const n = deriveCalls(model).length;
      return model.entities.length === 0
        ? 'Only the system calls (health, sign-in, the spec): there are no entities yet.'
        : `${plural(n, 'derived call')}: list, get, create, update, delete, history and each transition.`;
    }
    case 'errors':
      return `${plural(Object.keys(BUILTIN_ERRORS).length, 'built-in error code')} with their default messages.`;
    case 'constants':
      return `The runtime's ${plural(Object.keys(RUNTIME_CONSTANTS).length, 'built-in limit')} (body size, page size, rate limits) at their defaults.`;
  }
}
