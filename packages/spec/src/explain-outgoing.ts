import type { Hook, Model, Notification, OutgoingEvent, Recipient, Schedule, ValueSource, Webhook } from './model.ts';
import { wordList } from './word-list.ts';

/** `on create Ticket`, `when Ticket: assign is taken`. */
function eventWords(event: OutgoingEvent): string {
  if (event.kind === 'schedule') return `when job ${event.job} falls due`;
  return event.kind === 'transition'
    ? `when ${event.entity}: ${event.transition} is taken`
    : `on ${event.kind} ${event.entity}`;
}

function sourceWords(source: ValueSource): string {
  return source.kind === 'env' ? `env ${source.name}` : source.name;
}

function recipientWords(to: Recipient): string {
  if (to.kind === 'field') return `the user in ${to.path.join('.')}`;
  if (to.kind === 'role') return `every ${to.role}`;
  return `the address in ${sourceWords(to.source)}`;
}

/** E.g. `Notification when Ticket: assign is taken, to the user in assignee: "Assigned: {title}"`. */
export function explainNotification(n: Notification): string {
  return `Notification ${eventWords(n.event)}, to ${wordList(n.to.map(recipientWords), 'and')}: "${n.subject}"`;
}

/** E.g. `POST to env FINANCE_WEBHOOK_URL when Expense: approve is taken, with Expense (id), signed with env …`. */
export function explainWebhook(w: Webhook): string {
  const body =
    w.event.kind === 'schedule'
      ? 'the job and the time it fell due'
      : w.fields === null
        ? 'the whole record'
        : `${w.event.entity} (${w.fields.join(', ')})`;
  return `${w.method} to ${sourceWords(w.url)} ${eventWords(w.event)}, with ${body}, signed with env ${w.secretEnv}`;
}

/** E.g. `Job daily digest runs every day at 07:00 (cron 0 7 * * *), in the product's time zone`. */
export function explainSchedule(schedule: Schedule): string {
  const cron = schedule.every.trim() === schedule.cron ? '' : ` (cron ${schedule.cron})`;
  return `Job ${schedule.name} runs ${schedule.every}${cron}, in the product's time zone`;
}

/** Point 7's recurring jobs, notifications and calls to other systems, one sentence each. */
export function explainOutgoing(
  model: Pick<Model, 'notifications' | 'webhooks' | 'schedules'> & Partial<Pick<Model, 'hooks'>>,
): string[] {
  return [
    ...model.schedules.map(explainSchedule),
    ...model.notifications.map(explainNotification),
    ...model.webhooks.map(explainWebhook),
    ...(model.hooks ?? []).map(explainHook),
  ];
}

/** A module of point 7's Code, in a sentence. */
export function explainHook(hook: Hook): string {
  const module = `${hook.code.export === 'default' ? '' : `${hook.code.export} from `}${hook.code.file}`;
  const event = hook.event;
  const on =
    event.kind === 'schedule'
      ? `each time job ${event.job} falls due`
      : event.kind === 'transition'
        ? `${hook.moment} ${event.entity}: ${event.transition} is taken`
        : `${hook.moment} a ${event.entity} is ${event.kind}d`;
  const what =
    hook.moment === 'before'
      ? ', which may refuse the write'
      : hook.moment === 'after'
        ? ', once the write has committed'
        : '';
  return `The module ${module} runs ${on}${what}`;
}

/** Point 4's transitions that set fields as they are taken: `Expense: approve sets decided_by = user`. */
export function explainEffects(model: Pick<Model, 'machines'>): string[] {
  return model.machines.flatMap((machine) =>
    machine.transitions
      .filter((t) => (t.sets ?? []).length > 0)
      .map(
        (t) => `${machine.entity}: ${t.name} sets ${(t.sets ?? []).map((a) => `${a.field} = ${a.source}`).join(', ')}`,
      ),
  );
}
