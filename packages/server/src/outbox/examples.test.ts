import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_ONLY } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { type SmtpCatcher, startSmtpCatcher } from '../../test/smtp-catcher.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import { mailSettingsFromEnv } from '../mail/mail-settings.ts';
import { smtpMailer } from '../mail/mailer.ts';

const HELPDESK = readFileSync(new URL('../../../../examples/helpdesk.md', import.meta.url), 'utf8');

let smtp: SmtpCatcher;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
});
afterAll(async () => {
  await smtp?.close();
});

describe.each(SQLITE_ONLY)('the helpdesk example’s mails on $name', (db) => {
  let server: NinepointServer;
  let remove: () => Promise<void>;
  const call = callAs(() => server);

  beforeAll(async () => {
    const fresh = await db.fresh();
    remove = fresh.remove;
    const { smtp: settings, from } = mailSettingsFromEnv({
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Service desk <desk@example.org>',
      APP_URL: 'http://desk.test',
    });
    if (!settings || !from) throw new Error('no SMTP settings');
    server = await createServer({
      model: modelOf(HELPDESK),
      ...fresh.options,
      logger: false,
      mail: { mailer: smtpMailer(settings, from), appUrl: () => 'http://desk.test' },
      outbox: { env: {}, timing: { baseDelayMs: 50, pollMs: 50 } },
    });
  });
  afterAll(async () => {
    await server?.close();
    await remove?.();
  });

  it('mails the assignee when a ticket is assigned to them, and the reporter when it is resolved', async () => {
    const agent = await userWithToken(server, ['agent'], `agent-${db.name}@example.test`);
    const reporter = await userWithToken(server, ['requester'], `reporter-${db.name}@example.test`);
    const opened = await call(reporter.authorization, 'POST', '/api/tickets', {
      title: 'VPN drops every hour',
      description: 'It disconnects at :00.',
      reporter: reporter.user.id,
    });
    expect(opened.status).toBe(201);
    const id = String(opened.body.id);
    expect((await call(agent.authorization, 'PATCH', `/api/tickets/${id}`, { assignee: agent.user.id })).status).toBe(
      200,
    );
    expect((await call(agent.authorization, 'POST', `/api/tickets/${id}/assign`, {})).status).toBe(200);
    const assigned = await smtp.next(agent.user.email);
    expect(assigned.subject).toBe('Ticket assigned to you: VPN drops every hour');
    expect(assigned.text).toContain('"VPN drops every hour" (normal) is yours.');

    expect((await call(agent.authorization, 'POST', `/api/tickets/${id}/start`, {})).status).toBe(200);
    const resolution = 'Replaced the VPN client with version 5.2.';
    expect((await call(agent.authorization, 'PATCH', `/api/tickets/${id}`, { resolution })).status).toBe(200);
    expect((await call(agent.authorization, 'POST', `/api/tickets/${id}/resolve`, {})).status).toBe(200);
    const resolved = await smtp.next(reporter.user.email);
    expect(resolved.subject).toBe('Your ticket is resolved: VPN drops every hour');
    expect(resolved.text).toContain(resolution);
    expect(resolved.text).toContain('Reopen it within 14 days');
    // Nobody else was told: the reporter is not mailed on assign, the agent not on resolve.
    expect(await smtp.arrives(agent.user.email, 300)).toBe(false);
    const bell = await call(reporter.authorization, 'GET', '/api/notifications');
    expect(bell.body).toMatchObject({
      unread: 1,
      items: [{ subject: 'Your ticket is resolved: VPN drops every hour' }],
    });
  });
});
