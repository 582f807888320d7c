import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DATABASES } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { type SmtpCatcher, startSmtpCatcher } from '../../test/smtp-catcher.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import { mailSettingsFromEnv } from '../mail/mail-settings.ts';
import { smtpMailer } from '../mail/mailer.ts';

/** A desk whose requesters may not read a ticket's internal note, with one mail and one call declared. */
const SPEC = `# Specification: Desk

## 1. What the product does and for whom

Tickets.

## 2. Screens and routes

Not shown.

## 3. Entities and their fields

### Ticket

| field         | type      | rules    |
| ------------- | --------- | -------- |
| title         | text      | required |
| internal_note | text      |          |
| reporter      | User      | required |
| assignee      | User      |          |

## 4. States and transitions

### Ticket

| transition | from     | to       | who   |
| ---------- | -------- | -------- | ----- |
| open       | (new)    | new      |       |
| assign     | new      | assigned | agent |
| resolve    | assigned | resolved | agent |

## 5. Validation rules

Not shown.

## 6. Roles and permissions

| role      | Ticket                                  | people |
| --------- | --------------------------------------- | ------ |
| requester | create, read own except (internal_note) |        |
| agent     | all                                     | manage |

## 7. The calls it makes

### Notifications

| on              | to                 | subject               | text                                   |
| --------------- | ------------------ | --------------------- | -------------------------------------- |
| Ticket: assign  | assignee           | Assigned: {title}     | {title} is yours.                      |
| Ticket: resolve | reporter, assignee | Resolved: {title}     | {title} is resolved. Note: {internal_note} |

### Calls to other systems

| on              | url          | body                   | secret          |
| --------------- | ------------ | ---------------------- | --------------- |
| Ticket: resolve | env HOOK_URL | Ticket (id, title)     | env HOOK_SECRET |

## 8. The error catalogue

Not shown.

## 9. Business constants and limits

Not shown.
`;

const SECRET = `whsec_${Buffer.from('a test secret of thirty-two bytes').toString('base64')}`;

interface Received {
  headers: Record<string, string>;
  body: string;
  verified: unknown;
}

