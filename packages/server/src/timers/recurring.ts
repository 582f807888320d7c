import { lastOccurrence, type Schedule } from '@ninepoint/spec';
import type { Logger } from 'pino';
import type { ScheduleRuns } from './schedule-runs.ts';

export interface RecurringOptions {
  schedules: readonly Schedule[];
  runs: ScheduleRuns;
  /** The product's time zone (`TIME_ZONE`, else UTC): schedules follow its calendar. */
  timeZone: string;
  /** Sets off the job's calls (the outbox's rows for `schedule <job>`), due at that ISO time. */
  run: (job: string, dueAt: string) => Promise<void>;
  now: () => number;
  logger: Logger;
}

/**
 * Point 7's recurring jobs: each round runs each job whose latest due time has not been run yet,
 * once, however many times it fell due while no server ran (the catch-up is one run, not one per
 * missed occurrence). The claim comes first: a server stopped between the claim and the outbox's
 * row loses that run rather than ever doing it twice.
 */
export class RecurringJobs {
  readonly #o: RecurringOptions;

  constructor(options: RecurringOptions) {
    this.#o = options;
  }

  get empty(): boolean {
    return this.#o.schedules.length === 0;
  }

  /** Runs the jobs due now; answers how many ran. */
  async round(): Promise<number> {
    let ran = 0;
    for (const schedule of this.#o.schedules) {
      try {
        if (await this.#runIfDue(schedule)) ran++;
      } catch (error) {
        this.#o.logger.error({ err: error, job: schedule.name }, 'a scheduled job failed this round');
      }
    }
    return ran;
  }

  async #runIfDue(schedule: Schedule): Promise<boolean> {
    const { runs, now } = this.#o;
    const at = now();
    const due = lastOccurrence(schedule.cron, new Date(at), this.#o.timeZone)?.getTime();
    if (due === undefined) return false;
    const last = await runs.lastDue(schedule.name);
    if (last === undefined) {
      await runs.firstSeen(schedule.name, due, at);
      return false;
    }
    if (due <= last || !(await runs.claim(schedule.name, due, at))) return false;
    const dueAt = new Date(due).toISOString();
    await this.#o.run(schedule.name, dueAt);
    this.#o.logger.info({ job: schedule.name, due: dueAt }, `ran scheduled job ${schedule.name}`);
    return true;
  }
}
