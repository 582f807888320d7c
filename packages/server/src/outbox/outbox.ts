import { MessageCatalogue, type Model, type RuntimeSettings } from '@ninepoint/spec';
import type { Logger } from 'pino';
import type { EntityPermissions } from '../compile/permissions.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { AuthStore } from '../people/index.ts';
import type { Store } from '../store/store.ts';
import { uuidv7 } from '../store/uuidv7.ts';
import { SYSTEM_ACTOR_ID } from '../timers/index.ts';
import { Deliverer } from './deliverer.ts';
import { DeliveriesStore } from './deliveries-store.ts';
import { type NotifyContext, sendNotification } from './notify.ts';
import { compileOutgoing, type Outgoing, outboxFollower, scheduleKey } from './outgoing.ts';
import { RequestLoad } from './request-load.ts';

/** For tests and operators: how fast deliveries are tried and retried. */
export interface OutboxTiming {
  /** The first pause after a failure (default 10 s); each next one doubles, up to an hour. */
  baseDelayMs?: number;
  /** How often due deliveries are looked for besides after each write (default 1 s). */
  pollMs?: number;
  /** While requests keep the server busy, one batch at least this often (default 250 ms). */
  busyIntervalMs?: number;
}

export interface OutboxOptions {
  model: Model;
  store: Store;
  auth: AuthStore;
  permissions: ReadonlyMap<string, EntityPermissions>;
  settings: Readonly<RuntimeSettings>;
  mailer: Mailer | null;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  timing?: OutboxTiming;
}

/**
 * Point 7's notifications and calls to other systems, delivered through a durable outbox
 * (docs/outbox.md): its tables, the rows every write adds in its own transaction, the deliverer
 * that makes them after the commit, and its calls (`GET /api/deliveries`, the notification list).
 */
export class Outbox {
  readonly deliveries: DeliveriesStore;
  readonly outgoing: Outgoing;
  readonly #deliverer: Deliverer;
  /** The requests the server is answering, which delivery yields to (counted by the plugin's hooks). */
  readonly requests: RequestLoad;
  #told: (userId: string) => void = () => {};
  /** `entity NUL kind` of every event that sets something off. */
  readonly #kinds: ReadonlySet<string>;

  private constructor(deliveries: DeliveriesStore, outgoing: Outgoing, deliverer: Deliverer, requests: RequestLoad) {
    this.deliveries = deliveries;
    this.outgoing = outgoing;
    this.#deliverer = deliverer;
    this.requests = requests;
    this.#kinds = new Set([...outgoing.byEvent.keys()].map((key) => key.split('\u0000').slice(0, 2).join('\u0000')));
  }

  /** Creates the tables, and makes every write of `store` add its outbox rows in its transaction. */
  static async open(options: OutboxOptions): Promise<Outbox> {
    const env = options.env ?? process.env;
    const deliveries = new DeliveriesStore(options.store.sql);
    await deliveries.setUp();
    await deliveries.freeLeases();
    const outgoing = compileOutgoing(options.model, env);
    for (const sentence of outgoing.unconfigured) options.logger.warn(sentence);
    if (!outgoing.empty) options.store.follow(outboxFollower(outgoing));
    const catalogue = new MessageCatalogue(options.model);
    let outbox: Outbox | null = null;
    const notifyContext: NotifyContext = {
      model: options.model,
      notifications: outgoing.notifications,
      store: options.store,
      auth: options.auth,
      deliveries,
      permissions: options.permissions,
      catalogue,
      mailer: options.mailer,
      env,
      told: (userId) => {
        if (outbox) outbox.#told(userId);
      },
    };
    const requests = new RequestLoad();
    const deliverer = new Deliverer({
      deliveries,
      outgoing,
      logger: options.logger,
      timeoutMs: options.settings.CALLS_TIMEOUT_SECONDS * 1000,
      retryWindowMs: options.settings.CALLS_RETRY_HOURS * 3_600_000,
      allowPrivate: env.CALLS_ALLOW_PRIVATE === 'true',
      ...(options.timing?.baseDelayMs !== undefined ? { baseDelayMs: options.timing.baseDelayMs } : {}),
      ...(options.timing?.pollMs !== undefined ? { pollMs: options.timing.pollMs } : {}),
      ...(options.timing?.busyIntervalMs !== undefined ? { busyIntervalMs: options.timing.busyIntervalMs } : {}),
      busy: () => requests.busy(),
      notify: (row, accounts) => sendNotification(row, notifyContext, accounts),
    });
    outbox = new Outbox(deliveries, outgoing, deliverer, requests);
    return outbox;
  }

  /** Starts delivering (also what earlier runs left); `told` hears of each in-app notification added. */
  start(told: (userId: string) => void): void {
    this.#told = told;
    if (!this.outgoing.empty) this.#deliverer.start();
  }

  /** After a committed write: wakes the deliverer when such writes of the entity set anything off. */
  committed(entity: string, kind: string): void {
    if (this.#kinds.has(`${entity}\u0000${kind}`)) this.#deliverer.kick();
  }

  /**
   * A scheduled job fell due: one pending call per call on `schedule <job>`, its body the job's
   * name and the time it was due, delivered (signed, retried) as any other call.
   */
  async scheduled(job: string, dueAt: string, now: number): Promise<void> {
    const items = this.outgoing.byEvent.get(scheduleKey(job)) ?? [];
    if (items.length === 0) return;
    await this.deliveries.add(
      items.map((item) => [
        uuidv7(now),
        item.kind,
        item.key,
        item.target,
        'schedule',
        '',
        job,
        null,
        SYSTEM_ACTOR_ID,
        dueAt,
        '{}',
        'pending',
        0,
        now,
      ]),
    );
    this.#deliverer.kick();
  }

  /** Stops delivering; resolves once the deliveries under way are settled. */
  stop(): Promise<void> {
    return this.#deliverer.stop();
  }

  /** Wakes the deliverer ("Retry now"). */
  kick(): void {
    this.#deliverer.kick();
  }
}
