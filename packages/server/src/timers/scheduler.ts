import { NO_USER } from '@ninepoint/spec';
import type { Logger } from 'pino';
import type { CompiledApp } from '../compile/compiled-app.ts';
import { ProblemError } from '../compile/problems.ts';
import type { LocalChange } from '../live/index.ts';
import { effectFieldsCheck, withEffectFields } from '../records/index.ts';
import type { Store, WriteCheck } from '../store/store.ts';
import type { DueKind } from './due-kinds.ts';
import type { RecurringJobs } from './recurring.ts';
import type { SchedulerLock } from './scheduler-lock.ts';
import { SYSTEM_ACTOR_ID } from './system-actor.ts';

export { SYSTEM_ACTOR_ID };

/** How many due ids one query finds; a round pages through them all. */
const PAGE = 500;

/** One record's outcome in a round: the change to tell of, or why there is none. */
interface Taken {
  id: string;
  /** Null when the record was not due after all, or refused. */
  change: LocalChange | null;
  /** The refusal by a rule or limit (logged), when it was one. */
  refused?: ProblemError;
}

/** What one round did, per transition and in all. */
export interface RoundReport {
  /** False when another server held the lock and ran it. */
  ran: boolean;
  taken: number;
  /** Refused by a rule or limit: logged, tried again next round. */
  refused: number;
  /** Found but not due after all (its guard does not hold yet), or taken or moved on by someone else. */
  skipped: number;
  /** Queries that looked for due records. */
  queries: number;
  /** Scheduled jobs (point 7's Schedules) run. */
  jobs: number;
}

export interface SchedulerOptions {
  compiled: CompiledApp;
  store: Store;
  kinds: readonly DueKind[];
  /** Point 7's recurring jobs, run in the same rounds under the same lock. */
  jobs: RecurringJobs | null;
  lock: SchedulerLock;
  logger: Logger;
  /** Milliseconds since 1970: the same clock as `now` in guards. */
  now: () => number;
  /** Told of each transition taken (live updates), as for a person's. */
  committed: (change: LocalChange) => void;
  /**
   * How many records one transaction takes (`Store.hold`, each record in a savepoint of it, so a
   * refused one is undone alone); 1: each record its own transaction.
   */
  batch?: number;
}

/**
 * Takes the transitions the system takes by itself: each round finds the due records of each
 * kind (one query per page of 500) and takes each through the store's transition, with the
 * transition's from-state, guard, rules and limits, as a person's call would, `by` the system.
 * Rounds never overlap; a round asked for while one runs follows it.
 */
export class TransitionScheduler {
  readonly #o: SchedulerOptions;
  #running: Promise<RoundReport> | null = null;
  #queued: Promise<RoundReport> | null = null;
  /** Each kind's check of what its transition sets, compiled (Ajv) on its first round, not every round. */
  readonly #effectChecks = new Map<DueKind, ReturnType<typeof effectFieldsCheck>>();

  constructor(options: SchedulerOptions) {
    this.#o = options;
  }

