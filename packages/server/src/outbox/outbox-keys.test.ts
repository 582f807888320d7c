import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { TEST_DATABASES } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

const SECRET = `whsec_${Buffer.from('a test secret of thirty-two bytes').toString('base64')}`;

/** A desk calling out on assign (the record's id) and on resolve (its id and title). */
function spec(calls: string[]): string {
  return `# Specification: Desk

## 1. What the product does and for whom

Tickets.

## 3. Entities and their fields

### Ticket

| field    | type | rules    |
| -------- | ---- | -------- |
| title    | text | required |
| assignee | User |          |

## 4. States and transitions

### Ticket

| transition | from     | to       | who   |
| ---------- | -------- | -------- | ----- |
| open       | (new)    | new      |       |
| assign     | new      | assigned | agent |
| resolve    | assigned | resolved | agent |

## 6. Roles and permissions

| role  | Ticket | people |
| ----- | ------ | ------ |
| agent | all    | manage |

## 7. The calls it makes

### Calls to other systems

| on | url | body | secret |
| -- | --- | ---- | ------ |
${calls.join('\n')}
`;
}

const ASSIGN = '| Ticket: assign  | env HOOK_URL | Ticket (id)        | env HOOK_SECRET |';
const ASSIGN_CHANGED = '| Ticket: assign  | env HOOK_URL | Ticket (id, assignee) | env HOOK_SECRET |';
const RESOLVE = '| Ticket: resolve | env HOOK_URL | Ticket (id, title) | env HOOK_SECRET |';

async function until<T>(find: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

type Row = { id: string; transition: string | null; status: string; lastCode: number | null; lastError: string | null };

describe.each(TEST_DATABASES)('deliveries keyed by declaration on $name', (db) => {
  it('delivers the declared call after point 7 is reordered, and marks dead one whose declaration changed', async () => {
    let status = 500;
    const bodies: string[] = [];
    const receiver: Server = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        bodies.push(body);
        res.statusCode = status;
        res.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const env = {
      HOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
      HOOK_SECRET: SECRET,
      CALLS_ALLOW_PRIVATE: 'true',
    };
    const fresh = await db.fresh();
    const start = (calls: string[]) =>
      createServer({
        model: modelOf(spec(calls)),
        ...fresh.options,
        logger: false,
        // The first failure waits an hour: the deliveries stay pending across the restart.
        outbox: { env, timing: { baseDelayMs: 3_600_000, pollMs: 50 } },
      });
    let server: NinepointServer = await start([ASSIGN, RESOLVE]);
    try {
      let call = callAs(() => server);
      const agent = await userWithToken(server, ['agent']);
      const created = await call(agent.authorization, 'POST', '/api/tickets', {
        title: 'Printer on fire',
        assignee: agent.user.id,
      });
      const id = String(created.body.id);
      await call(agent.authorization, 'POST', `/api/tickets/${id}/assign`, {});
      await call(agent.authorization, 'POST', `/api/tickets/${id}/resolve`, {});
      const failed = await until(async () => {
        const items = (await call(agent.authorization, 'GET', '/api/deliveries')).body.items as Row[];
        return items.length === 2 && items.every((d) => d.lastCode === 500) ? items : undefined;
      });
      await server.close();

      // Reordered, and the assign call now sends another body: its deliveries are not its own.
      server = await start([RESOLVE, ASSIGN_CHANGED]);
      call = callAs(() => server);
      status = 204;
      bodies.length = 0;
      for (const d of failed) await call(agent.authorization, 'POST', `/api/deliveries/${d.id}/retry`);
      const settled = await until(async () => {
        const items = (await call(agent.authorization, 'GET', '/api/deliveries')).body.items as Row[];
        return items.every((d) => d.status !== 'pending') ? items : undefined;
      });
      const resolve = settled.find((d) => d.transition === 'resolve');
      const assign = settled.find((d) => d.transition === 'assign');
      expect(resolve).toMatchObject({ status: 'delivered', lastCode: 204 });
      expect(assign?.status).toBe('dead');
      expect(assign?.lastError).toMatch(/no longer in the spec/);
      expect(bodies).toHaveLength(1);
      const sent = JSON.parse(bodies[0] as string) as { type: string; record: Record<string, unknown> };
      expect(sent.type).toBe('ticket.resolve');
      expect(sent.record).toEqual({ id, title: 'Printer on fire' });
    } finally {
      await server.close();
      await fresh.remove();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
