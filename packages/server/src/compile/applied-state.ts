import type { Model, Rule } from '@ninepoint/spec';
import type { AppliedState } from './migration-contract.ts';
import type { SqlTable } from './sql-schema.ts';

/** The newest recorded model and layout, with their JSON as stored; null when nothing was recorded. */
export interface RecordedSchema {
  state: AppliedState;
  modelJson: string;
  tablesJson: string;
}

/**
 * The applied state from a `_ninepoint_schema` row's JSON. A model that cannot be read is null (the
 * planner then treats every column it does not know as one to keep, asking for the flag).
 */
export function parseAppliedState(modelJson: string, tablesJson: string): AppliedState {
  let model: Model | null = null;
  try {
    const parsed = JSON.parse(modelJson) as Model;
    if (parsed && parsed.version === 1 && Array.isArray(parsed.entities)) model = upgradeLimits(parsed);
  } catch {
    model = null;
  }
  let tables: SqlTable[] = [];
  try {
    const parsed = JSON.parse(tablesJson) as unknown;
    if (Array.isArray(parsed)) tables = parsed as SqlTable[];
  } catch {
    tables = [];
  }
  return { model, tables };
}

/**
 * A model recorded before limits could count per several fields and per period held `per` as one
 * field name and no `period`: read it as today's model would hold the same limit.
 */
function upgradeLimits(model: Model): Model {
  if (!Array.isArray(model.rules)) return model;
  const rules = model.rules.map((rule) => {
    const c = rule.condition as unknown as Record<string, unknown>;
    if (c.kind !== 'limit' || (Array.isArray(c.per) && c.period !== undefined)) return rule;
    const per = Array.isArray(c.per) ? c.per : typeof c.per === 'string' ? [c.per] : [];
    return { ...rule, condition: { ...rule.condition, per, period: c.period ?? null } as Rule['condition'] };
  });
  return { ...model, rules };
}