  /** Resolves once no round runs or waits. */
  async idle(): Promise<void> {
    while (this.#running || this.#queued) await (this.#queued ?? this.#running)?.catch(() => undefined);
  }

  /** Runs a round now, or after the one under way. */
  round(): Promise<RoundReport> {
    if (this.#queued) return this.#queued;
    if (!this.#running) {
      this.#running = this.#round().finally(() => {
        this.#running = null;
      });
      return this.#running;
    }
    const after = this.#running.then(
      () => undefined,
      () => undefined,
    );
    this.#queued = after.then(() => {
      this.#queued = null;
      return this.round();
    });
    return this.#queued;
  }

  async #round(): Promise<RoundReport> {
    const report: RoundReport = { ran: false, taken: 0, refused: 0, skipped: 0, queries: 0, jobs: 0 };
    const jobs = this.#o.jobs;
    if (this.#o.kinds.length === 0 && (jobs === null || jobs.empty)) return { ...report, ran: true };
    report.ran = await this.#o.lock.whileHeld(async () => {
      for (const kind of this.#o.kinds) {
        try {
          await this.#take(kind, report);
        } catch (error) {
          // A database failure: this kind waits for the next round; the others still run.
          this.#o.logger.error(
            { err: error, entity: kind.entity, transition: kind.transition.name },
            'automatic transitions failed this round',
          );
        }
      }
      if (jobs) report.jobs = await jobs.round();
    });
    return report;
  }

  async #take(kind: DueKind, report: RoundReport): Promise<void> {
    const { store, compiled, logger, committed } = this.#o;
    const records = store.records(kind.entity);
    const check = compiled.logic.get(kind.entity)?.transitions.get(kind.transition.name);
    // As a person's call: the guard, rules and limits, and what the transition sets meeting the fields' rules.
    const systemCheck: WriteCheck | undefined = withEffectFields(
      check ? (next, current, reader) => check(next, current, reader, NO_USER) : undefined,
      this.#effectFields(kind),
    );
    const now = this.#o.now();
    const before = kind.column === null ? null : new Date(now - kind.seconds * 1000).toISOString();
    const write = {
      name: kind.transition.name,
      to: kind.transition.to,
      ...(kind.waits && before !== null ? { enteredBy: before } : {}),
    };
    /**
     * Takes one record, in the transaction it is called in: what to tell of it, counted and told by
     * `tell` only once that transaction has committed (a group rolled back is taken again).
     */
    const takeOne = async (id: string): Promise<Taken> => {
      const at = new Date(this.#o.now()).toISOString();
      try {
        const outcome = await records.transition(
          id,
          write,
          {},
          { at, by: SYSTEM_ACTOR_ID, ifVersions: null },
          systemCheck,
        );
        if (!outcome.ok) return { id, change: null };
        return {
          id,
          change: {
            entity: kind.entity,
            id,
            kind: 'transition',
            transition: kind.transition.name,
            at,
            by: SYSTEM_ACTOR_ID,
            record: outcome.stored.record,
          },
        };
      } catch (error) {
        if (!(error instanceof ProblemError)) throw error;
        return { id, change: null, ...(this.#notDue(kind, error) ? {} : { refused: error }) };
      }
    };
    const tell = (taken: Taken): void => {
      if (taken.change) {
        report.taken++;
        committed(taken.change);
      } else if (taken.refused) {
        report.refused++;
        const { code, extras } = taken.refused;
        logger.warn(
          { entity: kind.entity, id: taken.id, transition: kind.transition.name, code, errors: extras.errors },
          'an automatic transition was refused; it is tried again next round',
        );
      } else report.skipped++;
    };
    const batch = Math.max(1, this.#o.batch ?? 1);
    let after: string | null = null;
    for (;;) {
      const ids = await records.dueIds({ states: kind.states, column: kind.column, before, after, limit: PAGE });
      report.queries++;
      for (let start = 0; start < ids.length; start += batch) {
        const group = ids.slice(start, start + batch);
        if (group.length === 1) {
          tell(await takeOne(group[0] as string));
          continue;
        }
        let taken: Taken[];
        try {
          taken = await store.hold(async () => {
            const each: Taken[] = [];
            for (const id of group) each.push(await takeOne(id));
            return each;
          });
        } catch (error) {
          // The group rolled back whole and nothing of it was told: a deadlock or serialization
          // failure against another writer (which a transaction of one record runs again), or one
          // record's database failure. Each is taken again alone; one failing alone ends this
          // kind's round, the records before it taken and told.
          logger.warn(
            { err: error, entity: kind.entity, transition: kind.transition.name, records: group.length },
            'a group of automatic transitions was rolled back; its records are taken one at a time',
          );
          for (const id of group) tell(await takeOne(id));
          continue;
        }
        // Told only now that the group's COMMIT has returned.
        for (const each of taken) tell(each);
      }
      if (ids.length < PAGE) return;
      after = ids.at(-1) ?? null;
    }
  }

  #effectFields(kind: DueKind): ReturnType<typeof effectFieldsCheck> {
    if (this.#effectChecks.has(kind)) return this.#effectChecks.get(kind) ?? null;
    const { model, jsonSchemas, catalogue } = this.#o.compiled;
    const entity = model.entities.find((e) => e.name === kind.entity);
    const machine = model.machines.find((m) => m.entity === kind.entity);
    const check = entity ? effectFieldsCheck(entity, machine, jsonSchemas.get(kind.entity), catalogue) : null;
    this.#effectChecks.set(kind, check);
    return check;
  }

  /** A guard that does not hold yet, or a record no longer in a from-state (taken by another server). */
  #notDue(kind: DueKind, error: ProblemError): boolean {
    return error.code === 'TRANSITION_NOT_ALLOWED' || error.code === kind.transition.error;
  }
}
