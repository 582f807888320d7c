import { type MessageCatalogue, type Model, type Notification, USER_ENTITY } from '@ninepoint/spec';
import type { Actor, EntityPermissions } from '../compile/permissions.ts';
import type { ApiRecord, Value } from '../compile/record-types.ts';
import { covers, coversEveryRecord } from '../compile/row-access.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { AuthStore, ManagedAccount } from '../people/index.ts';
import { type SettledReads, settle } from '../store/settle-reads.ts';
import type { Store } from '../store/store.ts';
import { uuidv7 } from '../store/uuidv7.ts';
import type { DeliveriesStore, DeliveryRow } from './deliveries-store.ts';
import { sourceValue } from './outgoing.ts';

/** What a placeholder of a field the recipient may not read is filled with. */
export const HIDDEN_VALUE = '—';

export interface NotifyContext {
  model: Model;
  /** The declared notifications by stable key (`Outgoing.notifications`). */
  notifications: ReadonlyMap<string, Notification>;
  store: Store;
  auth: AuthStore;
  deliveries: DeliveriesStore;
  permissions: ReadonlyMap<string, EntityPermissions>;
  catalogue: MessageCatalogue;
  /** Null: mail is not configured; users still get the in-app notification. */
  mailer: Mailer | null;
  env: NodeJS.ProcessEnv;
  /** Tells the user's open pages (the live-update stream) that a notification arrived. */
  told: (userId: string, notificationId: string) => void;
}

/**
 * The accounts a batch of deliveries read, by user id: its notifications to one person read their
 * account once. A new map for each batch, so a change to an account shows in the next one.
 */
export type AccountReads = Map<string, Promise<ManagedAccount | undefined>>;

/** What one notification delivery did: how many were mailed and told, and who was left out and why. */
export interface NotifyOutcome {
  mailed: number;
  told: number;
  skipped: number;
}

/**
 * Sends one notification delivery: finds its recipients as the record stood at the write, and
 * gives each what point 6 lets them read of it. A user who may not read the record gets nothing;
 * a field they may not read is filled with `HIDDEN_VALUE`. An address (a constant or `env`) is no
 * account: it gets the fields that no role reading the entity is kept from. Throws when a mail
 * could not be handed over, so the whole delivery is tried again (in-app entries are not added
 * twice; a mail may be sent twice: at least once).
 */
export async function sendNotification(
  row: DeliveryRow,
  context: NotifyContext,
  accounts: AccountReads = new Map(),
): Promise<NotifyOutcome> {
  const notification = context.notifications.get(row.item);
  if (!notification) throw new Error(`notification ${row.item} is no longer in the spec`);
  const record = JSON.parse(row.record) as ApiRecord;
  const permissions = context.permissions.get(row.entity);
  const reads: SettledReads = new Map();
  const accountOf = (userId: string) => {
    let found = accounts.get(userId);
    if (!found) {
      found = context.auth.users.managed(userId);
      accounts.set(userId, found);
    }
    return found;
  };
  const byName = row.by ? ((await accountOf(row.by))?.name ?? '') : '';
  const outcome: NotifyOutcome = { mailed: 0, told: 0, skipped: 0 };
  const seen = new Set<string>();

  for (const to of notification.to) {
    if (to.kind === 'address') {
      const address = sourceValue(to.source, context.model, context.env);
      if (!address || !context.mailer || seen.has(address)) {
        outcome.skipped++;
        continue;
      }
      seen.add(address);
      const hidden = addressHidden(context.model, permissions);
      await context.mailer.send({ to: address, ...render(notification, record, hidden, row, byName, context) });
      outcome.mailed++;
      continue;
    }
    const userIds =
      to.kind === 'role'
        ? await roleMembers(context.auth, to.role)
        : await followPath(to.path, row.entity, record, context.model, context.store, reads);
    for (const userId of userIds) {
      if (seen.has(userId)) continue;
      seen.add(userId);
      const account = await accountOf(userId);
      if (!account?.active) {
        outcome.skipped++;
        continue;
      }
      const actor: Actor = { userId, roles: account.roles };
      const hidden = permissions ? await visibleTo(actor, permissions, record, context.store, reads) : null;
      if (hidden === null) {
        outcome.skipped++;
        continue;
      }
      const message = render(notification, record, hidden, row, byName, context);
      const id = uuidv7();
      if (
        await context.deliveries.addNotification({
          id,
          userId,
          deliveryId: row.id,
          entity: row.entity,
          recordId: row.record_id,
          ...message,
          at: Date.parse(row.at),
        })
      ) {
        context.told(userId, id);
        outcome.told++;
      }
      if (context.mailer) {
        await context.mailer.send({ to: account.email, ...message });
        outcome.mailed++;
      }
    }
  }
  return outcome;
}

