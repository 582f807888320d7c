import { ALLOW_DESTRUCTIVE_FLAG, blockingSteps, type MigrationPlan, type MigrationStep } from './migration-contract.ts';

/**
 * Migration plans for people: the text `ninepoint migrate`, `serve` and the Studio show, and the
 * error a start or a migration refused for blocking steps throws with it.
 */

/** Thrown by a store's `applySchema` when a step may not be applied; nothing was changed. */
export class MigrationRefusedError extends Error {
  override name = 'MigrationRefusedError';
  readonly plan: MigrationPlan;
  /** The steps that stopped it. */
  readonly blocking: MigrationStep[];

  constructor(plan: MigrationPlan, options: { allowDestructive: boolean; location: string }) {
    const blocking = blockingSteps(plan, options.allowDestructive);
    super(
      `the database "${options.location}" cannot be migrated to this spec without losing or invalidating data, ` +
        `so nothing was changed:\n${formatMigrationPlan(plan, { allowDestructive: options.allowDestructive, mode: 'refused' })}`,
    );
    this.plan = plan;
    this.blocking = blocking;
  }
}

export interface FormatOptions {
  allowDestructive: boolean;
  /**
   * `plan`: shown, not applied (`ninepoint migrate --plan`). `applied`: done. `refused`: a start
   * or `migrate` that stopped because of blocking steps.
   */
  mode: 'plan' | 'applied' | 'refused';
}

/**
 * The plan as text for people: one line per step, marked `+` (a safe change), `=` (a check that
 * found nothing wrong), `!` (needs the flag) or `x` (cannot be applied), with advice under the
 * steps that are not safe, and a closing line saying what happened or would happen.
 */
export function formatMigrationPlan(plan: MigrationPlan, options: FormatOptions): string {
  if (plan.steps.length === 0) return 'Nothing to migrate: the database already matches the spec.\n';
  const lines: string[] = [];
  for (const step of plan.steps) {
    const mark =
      step.safety === 'refused' ? 'x' : step.safety === 'needs-flag' ? '!' : step.changes.length > 0 ? '+' : '=';
    lines.push(`  ${mark} ${step.summary}`);
    if (step.advice && step.safety !== 'safe' && options.mode !== 'applied') lines.push(`      ${step.advice}`);
  }
  const blocking = blockingSteps(plan, options.allowDestructive);
  const flagged = plan.steps.filter((s) => s.safety === 'needs-flag').length;
  const refused = plan.steps.filter((s) => s.safety === 'refused').length;
  lines.push('');
  if (options.mode === 'applied') {
    lines.push(
      `Applied ${plural(plan.steps.length, 'step')} in one transaction${flagged > 0 ? ` (${flagged} allowed by ${ALLOW_DESTRUCTIVE_FLAG})` : ''}; no data was dropped.`,
    );
  } else if (blocking.length === 0) {
    lines.push(
      options.mode === 'plan'
        ? `Nothing was changed (plan only). Applying it takes ${plural(plan.steps.length, 'step')} in one transaction; no data is dropped.`
        : 'Nothing was changed.',
    );
  } else {
    const why: string[] = [];
    const waiting = blocking.filter((s) => s.safety === 'needs-flag').length;
    if (waiting > 0) {
      why.push(
        `${plural(waiting, 'step')} marked ! could hide or invalidate stored data: pass ${ALLOW_DESTRUCTIVE_FLAG} to apply ${waiting === 1 ? 'it' : 'them'} (removed fields and entities keep their data in the database).`,
      );
    }
    if (refused > 0) {
      why.push(
        `${plural(refused, 'step')} marked x cannot be applied even with ${ALLOW_DESTRUCTIVE_FLAG}; the advice under ${refused === 1 ? 'it' : 'each'} says what to do instead.`,
      );
    }
    const head =
      options.mode === 'plan'
        ? 'Nothing was changed (plan only); applying it would be refused.'
        : 'Refused: nothing was changed.';
    lines.push(`${head} ${why.join(' ')}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `1 row`, `3 rows`. */
export function plural(n: number, noun: string): string {
  return `${n} ${n === 1 ? noun : `${noun}s`}`;
}
