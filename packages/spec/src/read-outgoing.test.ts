import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { effectiveCalls } from './derive-calls.ts';

const HELPDESK = readFileSync(new URL('../../../examples/helpdesk.md', import.meta.url), 'utf8');

/** The helpdesk with this Markdown as point 7 and these lines added to point 9's table. */
function withOutgoing(point7: string, constants = '') {
  let source = HELPDESK.replace(
    /## 7\. The calls it makes\n[\s\S]*?(?=\n## 8\.)/,
    `## 7. The calls it makes\n\n${point7}\n`,
  );
  if (constants) source = source.replace(/(\| RATE_LIMIT_PER_MINUTE .*\n)/, `$1${constants}\n`);
  expect(source).not.toBe(HELPDESK);
  return checkSpec(source);
}

const notifications = (rows: string) =>
  `### Notifications\n\n| on | to | subject | text |\n| -- | -- | ------- | ---- |\n${rows}`;
const calls = (rows: string) =>
  `### Calls to other systems\n\n| on | method | url | body | secret |\n| -- | ------ | --- | ---- | ------ |\n${rows}`;

function codes(result: ReturnType<typeof checkSpec>) {
  return result.diagnostics.map((d) => [d.code, d.message, d.hint ?? '']);
}

describe('notifications and calls to other systems (point 7)', () => {
  it('reads the helpdesk example: the assignee on assign, the reporter on resolve, with the API derived', () => {
    const result = checkSpec(HELPDESK);
    expect(result.diagnostics).toEqual([]);
    expect(result.model.notifications.map((n) => [n.event, n.to])).toEqual([
      [{ kind: 'transition', entity: 'Ticket', transition: 'assign' }, [{ kind: 'field', path: ['assignee'] }]],
      [{ kind: 'transition', entity: 'Ticket', transition: 'resolve' }, [{ kind: 'field', path: ['reporter'] }]],
    ]);
    expect(result.model.calls).toEqual([]);
    expect(effectiveCalls(result.model).some((c) => c.path === '/api/tickets/:id/assign')).toBe(true);
  });

  it('reads every kind of recipient and a webhook with listed fields', () => {
    const result = withOutgoing(
      `${notifications(
        '| create Ticket | every lead, DESK_EMAIL, env OPS_EMAIL, created_by | New: {title} | {description} from {user} |',
      )}\n\n${calls('| Ticket: close | PUT | DESK_HOOK | Ticket (id, title, state) | env DESK_HOOK_SECRET |\n| delete Ticket | | env HOOK_URL | | env HOOK_SECRET |')}`,
      '| DESK_EMAIL | "desk@example.com" | |\n| DESK_HOOK | "https://desk.example.com/hooks" | |',
    );
    expect(codes(result)).toEqual([]);
    expect(result.model.notifications[0]?.to).toEqual([
      { kind: 'role', role: 'lead' },
      { kind: 'address', source: { kind: 'constant', name: 'DESK_EMAIL' } },
      { kind: 'address', source: { kind: 'env', name: 'OPS_EMAIL' } },
      { kind: 'field', path: ['created_by'] },
    ]);
    expect(result.model.webhooks).toMatchObject([
      {
        method: 'PUT',
        url: { kind: 'constant', name: 'DESK_HOOK' },
        fields: ['id', 'title', 'state'],
        secretEnv: 'DESK_HOOK_SECRET',
      },
      {
        method: 'POST',
        url: { kind: 'env', name: 'HOOK_URL' },
        fields: null,
        event: { kind: 'delete', entity: 'Ticket' },
      },
    ]);
  });

  it('refuses a notification to a field that is not a User, with a hint', () => {
    const result = withOutgoing(notifications('| create Ticket | notify | New | {title} |'));
    expect(result.ok).toBe(false);
    const [d] = result.diagnostics;
    expect(d).toMatchObject({ code: 'invalid-recipient', severity: 'error' });
    expect(d?.message).toContain('"notify", which is not a User');
    expect(d?.hint).toContain('doctor.account');
  });

  it('refuses a reference chain that does not end in a User', () => {
    const source = HELPDESK.replace(
      '| resolution  | long text',
      '| article     | Article                                              |                                      |                                              |\n| resolution  | long text',
    );
    const spec = source.replace(
      /## 7\. The calls it makes\n[\s\S]*?(?=\n## 8\.)/,
      `## 7. The calls it makes\n\n${notifications('| create Ticket | article | New | {title} |')}\n`,
    );
    const result = checkSpec(spec);
    const d = result.diagnostics.find((x) => x.code === 'invalid-recipient');
    expect(d?.message).toContain('refers to Article');
    expect(d?.hint).toContain('article.account');
  });

  it('refuses a placeholder naming an unknown field, suggesting the field meant', () => {
    const result = withOutgoing(notifications('| Ticket: assign | assignee | Yours: {titl} | {title} |'));
    const d = result.diagnostics.find((x) => x.code === 'unknown-placeholder');
    expect(d?.message).toContain('{titl}');
    expect(d?.expected).toContain('title');
    expect(d?.hint).toContain('Placeholders name a field of Ticket');
  });

  it('refuses a URL constant that is not an absolute http(s) URL', () => {
    for (const value of ['"/hooks/finance"', '"ftp://example.com/x"', '42']) {
      const result = withOutgoing(
        calls('| create Ticket | POST | DESK_HOOK | | env S |'),
        `| DESK_HOOK | ${value} | |`,
      );
      const d = result.diagnostics.find((x) => x.code === 'invalid-webhook');
      expect(d?.message, value).toContain('not an absolute http(s) URL');
      expect(d?.hint).toContain('env NAME');
    }
  });

  it('refuses a secret written into the spec, pointing to the environment', () => {
    for (const secret of ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'DESK_SECRET']) {
      const result = withOutgoing(
        calls(`| create Ticket | POST | env URL | | ${secret} |`),
        '| DESK_SECRET | "whsec_abc" | |',
      );
      const d = result.diagnostics.find((x) => x.code === 'secret-in-spec');
      expect(d?.severity, secret).toBe('error');
      expect(d?.hint).toContain('env FINANCE_WEBHOOK_SECRET');
    }
  });

  it('refuses an event that is not one, a transition the entity lacks, and a method a call cannot send', () => {
    const result = withOutgoing(
      `${notifications('| archive Ticket | assignee | x | y |\n| Ticket: asign | assignee | x | y |')}\n\n${calls('| create Ticket | GET | env URL | | env S |')}`,
    );
    expect(result.diagnostics.map((d) => d.code).sort()).toEqual([
      'invalid-event',
      'invalid-webhook',
      'unknown-transition',
    ]);
    expect(result.diagnostics.find((d) => d.code === 'unknown-transition')?.expected).toContain('assign');
  });

  it('refuses a body naming a field the entity lacks', () => {
    const result = withOutgoing(calls('| create Ticket | POST | env URL | Ticket (id, titel) | env S |'));
    expect(result.diagnostics.map((d) => d.code)).toEqual(['unknown-field']);
  });

  const schedules = (rows: string) => `### Schedules\n\n| job | every |\n| --- | ----- |\n${rows}`;

  it('reads schedules in words and cron, and a call on a job falling due', () => {
    const result = withOutgoing(
      `${schedules('| daily digest | every day at 07:00 |\n| weekly report | 0 9 * * 1 |')}\n\n${calls('| schedule daily digest | POST | env DIGEST_URL | | env DIGEST_SECRET |')}`,
    );
    expect(codes(result)).toEqual([]);
    expect(result.model.schedules.map((s) => [s.name, s.cron])).toEqual([
      ['daily digest', '0 7 * * *'],
      ['weekly report', '0 9 * * 1'],
    ]);
    expect(result.model.webhooks.map((w) => w.event)).toEqual([{ kind: 'schedule', job: 'daily digest' }]);
  });

  it('refuses a schedule that does not parse, a job declared twice and a call on an unknown job, with hints', () => {
    const result = withOutgoing(
      `${schedules('| digest | every night at 07:00 |\n| report | 61 * * * * |\n| export | every hour |\n| export | every day at 01:00 |')}\n\n${calls('| schedule exports | POST | env X_URL | | env X_SECRET |\n| schedule export | POST | env X_URL | id | env X_SECRET |')}`,
    );
    const found = result.diagnostics.filter((d) => d.code === 'invalid-schedule' || d.code === 'invalid-webhook');
    expect(found.map((d) => d.message)).toEqual([
      'The job "digest" runs "every night at 07:00" is not a schedule in words.',
      'The job "report" runs "61 * * * *" is not a cron pattern (CronPattern: Invalid value for minute: 61).',
      'The job "export" is declared twice.',
      'The call on "schedule exports" names job "exports", which point 7\'s Schedules do not declare.',
      'The call on "schedule export" sends no record, so it lists no fields.',
    ]);
    expect(found.every((d) => (d.hint ?? '') !== '')).toBe(true);
    expect(found[3]?.expected).toEqual(['export']);
  });
});