/** The fields the user may not read of the record, or null when they may not read the record at all. */
async function visibleTo(
  actor: Actor,
  permissions: EntityPermissions,
  record: ApiRecord,
  store: Store,
  reads: SettledReads,
): Promise<ReadonlySet<string> | null> {
  const grants = permissions.grants(actor, 'read');
  if (grants.length === 0) return null;
  if (!coversEveryRecord(grants)) {
    const userId = actor.userId;
    if (!(await settle((load) => covers(grants, record, userId, load), store, reads))) return null;
  }
  if (!permissions.listsFields) return new Set();
  return settle((load) => permissions.hiddenOn(actor, record, load), store, reads);
}

/** Fields some role that reads the entity may not read: an address gets none of them. */
function addressHidden(model: Model, permissions: EntityPermissions | undefined): ReadonlySet<string> {
  if (!permissions?.listsFields) return new Set();
  const hidden = new Set<string>();
  for (const role of model.roles) {
    const actor: Actor = { userId: null, roles: [role.name] };
    if (permissions.grants(actor, 'read').length === 0) continue;
    for (const field of permissions.unsearchable(actor)) hidden.add(field);
  }
  return hidden;
}

async function roleMembers(auth: AuthStore, role: string): Promise<string[]> {
  return (await auth.users.active()).filter((u) => u.roles.includes(role)).map((u) => u.id);
}

/** The user a chain of reference fields ends at (`doctor.account`), read as the records are now. */
async function followPath(
  path: readonly string[],
  entity: string,
  record: ApiRecord,
  model: Model,
  store: Store,
  reads: SettledReads,
): Promise<string[]> {
  let current: ApiRecord | undefined = record;
  let currentEntity = entity;
  for (const [i, field] of path.entries()) {
    const value: Value | undefined = current?.[field];
    if (typeof value !== 'string') return [];
    if (i === path.length - 1) return [value];
    const type = model.entities.find((e) => e.name === currentEntity)?.fields.find((f) => f.name === field)?.type;
    const target = type?.kind === 'reference' ? type.entity : null;
    if (!target || target === USER_ENTITY) return [];
    const key = `${target}\u0000${value}`;
    if (!reads.has(key)) reads.set(key, (await store.records(target).get(value))?.record);
    current = reads.get(key);
    currentEntity = target;
  }
  return [];
}

/** Subject and text with placeholders filled: the record's values, hidden ones as `HIDDEN_VALUE`. */
function render(
  notification: Notification,
  record: ApiRecord,
  hidden: ReadonlySet<string>,
  row: DeliveryRow,
  byName: string,
  context: NotifyContext,
): { subject: string; text: string } {
  const params: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(record)) {
    params[name] = hidden.has(name) ? HIDDEN_VALUE : value === null ? '' : (value as string | number | boolean);
  }
  params.entity = row.entity;
  params.id = row.record_id;
  if (row.transition) params.transition = row.transition;
  params.user = byName;
  const fill = (template: string) => context.catalogue.fill(template, params);
  return { subject: fill(notification.subject).replace(/\s+/g, ' ').trim(), text: fill(notification.text) };
}
