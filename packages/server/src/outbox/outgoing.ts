import { createHash, createSecretKey, type KeyObject } from 'node:crypto';
import type { Model, Notification, OutgoingEvent, ValueSource, Webhook } from '@ninepoint/spec';
import { isAbsoluteHttpUrl, transitionSlug } from '@ninepoint/spec';
import type { FollowedWrite, WriteFollower } from '../store/store.ts';
import { uuidv7 } from '../store/uuidv7.ts';
import { DELIVERIES_TABLE, DELIVERY_INSERT_COLUMNS } from './outbox-tables.ts';
import { webhookKey } from './signing.ts';

/** One declared notification or call that an event sets off. */
export interface OutgoingItem {
  kind: 'call' | 'mail';
  /** Its stable key (`outgoingKey`), stored in the delivery instead of its place in point 7. */
  key: string;
  /** What the Deliveries screen shows as its target: `POST env FINANCE_WEBHOOK_URL`, `mail to assignee`. */
  target: string;
}

/** A webhook as the server makes it: the URL and the signing key read from the environment at start. */
export interface ReadyWebhook {
  webhook: Webhook;
  url: string;
  key: KeyObject;
}

/** Point 7's notifications and calls, compiled once at start-up against the server's environment. */
export interface Outgoing {
  /** The items each event sets off, by `eventKey`. */
  byEvent: ReadonlyMap<string, readonly OutgoingItem[]>;
  /** The webhooks that can be made, by key (an unconfigured one is missing). */
  webhooks: ReadonlyMap<string, ReadyWebhook>;
  /** The notifications, by key. */
  notifications: ReadonlyMap<string, Notification>;
  /** The key of every declared notification and call, configured or not. */
  keys: ReadonlySet<string>;
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
 * A declaration's stable key: kind, event and a short hash of what it says (not where it is), so
 * reordering point 7 between a write and its delivery changes nothing, and a changed declaration
 * no longer matches the deliveries written for the old one (`mail:ticket.assign:3f9a0c1b2d4e`).
 */
export function outgoingKey(kind: OutgoingItem['kind'], declaration: Notification | Webhook): string {
  const { span: _span, ...content } = declaration;
  const hash = createHash('sha256').update(JSON.stringify(content)).digest('hex').slice(0, 12);
  const event = declaration.event;
  const type =
    event.kind === 'schedule'
      ? eventType('', 'schedule', event.job)
      : eventType(event.entity, event.kind, event.kind === 'transition' ? event.transition : null);
  return `${kind}:${type}:${hash}`;
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
  const webhooks = new Map<string, ReadyWebhook>();
  const notifications = new Map<string, Notification>();
  const keys = new Set<string>();
  const unconfigured: string[] = [];
  for (const webhook of model.webhooks) {
    const key = outgoingKey('call', webhook);
    keys.add(key);
    const where = `The call to ${sourceWords(webhook.url)} on ${eventWords(webhook.event)}`;
    const url = sourceValue(webhook.url, model, env);
    const secret = env[webhook.secretEnv];
    if (url === undefined || !isAbsoluteHttpUrl(url)) {
      unconfigured.push(
        `${where} is not configured: ${webhook.url.kind === 'env' ? `set ${webhook.url.name} to an http(s) URL` : 'its URL is not valid'}.`,
      );
      continue;
    }
    const signing = webhookKey(secret);
    if (!signing) {
      unconfigured.push(`${where} is not configured: set ${webhook.secretEnv} to a whsec_… secret.`);
      continue;
    }
    webhooks.set(key, { webhook, url, key: createSecretKey(signing) });
    add(webhook.event, { kind: 'call', key, target: `${webhook.method} ${sourceWords(webhook.url)}` });
  }
  for (const notification of model.notifications) {
    const key = outgoingKey('mail', notification);
    keys.add(key);
    notifications.set(key, notification);
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
    add(notification.event, { kind: 'mail', key, target: `notify ${target}` });
  }
  return {
    byEvent,
    webhooks,
    notifications,
    keys,
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
        item.key,
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