/** A real HTTP receiver that verifies every call with the `standardwebhooks` package. */
async function startReceiver(answer: () => number = () => 204) {
  const verifier = new Webhook(SECRET);
  const received: Received[] = [];
  const server: Server = createHttpServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      let verified: unknown;
      try {
        verified = verifier.verify(body, headers);
      } catch (error) {
        verified = error;
      }
      received.push({ headers, body, verified });
      res.statusCode = answer();
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function until<T>(find: () => T | undefined | Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

let smtp: SmtpCatcher;
beforeAll(async () => {
  smtp = await startSmtpCatcher();
});
afterAll(async () => {
  await smtp?.close();
});

// On PostgreSQL too: the outbox is a table each database keeps and hands out under its own locking.
describe.each(TEST_DATABASES)('notifications and signed calls on $name', (db) => {
  let server: NinepointServer;
  let remove: () => Promise<void>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let status = 204;
  const call = callAs(() => server);

  beforeAll(async () => {
    receiver = await startReceiver(() => status);
    const fresh = await db.fresh();
    remove = fresh.remove;
    const { smtp: settings, from } = mailSettingsFromEnv({
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Desk <desk@example.org>',
      APP_URL: 'http://desk.test',
    });
    if (!settings || !from) throw new Error('no SMTP settings');
    server = await createServer({
      model: modelOf(SPEC),
      ...fresh.options,
      logger: false,
      mail: { mailer: smtpMailer(settings, from), appUrl: () => 'http://desk.test' },
      outbox: {
        env: { HOOK_URL: receiver.url, HOOK_SECRET: SECRET, CALLS_ALLOW_PRIVATE: 'true' },
        timing: { baseDelayMs: 50, pollMs: 50 },
      },
    });
  });
  afterAll(async () => {
    await server?.close();
    await remove?.();
    await receiver?.close();
  });

  it('mails each recipient what they may read, signs the call, and lists both as delivered', async () => {
    const agent = await userWithToken(server, ['agent'], `agent-${db.name}@example.test`);
    const requester = await userWithToken(server, ['requester'], `req-${db.name}@example.test`);
    const created = await call(requester.authorization, 'POST', '/api/tickets', {
      title: 'Printer on fire',
      reporter: requester.user.id,
    });
    expect(created.status).toBe(201);
    const id = String(created.body.id);
    expect(
      (
        await call(agent.authorization, 'PATCH', `/api/tickets/${id}`, {
          internal_note: 'blame the toner',
          assignee: agent.user.id,
        })
      ).status,
    ).toBe(200);
    expect((await call(agent.authorization, 'POST', `/api/tickets/${id}/assign`, {})).status).toBe(200);
    const assigned = await smtp.next(agent.user.email);
    expect(assigned.subject).toBe('Assigned: Printer on fire');

    expect((await call(agent.authorization, 'POST', `/api/tickets/${id}/resolve`, {})).status).toBe(200);
    const toAgent = await smtp.next(agent.user.email);
    expect(toAgent.text).toContain('Note: blame the toner');
    // The reporter may not read the internal note: their mail never holds it.
    const toReporter = await smtp.next(requester.user.email);
    expect(toReporter.subject).toBe('Resolved: Printer on fire');
    expect(toReporter.text).toContain('Note: —');
    expect(toReporter.text).not.toContain('toner');

    const hook = await until(() => receiver.received.find((r) => r.body.includes(id)));
    expect(hook.verified).toMatchObject({
      type: 'ticket.resolve',
      entity: 'Ticket',
      record: { id, title: 'Printer on fire' },
      by: agent.user.id,
    });
    expect(hook.body).not.toContain('toner');
    expect(hook.headers['webhook-id']).toMatch(/^msg_/);

    // The in-app list: the reporter's one notification, without the note; marking it read.
    const list = await call(requester.authorization, 'GET', '/api/notifications');
    expect(list.body).toMatchObject({ unread: 1, items: [{ subject: 'Resolved: Printer on fire', read: false }] });
    expect(JSON.stringify(list.body)).not.toContain('toner');
    const first = (list.body.items as { id: string }[])[0] as { id: string };
    expect((await call(requester.authorization, 'POST', `/api/notifications/${first.id}/read`)).status).toBe(204);
    expect((await call(requester.authorization, 'GET', '/api/notifications')).body.unread).toBe(0);

    // Those who manage people see every delivery; others are refused.
    const deliveries = await until(async () => {
      const answer = await call(agent.authorization, 'GET', '/api/deliveries');
      const items = answer.body.items as { status: string }[];
      return items.length === 3 && items.every((d) => d.status === 'delivered') ? answer : undefined;
    });
    expect(deliveries.body.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'call',
          target: 'POST env HOOK_URL',
          attempts: 1,
          lastCode: 204,
          recordId: id,
        }),
        expect.objectContaining({ kind: 'mail', target: 'notify reporter, assignee', transition: 'resolve' }),
      ]),
    );
    expect((await call(requester.authorization, 'GET', '/api/deliveries')).status).toBe(403);
  });

  it('a tampered body or an old timestamp fails the receiver’s verification', async () => {
    const hook = await until(() => receiver.received.find((r) => r.verified && !(r.verified instanceof Error)));
    const verifier = new Webhook(SECRET);
    expect(() => verifier.verify(hook.body.replace('Printer', 'Scanner'), hook.headers)).toThrow();
    const old = String(Number(hook.headers['webhook-timestamp']) - 3600);
    expect(() => verifier.verify(hook.body, { ...hook.headers, 'webhook-timestamp': old })).toThrow();
  });

  it('retries a receiver answering 5xx with the same webhook-id until it takes the call', async () => {
    const agent = await userWithToken(server, ['agent']);
    status = 503;
    const created = await call(agent.authorization, 'POST', '/api/tickets', {
      title: 'Flaky finance',
      reporter: agent.user.id,
      assignee: agent.user.id,
    });
    const id = String(created.body.id);
    await call(agent.authorization, 'POST', `/api/tickets/${id}/assign`, {});
    await call(agent.authorization, 'POST', `/api/tickets/${id}/resolve`, {});
    await until(() => (receiver.received.filter((r) => r.body.includes(id)).length >= 2 ? true : undefined));
    status = 204;
    const attempts = await until(() => {
      const all = receiver.received.filter((r) => r.body.includes(id));
      return all.length >= 3 ? all : undefined;
    });
    expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
    for (const a of attempts) expect(a.verified).not.toBeInstanceOf(Error);
  });

  it('sends nothing for a write that is refused', async () => {
    const agent = await userWithToken(server, ['agent']);
    const before = receiver.received.length;
    const created = await call(agent.authorization, 'POST', '/api/tickets', {
      title: 'Never resolved',
      reporter: agent.user.id,
    });
    // Resolving a ticket that is not assigned is refused: its transaction writes no delivery.
    expect((await call(agent.authorization, 'POST', `/api/tickets/${created.body.id}/resolve`, {})).status).toBe(409);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received.length).toBe(before);
    const { body } = await call(agent.authorization, 'GET', '/api/deliveries');
    expect((body.items as { recordId: string }[]).some((d) => d.recordId === created.body.id)).toBe(false);
  });
});

