import type { Entity, Model, Notification, OutgoingEvent, Recipient, Schedule, ValueSource, Webhook } from './model.ts';
import { CONSTANT_NAME, transitionSlug, USER_ENTITY } from './names.ts';
import type { Section, Subsection } from './parse-sections.ts';
import { type Cell, cellPart, splitList, type TableRow } from './parse-tables.ts';
import { cellOf, requiredCell, rowsOf } from './read-helpers.ts';
import { readReferencePath } from './reference-paths.ts';
import { readSchedule } from './schedules.ts';
import type { Scope } from './scope.ts';
import { subSpan } from './spans.ts';
import { suggest } from './suggest.ts';

/** Point 7's sub-sections that say what the product sends out, rather than the API it serves. */
const NOTIFICATIONS = /^notifications?$/i;
const WEBHOOKS = /^(calls to other systems|webhooks?|outgoing calls)$/i;
const SCHEDULES = /^(schedules?|scheduled jobs|recurring work)$/i;

/** True for a point-7 sub-section holding notifications, calls to other systems or schedules. */
export function isOutgoingSubsection(sub: Subsection): boolean {
  const name = sub.name.trim();
  return NOTIFICATIONS.test(name) || WEBHOOKS.test(name) || SCHEDULES.test(name);
}

const NOTIFICATION_COLUMNS = [
  { key: 'on', names: ['on', 'when', 'event'], required: true },
  { key: 'to', names: ['to', 'recipients', 'who'], required: true },
  { key: 'subject', names: ['subject', 'title'], required: true },
  { key: 'text', names: ['text', 'body', 'message'], required: true },
];
const WEBHOOK_COLUMNS = [
  { key: 'on', names: ['on', 'when', 'event'], required: true },
  { key: 'method', names: ['method', 'verb'] },
  { key: 'url', names: ['url', 'to', 'address'], required: true },
  { key: 'body', names: ['body', 'payload', 'sends'] },
  { key: 'secret', names: ['secret', 'signed with', 'signing secret'], required: true },
];
const SCHEDULE_COLUMNS = [
  { key: 'job', names: ['job', 'name'], required: true },
  { key: 'every', names: ['every', 'schedule', 'when', 'runs'], required: true },
];
const METHODS = ['POST', 'PUT', 'PATCH'] as const;
const ENV = /^env(?:ironment)?\s+([A-Z][A-Z0-9_]*)$/;
/** The fields a webhook's body may list beside the entity's own. */
const SYSTEM_FIELDS = ['id', 'state', 'created_at', 'updated_at', 'created_by'];

/** Reads point 7's "Notifications" and "Calls to other systems" sub-sections. */
export function readOutgoing(section: Section, scope: Scope): Pick<Model, 'notifications' | 'webhooks' | 'schedules'> {
  const notifications: Notification[] = [];
  const webhooks: Webhook[] = [];
  // Schedules first: a call names its job, wherever the sub-sections stand.
  const schedules: Schedule[] = [];
  for (const sub of section.subsections) {
    if (!SCHEDULES.test(sub.name.trim())) continue;
    for (const row of rowsOf(sub.tables, SCHEDULE_COLUMNS, scope.bag, 'schedules')) {
      const schedule = readScheduleRow(row, scope, schedules);
      if (schedule) schedules.push(schedule);
    }
  }
  const jobs = new Set(schedules.map((s) => s.name));
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
  const hint =
    'Write words (every day at 07:00, every monday at 09:00, every weekday at 08:30, every hour, every 15 minutes, every month on the 1st at 06:00) or five cron fields (0 7 * * *: minute, hour, day of month, month, day of week).';
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
    scope.bag.report('invalid-schedule', every.span, `The job "${job.text}" runs ${reading.why}.`, { hint });
    return null;
  }
  return { name: job.text, every: every.text, cron: reading.cron, span: row.span };
}

