import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { addUser, createApiToken, createServer } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { runIn, tempDir } from '../test-support.ts';

const SPEC = `# Specification: Notes

## 1. What the product does and for whom

Notes.

## 2. Screens and routes

Not shown.

## 3. Entities and their fields

### Note

| field | type | rules    |
| ----- | ---- | -------- |
| title | text | required |

## 4. States and transitions

Not shown.

## 5. Validation rules

Not shown.

## 6. Roles and permissions

Not shown.

## 7. The calls it makes

### Calls to other systems

| on          | url          | secret          |
| ----------- | ------------ | --------------- |
| create Note | env HOOK_URL | env HOOK_SECRET |

## 8. The error catalogue

Not shown.

## 9. Business constants and limits

Not shown.
`;

describe('ninepoint deliveries', () => {
  it('lists a call that failed with its attempts and last answer, and makes it due again with --retry', async () => {
    const receiver = createHttpServer((_req, res) => {
      res.statusCode = 503;
      res.end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
    const dir = tempDir({ 'spec.md': SPEC });
    const server = await createServer({
      model: checkSpec(SPEC).model,
      dbPath: join(dir, 'ninepoint.db'),
      logger: false,
      outbox: {
        env: {
          HOOK_URL: url,
          HOOK_SECRET: `whsec_${Buffer.from('sixteen bytes at least').toString('base64')}`,
          CALLS_ALLOW_PRIVATE: 'true',
        },
        timing: { baseDelayMs: 3_600_000, pollMs: 50 },
      },
    });
    try {
      const { auth } = server;
      await addUser(auth, { email: 'ada@example.org', roles: [], password: 'correct horse battery staple' }, []);
      const { secret } = await createApiToken(auth, 'ada@example.org', 'test');
      const created = await server.app.inject({
        method: 'POST',
        url: '/api/notes',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ title: 'Hello' }),
      });
      expect(created.statusCode).toBe(201);
      for (let i = 0; i < 100; i++) {
        const listed = await server.app.inject({
          method: 'GET',
          url: '/api/deliveries',
          headers: { authorization: `Bearer ${secret}` },
        });
        if ((listed.json().items as { attempts: number; lastCode: number | null }[])[0]?.lastCode === 503) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await server.close();
      receiver.close();
    }
    const listed = await runIn(dir, ['deliveries', 'spec.md', '--json']);
    expect(listed.code).toBe(0);
    const [delivery] = (JSON.parse(listed.stdout) as { deliveries: Record<string, unknown>[] }).deliveries;
    expect(delivery).toMatchObject({
      kind: 'call',
      target: 'POST env HOOK_URL',
      status: 'pending',
      attempts: 1,
      lastCode: 503,
    });
    const table = await runIn(dir, ['deliveries', 'spec.md']);
    expect(table.stdout).toMatch(/call\s+POST env HOOK_URL\s+Note create \S+\s+pending\s+1\s+503 at/);
    expect((await runIn(dir, ['deliveries', 'spec.md', '--status', 'dead'])).stdout).toMatch(/^No deliveries dead in /);
    const retried = await runIn(dir, ['deliveries', 'spec.md', '--retry', String(delivery?.id)]);
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain('is due now');
    expect((await runIn(dir, ['deliveries', 'spec.md', '--retry', 'nope'])).code).toBe(1);
  });
});
