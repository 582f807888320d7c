import type { Entity, Model, Notification, Recipient, ValueSource, Webhook } from '../model.ts';
import { CONSTANT_NAME, USER_ENTITY } from '../names.ts';
import type { Cell } from '../parse-tables.ts';
import {
  ENV,
  isAbsoluteHttpUrl,
  type NotificationDraft,
  type OutgoingDrafts,
  type RecipientDraft,
  type WebhookDraft,
} from '../read-outgoing.ts';
import type { Scope } from '../scope.ts';
import { subSpan } from '../spans.ts';
import { suggest } from '../suggest.ts';

const METHODS = ['POST', 'PUT', 'PATCH'] as const;

/**
 * Checks point 7's notifications and calls to other systems once read and linked: recipients are
 * Users or addresses, placeholders and constants exist, URLs are absolute http(s), secrets come
 * from the environment. Returns the ones that pass, for the model. Marks the constants they name
 * as used, so it runs before `validateConstants`.
 */
export function validateCalls(drafts: OutgoingDrafts, scope: Scope): Pick<Model, 'notifications' | 'webhooks'> {
  const notifications: Notification[] = [];
  const webhooks: Webhook[] = [];
  for (const draft of drafts.notifications) {
    const n = validateNotification(draft, scope);
    if (n) notifications.push(n);
  }
  for (const draft of drafts.webhooks) {
    const w = validateWebhook(draft, scope);
    if (w) webhooks.push(w);
  }
  return { notifications, webhooks };
}

function validateNotification(draft: NotificationDraft, scope: Scope): Notification | null {
  const what = `The notification on "${draft.on.text}"`;
  const recipients: Recipient[] = [];
  let ok = draft.linked;
  for (const item of draft.to) {
    const recipient = checkRecipient(item, scope, what);
    if (recipient) recipients.push(recipient);
    else ok = false;
  }
  for (const cell of [draft.subject, draft.text]) if (!checkPlaceholders(cell, draft.entity, scope, what)) ok = false;
  if (!ok) return null;
  return { event: draft.event, to: recipients, subject: draft.subject.text, text: draft.text.text, span: draft.span };
}

function validateWebhook(draft: WebhookDraft, scope: Scope): Webhook | null {
  const what = `The call on "${draft.on.text}"`;
  const methodCell = draft.method;
  const method = (methodCell.text === '' ? 'POST' : methodCell.text.toUpperCase()) as Webhook['method'];
  if (!METHODS.includes(method)) {
    scope.bag.report('invalid-webhook', methodCell.span, `${what} uses "${methodCell.text}", which it cannot send.`, {
      expected: suggest(methodCell.text.toUpperCase(), METHODS),
      hint: 'A call to another system is a POST (the default), PUT or PATCH.',
    });
    return null;
  }
  const url = checkUrl(draft.url, scope, what);
  const secretEnv = checkSecret(draft.secret, scope, what);
  if (draft.entity === null && draft.body.text !== '' && !/^(-|—|–)$/.test(draft.body.text)) {
    scope.bag.report('invalid-webhook', draft.body.span, `${what} sends no record, so it lists no fields.`, {
      hint: "A scheduled call's body is the job's name and the time it fell due: leave the body empty.",
    });
    return null;
  }
  if (draft.entity && draft.bodyEntity && draft.bodyEntity.text !== draft.entity.name) {
    scope.bag.report(
      'invalid-webhook',
      draft.body.span,
      `${what} is about ${draft.entity.name} but its body names ${draft.bodyEntity.text}.`,
      { expected: [draft.entity.name] },
    );
  }
  if (!url || !secretEnv || draft.fields === undefined) return null;
  return { event: draft.event, method, url, fields: draft.fields, secretEnv, span: draft.span };
}

/** A field chain must end in a User; a constant must hold an email address. */
function checkRecipient(draft: RecipientDraft, scope: Scope, what: string): Recipient | null {
  if (draft.kind === 'role') return { kind: 'role', role: draft.role };
  const cell = draft.cell;
  if (draft.kind === 'source') {
    const source = checkSource(cell, scope, what);
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
  const type = draft.type;
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
  return { kind: 'field', path: draft.fields };
}

/** A constant (`FINANCE_URL`) or an environment variable (`env FINANCE_URL`). */
function checkSource(cell: Cell, scope: Scope, what: string): ValueSource | null {
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

function checkUrl(cell: Cell, scope: Scope, what: string): ValueSource | null {
  const hint = 'Write a constant holding an absolute http(s) URL ("https://finance.example.com/hooks"), or env NAME.';
  const source = CONSTANT_NAME.test(cell.text) || ENV.test(cell.text) ? checkSource(cell, scope, what) : null;
  if (!source) {
    if (!CONSTANT_NAME.test(cell.text)) {
      scope.bag.report(
        'invalid-webhook',
        cell.span,
        `${what} goes to "${cell.text}", which is no constant or environment variable.`,
        { hint },
      );
    }
    return null;
  }
  if (source.kind === 'constant' && !isAbsoluteHttpUrl(scope.constants.get(source.name)?.value)) {
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
  return source;
}

function checkSecret(cell: Cell, scope: Scope, what: string): string | null {
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