function readNotification(row: TableRow, scope: Scope): Notification | null {
  const on = requiredCell(row, 'on', scope.bag, 'A notification');
  const to = requiredCell(row, 'to', scope.bag, 'A notification');
  const subject = requiredCell(row, 'subject', scope.bag, 'A notification');
  const text = requiredCell(row, 'text', scope.bag, 'A notification');
  if (!on || !to || !subject || !text) return null;
  const read = readEvent(on, scope, 'A notification');
  if (!read) return null;
  const { event, entity } = read;
  const what = `The notification on "${on.text}"`;
  const recipients: Recipient[] = [];
  let ok = true;
  for (const item of splitList(to)) {
    const recipient = readRecipient(item, entity, scope, what);
    if (recipient) recipients.push(recipient);
    else ok = false;
  }
  for (const cell of [subject, text]) if (!checkPlaceholders(cell, entity, scope, what)) ok = false;
  if (!ok) return null;
  return { event, to: recipients, subject: subject.text, text: text.text, span: row.span };
}

function readWebhook(row: TableRow, scope: Scope, jobs: ReadonlySet<string>): Webhook | null {
  const on = requiredCell(row, 'on', scope.bag, 'A call to another system');
  const urlCell = requiredCell(row, 'url', scope.bag, 'A call to another system');
  const secretCell = requiredCell(row, 'secret', scope.bag, 'A call to another system');
  if (!on || !urlCell || !secretCell) return null;
  const what = `The call on "${on.text}"`;
  const scheduled = /^schedule\s+(.+)$/i.exec(on.text);
  if (scheduled) return readScheduledWebhook(row, scheduled[1] as string, on, urlCell, secretCell, scope, jobs, what);
  const read = readEvent(on, scope, 'A call to another system');
  if (!read) return null;
  const { event, entity } = read;
  const methodCell = cellOf(row, 'method');
  const method = (methodCell.text === '' ? 'POST' : methodCell.text.toUpperCase()) as Webhook['method'];
  if (!METHODS.includes(method)) {
    scope.bag.report('invalid-webhook', methodCell.span, `${what} uses "${methodCell.text}", which it cannot send.`, {
      expected: suggest(methodCell.text.toUpperCase(), METHODS),
      hint: 'A call to another system is a POST (the default), PUT or PATCH.',
    });
    return null;
  }
  const url = readUrl(urlCell, scope, what);
  const secretEnv = readSecret(secretCell, scope, what);
  const fields = readBodyFields(cellOf(row, 'body'), entity, scope, what);
  if (!url || !secretEnv || fields === undefined) return null;
  return { event, method, url, fields, secretEnv, span: row.span };
}

/** A call on `schedule <job>`: its body is the job and the time it fell due, never a record. */
function readScheduledWebhook(
  row: TableRow,
  job: string,
  on: Cell,
  urlCell: Cell,
  secretCell: Cell,
  scope: Scope,
  jobs: ReadonlySet<string>,
  what: string,
): Webhook | null {
  const name = [...jobs].find((j) => j.toLowerCase() === job.trim().toLowerCase());
  if (!name) {
    scope.bag.report(
      'invalid-schedule',
      on.span,
      `${what} names job "${job}", which point 7's Schedules do not declare.`,
      {
        expected: suggest(job, jobs),
        hint: 'Declare it under ### Schedules: | job | every | with a row such as | nightly export | every day at 02:00 |.',
      },
    );
    return null;
  }
  const methodCell = cellOf(row, 'method');
  const method = (methodCell.text === '' ? 'POST' : methodCell.text.toUpperCase()) as Webhook['method'];
  if (!METHODS.includes(method)) {
    scope.bag.report('invalid-webhook', methodCell.span, `${what} uses "${methodCell.text}", which it cannot send.`, {
      expected: suggest(methodCell.text.toUpperCase(), METHODS),
      hint: 'A call to another system is a POST (the default), PUT or PATCH.',
    });
    return null;
  }
  const bodyCell = cellOf(row, 'body');
  if (bodyCell.text !== '' && !/^(-|—|–)$/.test(bodyCell.text)) {
    scope.bag.report('invalid-webhook', bodyCell.span, `${what} sends no record, so it lists no fields.`, {
      hint: "A scheduled call's body is the job's name and the time it fell due: leave the body empty.",
    });
    return null;
  }
  const url = readUrl(urlCell, scope, what);
  const secretEnv = readSecret(secretCell, scope, what);
  if (!url || !secretEnv) return null;
  return { event: { kind: 'schedule', job: name }, method, url, fields: null, secretEnv, span: row.span };
}

