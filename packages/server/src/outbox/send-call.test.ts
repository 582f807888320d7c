import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isPrivateAddress } from './address-guard.ts';
import { callConnections, type OutgoingCall, sendCall } from './send-call.ts';

let server: Server | null = null;
const connections = { guarded: await callConnections(false), open: await callConnections(true) };
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});
afterAll(async () => {
  await connections.guarded.close();
  await connections.open.close();
});

/** A receiver on loopback answering as `handle` says. */
async function receiver(handle: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handle);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

const call = (url: string, more: Partial<OutgoingCall> = {}): Promise<Awaited<ReturnType<typeof sendCall>>> => {
  const allowPrivate = more.allowPrivate ?? true;
  return sendCall(
    {
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      timeoutMs: 1000,
      allowPrivate,
      ...more,
    },
    allowPrivate ? connections.open : connections.guarded,
  );
};

describe('a call to another system', () => {
  it('is delivered on a 2xx answer', async () => {
    const url = await receiver((_req, res) => res.writeHead(202).end());
    expect(await call(url)).toEqual({ ok: true, status: 202, error: null });
  });

  it('fails, to be tried again, on a 5xx, a redirect, a timeout and a closed connection', async () => {
    expect(await call(await receiver((_req, res) => res.writeHead(503).end()))).toMatchObject({
      ok: false,
      status: 503,
    });
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    const redirect = await call(
      await receiver((_req, res) => res.writeHead(302, { location: 'http://example.com/' }).end()),
    );
    expect(redirect).toMatchObject({ ok: false, status: 302, error: 'a redirect, which is not followed' });
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    const slow = await call(await receiver(() => {}), { timeoutMs: 200 });
    expect(slow).toMatchObject({ ok: false, status: null, error: 'no answer within 200 ms' });
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    const closed = await call(await receiver((req) => req.socket.destroy()));
    expect(closed).toMatchObject({ ok: false, status: null });
    expect(closed.error).toMatch(/other side closed|socket hang up|ECONNRESET/);
  });

  it('refuses loopback, private and link-local addresses, and names resolving to them, unless allowed', async () => {
    const url = await receiver((_req, res) => res.writeHead(204).end());
    const refused = await call(url, { allowPrivate: false });
    expect(refused).toMatchObject({ ok: false, status: null });
    expect(refused.error).toContain('private address');
    const port = new URL(url).port;
    const byName = await call(`http://localhost:${port}/hook`, { allowPrivate: false });
    expect(byName.error).toContain('localhost is a private address');
    expect(await call(`http://localhost:${port}/hook`, { allowPrivate: true })).toMatchObject({ ok: true });
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:10.0.0.1',
      '0.0.0.0',
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '2606:2800:220:1::1', '8.8.8.8'])
      expect(isPrivateAddress(address), address).toBe(false);
  });
});
