import type { Entity, FieldType, OutgoingEvent, Schedule, Span } from './model.ts';
import { CONSTANT_NAME } from './names.ts';
import type { Section, Subsection } from './parse-sections.ts';
import { type Cell, cellPart, splitList, type TableRow } from './parse-tables.ts';
import { cellOf, requiredCell, rowsOf } from './read-helpers.ts';
import { readReferencePath } from './reference-paths.ts';
import { readSchedule } from './schedules.ts';
import type { Scope } from './scope.ts';
import { suggest } from './suggest.ts';

/** Point 7's sub-sections that say what the product sends out, rather than the API it serves. */
const NOTIFICATIONS = /^notifications?$/i;
const WEBHOOKS = /^(calls to other systems|webhooks?|outgoing calls)$/i;
const SCHEDULES = /^(schedules?|scheduled jobs|recurring work)$/i;
/** TypeScript modules run on events (`read-code.ts`). */
export const CODE = /^(code|hooks?|typescript)$/i;

/** True for a point-7 sub-section holding notifications, calls to other systems, schedules or code. */
export function isOutgoingSubsection(sub: Subsection): boolean {
  const name = sub.name.trim();
  return NOTIFICATIONS.test(name) || WEBHOOKS.test(name) || SCHEDULES.test(name) || CODE.test(name);
}

const NOTIFICATION_COLUMNS = [
  { key: 'on', names: ['on', 'when', 'event'], required: true },
  { key: 'to', names: ['to', 'recipients', 'who'], required: true },
  { key: 'subject', names: ['subject', 'title'], required: true },
  { key: 'text', names: ['text', 'body', 'message'], required: true },
];
const SCHEDULE_COLUMNS = [
  { key: 'job', names: ['job', 'name'], required: true },
  { key: 'every', names: ['every', 'schedule', 'when', 'runs'], required: true },
];
const WEBHOOK_COLUMNS = [
  { key: 'on', names: ['on', 'when', 'event'], required: true },
  { key: 'method', names: ['method', 'verb'] },
  { key: 'url', names: ['url', 'to', 'address'], required: true },
  { key: 'body', names: ['body', 'payload', 'sends'] },
  { key: 'secret', names: ['secret', 'signed with', 'signing secret'], required: true },
];
/** `env NAME` or `environment NAME`: a value read from the server's environment. */
export const ENV = /^env(?:ironment)?\s+([A-Z][A-Z0-9_]*)$/;
/** The fields a webhook's body may list beside the entity's own. */
const SYSTEM_FIELDS = ['id', 'state', 'created_at', 'updated_at', 'created_by'];

/** A recipient as written, linked to what it names; `validate/calls.ts` judges it. */
export type RecipientDraft =
  | { kind: 'role'; role: string }
  | { kind: 'source'; cell: Cell }
  | { kind: 'path'; cell: Cell; fields: string[]; type: FieldType | null };

/** A notification read and linked, not yet checked. */
export interface NotificationDraft {
  event: OutgoingEvent;
  entity: Entity;
  on: Cell;
  to: RecipientDraft[];
  /** False when a recipient named something that does not exist (already reported). */
  linked: boolean;
  subject: Cell;
  text: Cell;
  span: Span;
}

/** A call to another system read and linked, not yet checked. */
export interface WebhookDraft {
  event: OutgoingEvent;
  /** Null for a call on `schedule <job>`: it carries no record. */
  entity: Entity | null;
  on: Cell;
  method: Cell;
  url: Cell;
  secret: Cell;
  body: Cell;
  /** The entity named before the listed fields (`Expense (id, amount)`), if any. */
  bodyEntity: Cell | null;
  /** The listed fields; null for the whole record, undefined when one does not exist (reported). */
  fields: string[] | null | undefined;
  span: Span;
}

/** What point 7's outgoing sub-sections hold once read and linked. */
export interface OutgoingDrafts {
  notifications: NotificationDraft[];
  webhooks: WebhookDraft[];
  /** Point 7's recurring jobs, checked as they are read (a schedule that does not parse is reported). */
  schedules: Schedule[];
}

/**
 * Reads point 7's "Notifications" and "Calls to other systems" sub-sections and links their
 * names (entities, transitions, roles, fields); `validate/calls.ts` checks the rest.
 */