/** `create Ticket`, `update Ticket`, `delete Ticket` or `Ticket: assign` (a transition). */
function readEvent(cell: Cell, scope: Scope, what: string): { event: OutgoingEvent; entity: Entity } | null {
  const transition = /^([A-Za-z][A-Za-z0-9]*)\s*:\s*(.+)$/.exec(cell.text);
  if (transition) {
    const [, entityName, name] = transition as unknown as [string, string, string];
    const entity = scope.entity(cellPart(cell, 0, entityName.length), what);
    if (!entity) return null;
    const machine = scope.machines.get(entity.name);
    const found = machine?.transitions.find((t) => t.slug === transitionSlug(name));
    if (!found) {
      scope.bag.report(
        'unknown-transition',
        cellPart(cell, cell.text.lastIndexOf(name), name.length).span,
        `${what} on "${cell.text}" names transition "${name}", which ${entity.name} does not have.`,
        {
          expected: suggest(name, machine?.transitions.map((t) => t.name) ?? []),
          hint: machine ? undefined : `${entity.name} has no state machine in point 4.`,
        },
      );
      return null;
    }
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

/** A User field or chain (`doctor.account`), `every <role>`, a text constant, or `env NAME`. */
function readRecipient(cell: Cell, entity: Entity, scope: Scope, what: string): Recipient | null {
  const role = /^every\s+([a-z][a-z0-9_-]*)$/i.exec(cell.text);
  if (role) {
    const name = role[1] as string;
    if (!scope.role(cellPart(cell, cell.text.length - name.length, name.length), what)) return null;
    return { kind: 'role', role: name };
  }
  if (CONSTANT_NAME.test(cell.text) || ENV.test(cell.text)) {
    const source = readSource(cell, scope, what);
    if (!source) return null;
    if (source.kind === 'constant') {
      const constant = scope.constants.get(source.name);
      if (constant && (constant.type !== 'text' || !/^[^\s@]+@[^\s@]+$/.test(String(constant.value)))) {
        scope.bag.report(
          'invalid-recipient',
          cell.span,
          `${what} is sent to ${source.name}, which is not an email address.`,
          {
            hint: `Give ${source.name} a quoted address in point 9, e.g. "desk@example.com".`,
          },
        );
        return null;
      }
    }
    return { kind: 'address', source };
  }
  const path = readReferencePath(cell, entity, scope, what);
  if (!path) return null;
  const type = path.type;
  if (type?.kind !== 'reference' || type.entity !== USER_ENTITY) {
    scope.bag.report(
      'invalid-recipient',
      cell.span,
      `${what} is sent to "${cell.text}", which is not a User${type?.kind === 'reference' ? ` (it refers to ${type.entity})` : ''}.`,
      {
        hint:
          type?.kind === 'reference'
            ? `Follow it to a User field of ${type.entity}, e.g. ${cell.text}.account.`
            : 'Send to a User field (assignee), a chain ending in one (doctor.account), every <role>, a constant holding an address, or env NAME.',
      },
    );
    return null;
  }
  return { kind: 'field', path: path.fields };
}

/** A constant (`FINANCE_URL`) or an environment variable (`env FINANCE_URL`). */
function readSource(cell: Cell, scope: Scope, what: string): ValueSource | null {
  const env = ENV.exec(cell.text);
  if (env) return { kind: 'env', name: env[1] as string };
  if (!CONSTANT_NAME.test(cell.text)) return null;
  scope.usedConstants.add(cell.text);
  if (!scope.constants.has(cell.text)) {
    scope.bag.report('unknown-constant', cell.span, `${what} uses ${cell.text}, which point 9 does not define.`, {
      expected: suggest(cell.text, scope.constants.keys()),
      hint: `Define it in point 9, or read it from the environment: env ${cell.text}.`,
    });
    return null;
  }
  return { kind: 'constant', name: cell.text };
}

function readUrl(cell: Cell, scope: Scope, what: string): ValueSource | null {
  const hint = 'Write a constant holding an absolute http(s) URL ("https://finance.example.com/hooks"), or env NAME.';
  const source = CONSTANT_NAME.test(cell.text) || ENV.test(cell.text) ? readSource(cell, scope, what) : null;
  if (!source) {
    if (!CONSTANT_NAME.test(cell.text)) {
      scope.bag.report(
        'invalid-webhook',
        cell.span,
        `${what} goes to "${cell.text}", which is no constant or environment variable.`,
        {
          hint,
        },
      );
    }
    return null;
  }
  if (source.kind === 'constant') {
    const value = scope.constants.get(source.name)?.value;
    if (!isAbsoluteHttpUrl(value)) {
      scope.bag.report(
        'invalid-webhook',
        cell.span,
        `${what} goes to ${source.name}, which is not an absolute http(s) URL.`,
        {
          hint,
        },
      );
      return null;
    }
  }
  return source;
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

function readSecret(cell: Cell, scope: Scope, what: string): string | null {
  const env = ENV.exec(cell.text);
  if (env) return env[1] as string;
  const constant = scope.constants.get(cell.text);
  scope.bag.report(
    'secret-in-spec',
    cell.span,
    constant
      ? `${what} is signed with constant ${cell.text}: a secret in the spec is a secret in every copy of it.`
      : `${what} writes its secret into the spec.`,
    {
      hint: 'Read it from the environment: write env FINANCE_WEBHOOK_SECRET and set that variable to a whsec_… secret on the server.',
    },
  );
  if (constant) scope.usedConstants.add(cell.text);
  return null;
}

/** Empty or `Expense` for the whole record, `Expense (id, amount)` or `id, amount` for some fields. */
function readBodyFields(cell: Cell, entity: Entity, scope: Scope, what: string): string[] | null | undefined {
  if (cell.text === '' || /^(-|—|–|record|the record|whole record)$/i.test(cell.text)) return null;
  const m = /^([A-Z][A-Za-z0-9]*)\s*(?:\((.*)\))?$/.exec(cell.text);
  let list: Cell = cell;
  if (m) {
    if (m[1] !== entity.name) {
      scope.bag.report('invalid-webhook', cell.span, `${what} is about ${entity.name} but its body names ${m[1]}.`, {
        expected: [entity.name],
      });
      return undefined;
    }
    if (m[2] === undefined) return null;
    list = cellPart(cell, cell.text.indexOf('(') + 1, m[2].length);
  }
  const fields: string[] = [];
  for (const item of splitList(list)) {
    if (!scope.field(entity, item, what, SYSTEM_FIELDS)) return undefined;
    fields.push(item.text);
  }
  return fields;
}

/** Placeholders name a field of the record, a system field, a constant, or a word of the event. */
const EVENT_PLACEHOLDERS = ['id', 'state', 'entity', 'transition', 'created_at', 'updated_at', 'user'];

function checkPlaceholders(cell: Cell, entity: Entity, scope: Scope, what: string): boolean {
  let ok = true;
  const fields = entity.fields.map((f) => f.name);
  for (const match of cell.text.matchAll(/\{([^{}]*)\}/g)) {
    const name = (match[1] ?? '').trim();
    const at = subSpan(cell.span, match.index ?? 0, match[0].length);
    if (CONSTANT_NAME.test(name)) {
      scope.usedConstants.add(name);
      if (scope.constants.has(name)) continue;
      scope.bag.report('unknown-constant', at, `${what} uses {${name}}, which point 9 does not define.`, {
        expected: suggest(name, scope.constants.keys()),
      });
      ok = false;
    } else if (!fields.includes(name) && !EVENT_PLACEHOLDERS.includes(name)) {
      scope.bag.report('unknown-placeholder', at, `${what} uses {${name}}, which ${entity.name} has no field for.`, {
        expected: suggest(name, [...fields, ...EVENT_PLACEHOLDERS]),
        hint: `Placeholders name a field of ${entity.name} ({${fields[0] ?? 'title'}}), a constant ({MAX_LOANS}), or one of ${EVENT_PLACEHOLDERS.join(', ')}.`,
      });
    }
  }
  return ok;
}
