import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { Logger } from 'pino';
import type { CompiledApp } from '../compile/compiled-app.ts';
import type { LocalChange } from '../live/index.ts';
import { PgStore } from '../store/postgres/pg-store.ts';
import type { Store } from '../store/store.ts';
import { dueKinds } from './due-kinds.ts';
import type { RecurringJobs } from './recurring.ts';
import { type RoundReport, TransitionScheduler } from './scheduler.ts';
import { LOCAL_LOCK, pgSchedulerLock } from './scheduler-lock.ts';

/** How often a server looks for due transitions: a due one is taken within this, well under a minute. */
export const ROUND_INTERVAL_MS = 30_000;

/**
 * Records one PostgreSQL transaction takes in a round: one commit (a WAL flush) for many records
 * rather than one each (docs/benchmarks.md, "Automatic transitions"). Small enough that the rows
 * and limit locks a group holds are held for a short while only.
 */
export const PG_ROUND_BATCH = 50;

/** The app's transitions taken by the system, as the server and tests see them. */
export interface Timers {
  /** Runs a round now (or after the one under way): what tests with an injected clock call. */
  round(): Promise<RoundReport>;
  /** Resolves once no round runs (the catch-up round at start included). */
  idle(): Promise<void>;
}

export interface TimersOptions {
  compiled: CompiledApp;
  store: Store;
  logger: Logger;
  now: () => number;
  committed: (change: LocalChange) => void;
  /** Point 7's recurring jobs, or null when the spec declares none. */
  jobs: RecurringJobs | null;
  /** Records per transaction on PostgreSQL; default `PG_ROUND_BATCH` (1: each its own). */
  batch?: number;
  /** Milliseconds between rounds; default `ROUND_INTERVAL_MS`. */
  intervalMs?: number;
}

/**
 * The scheduler of automatic transitions (point 4's `system`) and recurring jobs (point 7's
 * Schedules): a first round as soon as the app
 * is ready (catching up on what fell due while no server ran), then one every interval, until
 * the app closes. With several servers on one PostgreSQL database, one runs each round.
 */
export function registerTimers(app: FastifyInstance, options: TimersOptions): Timers {
  const kinds = dueKinds(options.compiled.model);
  const pg = options.store instanceof PgStore ? options.store : null;
  const scheduler = new TransitionScheduler({
    ...options,
    kinds,
    lock: pg ? pgSchedulerLock(pg.pool) : LOCAL_LOCK,
    // SQLite commits cheaply, and a transaction held there holds every other writer.
    batch: pg ? (options.batch ?? PG_ROUND_BATCH) : 1,
  });
  if (kinds.length === 0 && (options.jobs === null || options.jobs.empty)) return scheduler;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const background = () => {
    scheduler.round().catch((error: unknown) => options.logger.error({ err: error }, 'an automatic round failed'));
  };
  app.addHook('onReady', (done) => {
    background();
    timer = setInterval(() => {
      if (!closed) background();
    }, options.intervalMs ?? ROUND_INTERVAL_MS);
    timer.unref();
    done();
  });
  app.addHook('onClose', async () => {
    closed = true;
    if (timer) clearInterval(timer);
    // A round under way finishes before the database closes.
    await scheduler.idle();
  });
  return scheduler;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Automatic transitions (`timers` plugin): run a round, or wait for the one under way. */
    timers: Timers;
  }
}

/**
 * Automatic transitions, as a Fastify plugin: the scheduler's rounds from the moment the app is
 * ready until it closes, and `app.timers`. Not encapsulated: the server hands `app.timers` on.
 */
export const timers = fastifyPlugin<TimersOptions>(
  (app, options, done) => {
    app.decorate('timers', registerTimers(app, options));
    done();
  },
  { name: 'ninepoint-timers', fastify: '5.x', dependencies: ['ninepoint-records', 'ninepoint-live'] },
);