export function readOutgoing(section: Section, scope: Scope): OutgoingDrafts {
  const notifications: NotificationDraft[] = [];
  const webhooks: WebhookDraft[] = [];
  // Schedules first: a call names its job, wherever the sub-sections stand.
  const schedules: Schedule[] = [];
  for (const sub of section.subsections) {
    if (!SCHEDULES.test(sub.name.trim())) continue;
    for (const row of rowsOf(sub.tables, SCHEDULE_COLUMNS, scope.bag, 'schedules')) {
      const schedule = readScheduleRow(row, scope, schedules);
      if (schedule) schedules.push(schedule);
    }
  }
  const jobs = schedules.map((s) => s.name);
  for (const sub of section.subsections) {
    const name = sub.name.trim();
    if (NOTIFICATIONS.test(name)) {
      for (const row of rowsOf(sub.tables, NOTIFICATION_COLUMNS, scope.bag, 'notifications')) {
        const n = readNotification(row, scope);
        if (n) notifications.push(n);
      }
    } else if (WEBHOOKS.test(name)) {
      for (const row of rowsOf(sub.tables, WEBHOOK_COLUMNS, scope.bag, 'calls to other systems')) {
        const w = readWebhook(row, scope, jobs);
        if (w) webhooks.push(w);
      }
    }
  }
  return { notifications, webhooks, schedules };
}

function readScheduleRow(row: TableRow, scope: Scope, earlier: readonly Schedule[]): Schedule | null {
  const job = requiredCell(row, 'job', scope.bag, 'A schedule');
  const every = requiredCell(row, 'every', scope.bag, 'A schedule');
  if (!job || !every) return null;
  if (!/^[a-z][a-z0-9 _-]*$/i.test(job.text)) {
    scope.bag.report(
      'invalid-schedule',
      job.span,
      `The job "${job.text}" needs a name of letters, digits and spaces.`,
      {
        hint: 'Name it as the calls will: nightly export, weekly digest.',
      },
    );
    return null;
  }
  if (earlier.some((s) => s.name.toLowerCase() === job.text.toLowerCase())) {
    scope.bag.report('invalid-schedule', job.span, `The job "${job.text}" is declared twice.`, {
      hint: 'Give each job its own name; one job may set off several calls.',
    });
    return null;
  }
  const reading = readSchedule(every.text);
  if (!reading.ok) {
    scope.bag.report('invalid-schedule', every.span, `The job "${job.text}" runs ${reading.why}.`, {
      hint: 'Write words (every day at 07:00, every monday at 09:00, every weekday at 08:30, every hour, every 15 minutes, every month on the 1st at 06:00) or five cron fields (0 7 * * *: minute, hour, day of month, month, day of week).',
    });
    return null;
  }
  return { name: job.text, every: every.text, cron: reading.cron, span: row.span };
}

function readNotification(row: TableRow, scope: Scope): NotificationDraft | null {
  const on = requiredCell(row, 'on', scope.bag, 'A notification');
  const to = requiredCell(row, 'to', scope.bag, 'A notification');
  const subject = requiredCell(row, 'subject', scope.bag, 'A notification');
  const text = requiredCell(row, 'text', scope.bag, 'A notification');
  if (!on || !to || !subject || !text) return null;
  const read = readEvent(on, scope, 'A notification');
  if (!read) return null;
  const { event, entity } = read;
  const what = `The notification on "${on.text}"`;
  const recipients: RecipientDraft[] = [];
  let linked = true;
  for (const item of splitList(to)) {
    const recipient = readRecipient(item, entity, scope, what);
    if (recipient) recipients.push(recipient);
    else linked = false;
  }
  return { event, entity, on, to: recipients, linked, subject, text, span: row.span };
}

function readWebhook(row: TableRow, scope: Scope, jobs: readonly string[]): WebhookDraft | null {
  const on = requiredCell(row, 'on', scope.bag, 'A call to another system');
  const url = requiredCell(row, 'url', scope.bag, 'A call to another system');
  const secret = requiredCell(row, 'secret', scope.bag, 'A call to another system');
  if (!on || !url || !secret) return null;
  const scheduled = /^schedule\s+(.+)$/i.exec(on.text);
  if (scheduled) {
    const job = (scheduled[1] as string).trim();
    const name = jobs.find((j) => j.toLowerCase() === job.toLowerCase());
    if (!name) {
      scope.bag.report(
        'invalid-schedule',
        on.span,
        `The call on "${on.text}" names job "${job}", which point 7's Schedules do not declare.`,
        {
          expected: suggest(job, jobs),
          hint: 'Declare it under ### Schedules: | job | every | with a row such as | nightly export | every day at 02:00 |.',
        },
      );
      return null;
    }
    const body = cellOf(row, 'body');
    const event: OutgoingEvent = { kind: 'schedule', job: name };
    return {
      event,
      entity: null,
      on,
      method: cellOf(row, 'method'),
      url,
      secret,
      body,
      bodyEntity: null,
      fields: null,
      span: row.span,
    };
  }
  const read = readEvent(on, scope, 'A call to another system');
  if (!read) return null;
  const { event, entity } = read;
  const what = `The call on "${on.text}"`;
  const body = cellOf(row, 'body');
  const { bodyEntity, fields } = readBodyFields(body, entity, scope, what);
  return { event, entity, on, method: cellOf(row, 'method'), url, secret, body, bodyEntity, fields, span: row.span };
}

