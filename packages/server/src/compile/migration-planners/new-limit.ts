import { type LimitPeriod, limitGroupWords, type RuleCondition, timeZoneOf } from '@ninepoint/spec';
import { periodBounds } from '../limit-period.ts';
import { ALLOW_DESTRUCTIVE_FLAG } from '../migration-contract.ts';
import { plural } from '../migration-report.ts';
import { makeStep, type StepPlace, verb } from './step-words.ts';
import type { TablePlan } from './table-plan.ts';

/**
 * A new or changed limit over the table's own entity: the rows are counted per group (and
 * period) as at run time; flagged when a group is already over it.
 */
export function planLimitCheck(
  plan: TablePlan,
  condition: Extract<RuleCondition, { kind: 'limit' }>,
  where: StepPlace,
  named: string,
): void {
  const { entity, machine } = plan;
  const states = machine && condition.states.length > 0 ? new Set(condition.states) : null;
  const { period } = condition;
  const periodType = entity.fields.find((f) => f.name === period?.field)?.type.kind === 'date' ? 'date' : 'datetime';
  const zone = timeZoneOf(plan.context.model);
  const groups = new Map<string, number>();
  plan.scan.visit((_row, record) => {
    const r = record();
    if (states && !states.has(String(r.state))) return;
    // A row with an empty field of its group is not counted, as at run time.
    const key: unknown[] = [];
    for (const column of condition.per) {
      const value = r[column];
      if (value == null) return;
      key.push(value);
    }
    if (period) {
      const value = r[period.field];
      const bounds = value == null ? null : periodBounds(period.unit, String(value), periodType, zone);
      if (bounds === null) return;
      key.push(bounds.from);
    }
    const text = JSON.stringify(key);
    groups.set(text, (groups.get(text) ?? 0) + 1);
  });
  plan.later(() => {
    let over = 0;
    let overRows = 0;
    for (const n of groups.values()) {
      if (n > condition.max.value) {
        over++;
        overRows += n;
      }
    }
    const limit = `at most ${condition.max.value} ${condition.entity}${states ? ` in state ${[...states].join(', ')}` : ''} ${limitGroupWords(condition)}`;
    if (over === 0) return makeStep(where, 'check-rule', 'safe', 0, `${named}: ${limit}; every row satisfies it.`);
    const step = makeStep(
      where,
      'check-rule',
      'needs-flag',
      overRows,
      `${named}: ${limit}, but ${groupCount(over, condition)} already ${verb(over, 'exceeds', 'exceed')} it (${plural(overRows, 'row')}).`,
    );
    step.advice = `With ${ALLOW_DESTRUCTIVE_FLAG} those rows stay as they are, and no new ${condition.entity} is accepted for those ${condition.per.length === 1 && !period ? 'values' : 'groups'} until they are back under the limit.`;
    return step;
  });
}

/** `n` counted groups of a limit: "2 borrower values" (one field), "1 group with the same doctor and day of starts_at". */
function groupCount(n: number, limit: { per: readonly string[]; period: LimitPeriod | null }): string {
  if (limit.per.length === 1 && !limit.period) return plural(n, `${limit.per[0]} value`);
  const parts = [...limit.per, ...(limit.period ? [`${limit.period.unit} of ${limit.period.field}`] : [])];
  const words = parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
  return `${plural(n, 'group')} with the same ${words}`;
}
