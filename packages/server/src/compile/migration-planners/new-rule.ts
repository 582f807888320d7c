import { chainsOf, type Entity, findCounts, type Rule } from '@ninepoint/spec';
import { plural } from '../migration-report.ts';
import { brokenRowsAdvice, makeStep, type StepPlace, verb } from './step-words.ts';
import type { TablePlan } from './table-plan.ts';

/**
 * A new or changed rule: evaluated on every row, flagged when some break it; a rule that cannot be
 * judged on stored rows (`uncheckedReason`) is said to be checked when a row is next written.
 */
export function planRuleCheck(plan: TablePlan, rule: Rule, source: string, where: StepPlace, named: string): void {
  const { entity } = plan;
  const unchecked = uncheckedReason(source, entity, rule);
  if (unchecked) {
    plan.later(() =>
      makeStep(where, 'check-rule', 'safe', 0, `${named} is not checked against existing rows: ${unchecked}.`),
    );
    return;
  }
  const compiled = plan.context.expressions.rules.get(rule.name);
  const evaluator = plan.context.expressions.entities.get(entity.name);
  if (!compiled || !evaluator) return;
  // References are never loaded: a rule reaching through one was set aside above.
  const broken = plan.scan.count(
    (_row, record) => evaluator.evaluate(compiled, record(), () => undefined, 'rule') === 'fails',
  );
  plan.later(() => {
    if (broken.n === 0) return makeStep(where, 'check-rule', 'safe', 0, `${named}: every row satisfies it.`);
    const step = makeStep(
      where,
      'check-rule',
      'needs-flag',
      broken.n,
      `${named}: ${plural(broken.n, 'row')} ${verb(broken.n, 'breaks', 'break')} it.`,
    );
    step.advice = brokenRowsAdvice();
    return step;
  });
}

/** Why a rule cannot be judged on stored rows, or null when it can. */
function uncheckedReason(source: string, entity: Entity, rule: Rule): string | null {
  const counts = findCounts(source);
  if (counts.terms.length > 0) {
    return 'it counts related records; it is checked when a row is next written';
  }
  const chains = chainsOf(source, new Set(['now', 'today', 'user', 'value', ...entity.fields.map((f) => f.name)]));
  const fieldNames = new Set(entity.fields.map((f) => f.name));
  if (chains.some((c) => (c[0] === 'now' || c[0] === 'today') && !fieldNames.has(c[0]))) {
    return 'it depends on the current time, and rows are held to a rule when they are written, not as time passes';
  }
  if (chains.some((c) => c[0] === 'user' && !fieldNames.has('user'))) {
    return 'it depends on the signed-in user';
  }
  const through = chains.find((c) => {
    const head = c[0] === 'value' ? rule.appliesTo.field : c[0];
    const field = entity.fields.find((f) => f.name === head);
    return c.length > 1 && field?.type.kind === 'reference';
  });
  if (through) return `it reaches through a reference (${through.join('.')}); it is checked when a row is next written`;
  return null;
}