/** `create Ticket`, `update Ticket`, `delete Ticket` or `Ticket: assign` (a transition). */
export function readEvent(cell: Cell, scope: Scope, what: string): { event: OutgoingEvent; entity: Entity } | null {
  const transition = /^([A-Za-z][A-Za-z0-9]*)\s*:\s*(.+)$/.exec(cell.text);
  if (transition) {
    const [, entityName, name] = transition as unknown as [string, string, string];
    const entity = scope.entity(cellPart(cell, 0, entityName.length), what);
    if (!entity) return null;
    const part = cellPart(cell, cell.text.lastIndexOf(name), name.length);
    const found = scope.transition(entity, part, `${what} on "${cell.text}" names`);
    if (!found) return null;
    // A transition from (new) is how the record is created: it is the create event.
    const event: OutgoingEvent = found.creates
      ? { kind: 'create', entity: entity.name }
      : { kind: 'transition', entity: entity.name, transition: found.name };
    return { event, entity };
  }
  const m = /^(create|update|delete)\s+([A-Za-z][A-Za-z0-9]*)$/i.exec(cell.text);
  if (!m) {
    scope.bag.report('invalid-event', cell.span, `${what} is set off by "${cell.text}", which is not an event.`, {
      hint: 'Write create, update or delete and an entity ("create Ticket"), or "Entity: transition" ("Ticket: assign").',
    });
    return null;
  }
  const name = m[2] as string;
  const entity = scope.entity(cellPart(cell, cell.text.length - name.length, name.length), what);
  if (!entity) return null;
  return { event: { kind: (m[1] as string).toLowerCase() as 'create', entity: entity.name }, entity };
}

/** `every <role>` (linked here), a constant or `env NAME` (judged later), or a field chain. */
function readRecipient(cell: Cell, entity: Entity, scope: Scope, what: string): RecipientDraft | null {
  const role = /^every\s+([a-z][a-z0-9_-]*)$/i.exec(cell.text);
  if (role) {
    const name = role[1] as string;
    if (!scope.role(cellPart(cell, cell.text.length - name.length, name.length), what)) return null;
    return { kind: 'role', role: name };
  }
  if (CONSTANT_NAME.test(cell.text) || ENV.test(cell.text)) return { kind: 'source', cell };
  const path = readReferencePath(cell, entity, scope, what);
  if (!path) return null;
  return { kind: 'path', cell, fields: path.fields, type: path.type };
}

/** Empty or `Expense` for the whole record, `Expense (id, amount)` or `id, amount` for some fields. */
function readBodyFields(
  cell: Cell,
  entity: Entity,
  scope: Scope,
  what: string,
): { bodyEntity: Cell | null; fields: string[] | null | undefined } {
  if (cell.text === '' || /^(-|—|–|record|the record|whole record)$/i.test(cell.text)) {
    return { bodyEntity: null, fields: null };
  }
  const m = /^([A-Z][A-Za-z0-9]*)\s*(?:\((.*)\))?$/.exec(cell.text);
  let list: Cell = cell;
  let bodyEntity: Cell | null = null;
  if (m) {
    bodyEntity = cellPart(cell, 0, (m[1] as string).length);
    // A body naming another entity is judged in validate/calls.ts; its fields are not linked.
    if (m[1] !== entity.name) return { bodyEntity, fields: undefined };
    if (m[2] === undefined) return { bodyEntity, fields: null };
    list = cellPart(cell, cell.text.indexOf('(') + 1, m[2].length);
  }
  const fields: string[] = [];
  for (const item of splitList(list)) {
    if (!scope.field(entity, item, what, SYSTEM_FIELDS)) return { bodyEntity, fields: undefined };
    fields.push(item.text);
  }
  return { bodyEntity, fields };
}

/** True for an absolute `http:` or `https:` URL with a host. */
export function isAbsoluteHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
