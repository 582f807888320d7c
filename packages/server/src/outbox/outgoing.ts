import type { Model, Notification, OutgoingEvent, ValueSource, Webhook } from '@ninepoint/spec';
import { isAbsoluteHttpUrl, transitionSlug } from '@ninepoint/spec';
import type { FollowedWrite, WriteFollower } from '../store/store.ts';
import { uuidv7 } from '../store/uuidv7.ts';
import { DELIVERIES_TABLE, DELIVERY_INSERT_COLUMNS } from './outbox-tables.ts';
import { webhookKey } from './signing.ts';

/** One declared notification or call that an event sets off. */
export interface OutgoingItem {
  kind: 'call' | 'mail';
  /** Its index in `model.webhooks` or `model.notifications`. */
  index: number;
  /** What the Deliveries screen shows as its target: `POST env FINANCE_WEBHOOK_URL`, `mail to assignee`. */
  target: string;
}

/** A webhook as the server makes it: the URL and the signing key read from the environment at start. */
export interface ReadyWebhook {
  webhook: Webhook;
  url: string;
  key: Buffer;
}

/** Point 7's notifications and calls, compiled once at start-up against the server's environment. */
export interface Outgoing {
  /** The items each event sets off, by `eventKey`. */
  byEvent: ReadonlyMap<string, readonly OutgoingItem[]>;
  /** The webhooks that can be made, by index (an unconfigured one is missing). */
  webhooks: ReadonlyMap<number, ReadyWebhook>;
  notifications: readonly Notification[];
  /** Sentences for the start's log: calls and recipients that are not configured. */
  unconfigured: string[];
  /** True when nothing is declared at all. */
  empty: boolean;
}

/** The key of an event: entity, action and transition. */
export function eventKey(entity: string, action: string, transition: string | null): string {
  return `${entity}\u0000${action}\u0000${transition ?? ''}`;
}

/** The key of a job falling due: no entity, the job's name in the transition's place. */
export function scheduleKey(job: string): string {
  return eventKey('', 'schedule', job);
}

function keyOf(event: OutgoingEvent): string {
  if (event.kind === 'schedule') return scheduleKey(event.job);
  return eventKey(event.entity, event.kind, event.kind === 'transition' ? event.transition : null);
}

/** A value source in words: `env NAME` or the constant's name. */
export function sourceWords(source: ValueSource): string {
  return source.kind === 'env' ? `env ${source.name}` : source.name;
}

/** The value of a constant or an environment variable; undefined when unset or empty. */
export function sourceValue(
  source: ValueSource,
  model: Pick<Model, 'constants'>,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const value =
    source.kind === 'env' ? env[source.name] : model.constants.find((c) => c.name === source.name)?.value?.toString();
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/**
 * Compiles point 7's notifications and calls: which items each event sets off, and each call's
 * URL and signing key, read once from the environment. A call whose URL or secret is unset (or
 * not a URL, not a `whsec_` secret) is left out and named in `unconfigured`: the app starts without it.
 */
export function compileOutgoing(model: Model, env: NodeJS.ProcessEnv = process.env): Outgoing {
  const byEvent = new Map<string, OutgoingItem[]>();
  const add = (event: OutgoingEvent, item: OutgoingItem) => {
    const key = keyOf(event);
    byEvent.set(key, [...(byEvent.get(key) ?? []), item]);
  };
  const webhooks = new Map<number, ReadyWebhook>();
  const unconfigured: string[] = [];
  model.webhooks.forEach((webhook, index) => {
    const where = `The call to ${sourceWords(webhook.url)} on ${eventWords(webhook.event)}`;
    const url = sourceValue(webhook.url, model, env);
    const secret = env[webhook.secretEnv];
    if (url === undefined || !isAbsoluteHttpUrl(url)) {
      unconfigured.push(
        `${where} is not configured: ${webhook.url.kind === 'env' ? `set ${webhook.url.name} to an http(s) URL` : 'its URL is not valid'}.`,
      );
      return;
    }
    const key = webhookKey(secret);
    if (!key) {
      unconfigured.push(`${where} is not configured: set ${webhook.secretEnv} to a whsec_… secret.`);
      return;
    }
    webhooks.set(index, { webhook, url, key });
    add(webhook.event, { kind: 'call', index, target: `${webhook.method} ${sourceWords(webhook.url)}` });
  });
  model.notifications.forEach((notification, index) => {
    for (const to of notification.to) {
      if (to.kind === 'address' && sourceValue(to.source, model, env) === undefined) {
        unconfigured.push(
          `The notification on ${eventWords(notification.event)} is not sent to ${sourceWords(to.source)}: it is not set.`,
        );
      }
    }
    const target = notification.to
      .map((to) =>
        to.kind === 'field' ? to.path.join('.') : to.kind === 'role' ? `every ${to.role}` : sourceWords(to.source),
      )
      .join(', ');
    add(notification.event, { kind: 'mail', index, target: `notify ${target}` });
  });
  return {
    byEvent,
    webhooks,
    notifications: model.notifications,
    unconfigured,
    empty: model.webhooks.length === 0 && model.notifications.length === 0,
  };
}

/** `create Ticket`, `Ticket: assign`. */
export function eventWords(event: OutgoingEvent): string {
  if (event.kind === 'schedule') return `schedule ${event.job}`;
  return event.kind === 'transition' ? `${event.entity}: ${event.transition}` : `${event.kind} ${event.entity}`;
}

/** The Standard Webhooks `type` of an event: `expense.approve`, `ticket.created`. */
export function eventType(entity: string, action: string, transition: string | null): string {
  if (action === 'schedule') return `schedule.${transitionSlug(transition ?? '')}`;
  const past: Record<string, string> = { create: 'created', update: 'updated', delete: 'deleted' };
  return `${entity.toLowerCase()}.${transition ? transitionSlug(transition) : (past[action] ?? action)}`;
}

/**
 * The outbox's rows for a write, added in its transaction (`Store.follow`): one per item its event
 * sets off, pending from the write's own time, holding the record as the write left it.
 */
export function outboxFollower(outgoing: Outgoing): WriteFollower {
  return {
    table: DELIVERIES_TABLE,
    columns: DELIVERY_INSERT_COLUMNS,
    rowsFor(write: FollowedWrite) {
      const items = outgoing.byEvent.get(eventKey(write.entity, write.action, write.transition));
      if (!items) return null;
      const record = JSON.stringify(write.record);
      const at = Date.parse(write.at);
      return items.map((item) => [
        uuidv7(at),
        item.kind,
        item.index,
        item.target,
        write.action,
        write.entity,
        write.id,
        write.transition,
        write.by,
        write.at,
        record,
        'pending',
        0,
        at,
      ]);
    },
  };
}