describe('a call that keeps failing', () => {
  it('is marked dead after the retry window and kept; Retry now delivers it once the receiver answers', async () => {
    let status = 500;
    const receiver = await startReceiver(() => status);
    const fresh = await (TEST_DATABASES[0] as (typeof TEST_DATABASES)[number]).fresh();
    const spec = SPEC.replace(
      /## 9\. Business constants and limits\n\nNot shown\./,
      '## 9. Business constants and limits\n\n| name | value |\n| ---- | ----- |\n| CALLS_RETRY_HOURS | 0 |',
    );
    const server = await createServer({
      model: modelOf(spec),
      ...fresh.options,
      logger: false,
      outbox: {
        env: { HOOK_URL: receiver.url, HOOK_SECRET: SECRET, CALLS_ALLOW_PRIVATE: 'true' },
        timing: { pollMs: 50 },
      },
    });
    try {
      const call = callAs(() => server);
      const agent = await userWithToken(server, ['agent']);
      const created = await call(agent.authorization, 'POST', '/api/tickets', {
        title: 'Dead letter',
        reporter: agent.user.id,
        assignee: agent.user.id,
      });
      const id = String(created.body.id);
      await call(agent.authorization, 'POST', `/api/tickets/${id}/assign`, {});
      await call(agent.authorization, 'POST', `/api/tickets/${id}/resolve`, {});
      type Row = {
        id: string;
        kind: string;
        status: string;
        attempts: number;
        lastCode: number | null;
        nextAt: string | null;
      };
      const dead = await until(async () => {
        const items = (await call(agent.authorization, 'GET', '/api/deliveries?status=dead')).body.items as Row[];
        return items.find((d) => d.kind === 'call');
      });
      expect(dead).toMatchObject({ attempts: 1, lastCode: 500, nextAt: null });
      status = 204;
      const retried = await call(agent.authorization, 'POST', `/api/deliveries/${dead.id}/retry`);
      expect(retried.status).toBe(200);
      expect(retried.body.status).toBe('pending');
      const delivered = await until(async () => {
        const items = (await call(agent.authorization, 'GET', '/api/deliveries?status=delivered')).body.items as Row[];
        return items.find((d) => d.id === dead.id);
      });
      expect(delivered).toMatchObject({ attempts: 2, lastCode: 204 });
      const ids = receiver.received.filter((r) => r.body.includes(id)).map((r) => r.headers['webhook-id']);
      expect(ids).toHaveLength(2);
      expect(new Set(ids).size).toBe(1);
      expect((await call(agent.authorization, 'POST', `/api/deliveries/${dead.id}/retry`)).status).toBe(409);
    } finally {
      await server.close();
      await fresh.remove();
      await receiver.close();
    }
  });
});
