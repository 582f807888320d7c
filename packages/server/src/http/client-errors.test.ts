import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertRowBefore, LENDING_DESK, type ListeningServer, listeningServer } from '../../test/helpers.ts';
import { problemOf, rawExchange } from '../../test/raw-http.ts';

// Found by e2e/reliability/bad-input.test.ts: Node's parser errors were answered by Fastify with
// an uncatalogued JSON body, and a client trickling a body was never cut off (Fastify sets no
// request timeout; Node's headers timeout was 60 s, checked every 30 s).
describe('connections the HTTP parser refuses', () => {
  let served: ListeningServer;
  let port: number;

  beforeAll(async () => {
    served = await listeningServer(insertRowBefore(LENDING_DESK, ['MAX_LOANS'], '| REQUEST_TIMEOUT_SECONDS | 1 | |'));
    port = served.port;
  });
  afterAll(() => served.close());

  it('answers headers over 16 KiB with a catalogued INVALID_PAYLOAD problem, and closes the connection', async () => {
    const { text, closedByServer } = await rawExchange(
      port,
      `GET /api/books HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(text).toContain('Content-Type: application/problem+json; charset=utf-8');
    expect(text).toContain('Referrer-Policy: strict-origin-when-cross-origin\r\n');
    expect(problemOf(text)).toMatchObject({
      code: 'INVALID_PAYLOAD',
      status: 400,
      detail: 'The request is not valid: its request line and headers are larger than 16384 bytes.',
    });
    expect(closedByServer).toBe(true);
  });

  it('answers malformed HTTP with the same problem', async () => {
    const { text } = await rawExchange(port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(problemOf(text)).toMatchObject({ code: 'INVALID_PAYLOAD', detail: expect.stringContaining('HTTP/1.1') });
  });

  it('cuts off a request whose body has not arrived within REQUEST_TIMEOUT_SECONDS', async () => {
    const { text, ms, closedByServer } = await rawExchange(
      port,
      'POST /api/books HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"ti',
    );
    expect(closedByServer).toBe(true);
    // 1 s, checked once a second.
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(ms).toBeLessThan(3500);
    expect(problemOf(text)).toMatchObject({
      code: 'INVALID_PAYLOAD',
      detail: 'The request is not valid: it did not arrive within REQUEST_TIMEOUT_SECONDS (1 s).',
    });
  });
});
