import { Writable } from 'node:stream';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blankModel, insertRowBefore, LENDING_DESK, modelOf, tempDir } from '../../test/helpers.ts';
import { SYSTEM_PATHS } from '../../test/system-paths.ts';
import { userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from './server.ts';

/** A pino logger whose JSON lines are kept for the test to read. */
function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

async function start(model = blankModel()) {
  const temp = tempDir();
  const { logger, lines } = capturedLogger();
  const server = await createServer({ model, dbPath: temp.dbPath, logger });
  return { server, lines, temp };
}

async function problemOf(response: Response) {
  expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  return (await response.json()) as Record<string, unknown>;
}

describe('the blank spec over HTTP', () => {
  let server: NinepointServer;
  let url: string;
  let lines: Record<string, unknown>[];
  let remove: () => void;

  beforeAll(async () => {
    const started = await start();
    server = started.server;
    lines = started.lines;
    remove = started.temp.remove;
    // A handler that fails the way a bug would, to see what reaches the client.
    server.app.get('/api/_test/fail', async () => {
      throw new Error('SELECT secret FROM users WHERE 1 -- at db.ts:42');
    });
    url = await server.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await server.close();
    remove();
  });

  it('listens on loopback at the port it was given', () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toMatch(/:0$/);
  });

  it('answers health', async () => {
    const response = await fetch(`${url}/api/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ status: 'ok', spec: 'New product', database: 'sqlite' });
  });

  it('answers the model as JSON', async () => {
    const response = await fetch(`${url}/api/spec`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(blankModel());
  });

  it('answers an OpenAPI 3.1 document with no entity paths', async () => {
    const response = await fetch(`${url}/api/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(document.paths)).toEqual([...SYSTEM_PATHS]);
    expect(document).toEqual(server.compiled.openapi);
  });

  it.each([
    ['GET', '/nowhere'],
    ['GET', '/api'],
    ['GET', '/api/books'],
    ['GET', '/api/health/'],
    ['GET', '/API/HEALTH'],
    ['POST', '/api/health'],
    ['DELETE', '/api/spec'],
    ['PUT', '/api/openapi.json'],
    ['PATCH', '/api/things/1'],
    ['OPTIONS', '/api/health'],
    ['GET', '/api/things?filter=x'],
    ['GET', '/%2e%2e/etc/passwd'],
  ])('answers %s %s with the catalogued UNKNOWN_CALL', async (method, path) => {
    const response = await fetch(`${url}${path}`, { method });
    expect(response.status).toBe(404);
    const problem = await problemOf(response);
    expect(problem).toEqual({
      type: 'urn:ninepoint:problem:UNKNOWN_CALL',
      title: 'Unknown call',
      status: 404,
      detail: 'There is no such call.',
      code: 'UNKNOWN_CALL',
      instance: new URL(path, url).pathname,
      requestId: response.headers.get('x-request-id'),
    });
  });

  it('answers an undecodable URL with UNKNOWN_CALL', async () => {
    const response = await fetch(`${url}/api/%E0%A4%A`);
    expect(response.status).toBe(404);
    expect((await problemOf(response)).code).toBe('UNKNOWN_CALL');
  });

  it('answers a malformed JSON body with INVALID_PAYLOAD', async () => {
    for (const body of ['{"title": ', 'not json', '{"__proto__": {"admin": true}}']) {
      const response = await fetch(`${url}/api/books`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(response.status).toBe(400);
      const problem = await problemOf(response);
      expect(problem).toMatchObject({
        code: 'INVALID_PAYLOAD',
        status: 400,
        title: 'Invalid payload',
        detail: 'The request is not valid: the body is not valid JSON.',
      });
    }
    const empty = await fetch(`${url}/api/books`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(400);
    expect((await problemOf(empty)).code).toBe('INVALID_PAYLOAD');
  });

  it('answers a body over MAX_BODY_BYTES with PAYLOAD_TOO_LARGE', async () => {
    const limit = server.compiled.settings.MAX_BODY_BYTES;
    const response = await fetch(`${url}/api/books`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'x'.repeat(limit) }),
    });
    expect(response.status).toBe(413);
    expect(await problemOf(response)).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      detail: `The request body is larger than ${limit} bytes.`,
    });
  });

  it('answers an unexpected error with INTERNAL_ERROR, logging it but telling nothing', async () => {
    const response = await fetch(`${url}/api/_test/fail`, { headers: { 'x-request-id': 'trace-500' } });
    expect(response.status).toBe(500);
    const text = await response.clone().text();
    expect(text).not.toMatch(/SELECT|secret|db\.ts|Error|at /);
    expect(await problemOf(response)).toEqual({
      type: 'urn:ninepoint:problem:INTERNAL_ERROR',
      title: 'Internal error',
      status: 500,
      detail: 'Something went wrong on our side. It has been logged.',
      code: 'INTERNAL_ERROR',
      instance: '/api/_test/fail',
      requestId: 'trace-500',
    });
    const logged = lines.find((l) => l.reqId === 'trace-500' && l.level === 50) as { err?: { stack?: string } };
    expect(logged?.err?.stack).toContain('SELECT secret');
  });

  it('gives each request an id, echoes it, and logs with it', async () => {
    const a = await fetch(`${url}/api/health`);
    const b = await fetch(`${url}/api/health`);
    const idA = a.headers.get('x-request-id');
    expect(idA).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.headers.get('x-request-id')).not.toBe(idA);
    const given = await fetch(`${url}/api/health`, { headers: { 'x-request-id': 'edge-1234' } });
    expect(given.headers.get('x-request-id')).toBe('edge-1234');
    // An id that could forge a log line or header is replaced.
    const forged = await fetch(`${url}/api/health`, { headers: { 'x-request-id': 'a b"}\t{' } });
    expect(forged.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    // One line per request, written when it is answered.
    expect(lines.filter((l) => l.reqId === idA)).toEqual([
      expect.objectContaining({
        msg: 'request completed',
        req: expect.objectContaining({ method: 'GET', url: '/api/health' }),
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
      }),
    ]);
    expect(lines.filter((l) => l.reqId === 'edge-1234').map((l) => l.msg)).toEqual(['request completed']);
  });

  it('answers any other method and path with UNKNOWN_CALL, and any body with a catalogued 4xx', async () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9._~%-]{1,12}$/);
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'SEARCH');
    const body = fc.option(fc.oneof(fc.json(), fc.string()), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(method, fc.array(segment, { maxLength: 5 }), body, async (m, segments, payload) => {
        const path = `/${segments.join('/')}`;
        if (m === 'GET' || m === 'HEAD')
          // As the URL resolves it: `/.` is the home page.
          fc.pre(
            !['/api/health', '/api/spec', '/api/openapi.json', '/api/docs', '/api/auth/me', '/', '/sign-in'].includes(
              new URL(path, 'http://localhost').pathname,
            ),
          );
        const withBody = payload !== undefined && !['GET', 'HEAD'].includes(m);
        const response = await server.app.inject({
          method: m as 'GET',
          url: path,
          ...(withBody ? { headers: { 'content-type': 'application/json' }, payload } : {}),
        });
        expect(response.statusCode).toBeGreaterThanOrEqual(400);
        expect(response.statusCode).toBeLessThan(500);
        if (m === 'HEAD') return;
        expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
        const problem = response.json() as { code: string; status: number };
        expect(problem.status).toBe(response.statusCode);
        expect(['UNKNOWN_CALL', 'INVALID_PAYLOAD']).toContain(problem.code);
      }),
      { numRuns: 300 },
    );
  });

  it('tells browsers not to sniff content types', async () => {
    const response = await fetch(`${url}/api/nothing`);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('sends a Referrer-Policy on every answer, and no HSTS over plain HTTP', async () => {
    for (const [path, headers] of [
      ['/api/health', {}],
      ['/api/nothing', {}],
      ['/api/openapi.json', {}],
      ['/', { accept: 'text/html' }],
      ['/no-such-page', { accept: 'text/html' }],
    ] as const) {
      const response = await fetch(`${url}${path}`, { headers });
      expect(response.headers.get('referrer-policy'), path).toBe('strict-origin-when-cross-origin');
      expect(response.headers.get('strict-transport-security'), path).toBeNull();
    }
    // The API reference page keeps its own, stricter policy (api-docs.ts).
    expect((await fetch(`${url}/api/docs`)).headers.get('referrer-policy')).toBe('no-referrer');
  });
});

describe('a spec with entities over HTTP', () => {
  it('serves exactly its declared calls, transitions included', async () => {
    const { server, temp } = await start(modelOf(LENDING_DESK));
    try {
      const url = await server.listen({ port: 0 });
      const document = (await (await fetch(`${url}/api/openapi.json`)).json()) as { paths: Record<string, unknown> };
      // The import sits beside the declared create call: it makes the same creates.
      expect(Object.keys(document.paths)).toEqual([
        ...SYSTEM_PATHS,
        '/api/books',
        '/api/loans/{id}/return',
        '/api/books/import',
        '/api/books/import/preview',
      ]);
      const health = await (await fetch(`${url}/api/health`)).json();
      expect(health).toEqual({ status: 'ok', spec: 'Lending desk', database: 'sqlite' });
      const visitor = await fetch(`${url}/api/books`);
      expect(visitor.status).toBe(401);
      expect((await problemOf(visitor)).code).toBe('NOT_SIGNED_IN');
      const { authorization } = await userWithToken(server, ['staff']);
      const list = await fetch(`${url}/api/books`, { headers: { authorization } });
      expect(list.status).toBe(200);
      expect(await list.json()).toEqual({ items: [], next: null });
      const created = await fetch(`${url}/api/books`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
        body: JSON.stringify({ title: 'Dune', isbn: '9780441013593' }),
      });
      expect(created.status).toBe(201);
      const id = ((await created.json()) as { id: string }).id;
      // Not declared in point 7, so not served, though the record exists.
      for (const [method, path] of [
        ['GET', `/api/books/${id}`],
        ['DELETE', `/api/books/${id}`],
      ] as const) {
        const response = await fetch(`${url}${path}`, { method });
        expect(response.status).toBe(404);
        expect((await problemOf(response)).code).toBe('UNKNOWN_CALL');
      }
      // The declared transition is served: a book's id names no loan.
      const returned = await fetch(`${url}/api/loans/${id}/return`, { method: 'POST', headers: { authorization } });
      expect(returned.status).toBe(404);
      expect((await problemOf(returned)).code).toBe('NOT_FOUND');
    } finally {
      await server.close();
      temp.remove();
    }
  });

  it('migrates a database made for an earlier version of the spec, and refuses what would hide data', async () => {
    const temp = tempDir();
    try {
      const first = await createServer({ model: modelOf(LENDING_DESK), dbPath: temp.dbPath, logger: false });
      await first.close();
      const grown = modelOf(insertRowBefore(LENDING_DESK, ['copies', 'integer'], '| note | long text | |'));
      const second = await createServer({ model: grown, dbPath: temp.dbPath, logger: false });
      await second.close();
      const created = await (async () => {
        const third = await createServer({ model: grown, dbPath: temp.dbPath, logger: false });
        const { authorization } = await userWithToken(third, ['staff']);
        const response = await third.app.inject({
          method: 'POST',
          url: '/api/books',
          headers: { authorization },
          payload: { title: 'Dune', isbn: '9780441013593', note: 'signed' },
        });
        await third.close();
        return response;
      })();
      expect(created.statusCode).toBe(201);
      await expect(createServer({ model: modelOf(LENDING_DESK), dbPath: temp.dbPath, logger: false })).rejects.toThrow(
        /Field Book\.note was removed; 1 row holds a value in books\.note\./,
      );
    } finally {
      temp.remove();
    }
  });

  it('uses the status and message the spec gives a built-in code', async () => {
    const source = insertRowBefore(
      LENDING_DESK,
      ['LOAN_LIMIT', '409'],
      '| UNKNOWN_CALL | 410 | Nothing lives here; borrow up to {MAX_LOANS} books. |',
    );
    const { server, temp } = await start(modelOf(source));
    try {
      const response = await server.app.inject({ method: 'GET', url: '/nowhere' });
      expect(response.statusCode).toBe(410);
      expect(response.json()).toMatchObject({
        code: 'UNKNOWN_CALL',
        status: 410,
        detail: 'Nothing lives here; borrow up to 5 books.',
      });
    } finally {
      await server.close();
      temp.remove();
    }
  });

  it('applies MAX_BODY_BYTES from the spec', async () => {
    const source = insertRowBefore(LENDING_DESK, ['MAX_COPIES'], '| MAX_BODY_BYTES | 2048 | the largest body |');
    const { server, temp } = await start(modelOf(source));
    try {
      const post = (size: number) =>
        server.app.inject({
          method: 'POST',
          url: '/api/anything',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ a: 'x'.repeat(size) }),
        });
      expect((await post(1500)).statusCode).toBe(404);
      const big = await post(3000);
      expect(big.statusCode).toBe(413);
      expect(big.json()).toMatchObject({ detail: 'The request body is larger than 2048 bytes.' });
    } finally {
      await server.close();
      temp.remove();
    }
  });

  it('refuses a database URL that is not PostgreSQL', async () => {
    await expect(
      createServer({ model: blankModel(), databaseUrl: 'mysql://127.0.0.1/test', logger: false }),
    ).rejects.toThrow(/DATABASE_URL must be a PostgreSQL URL/);
  });

  it('closes the database when it closes, and may be closed twice', async () => {
    const { server, temp } = await start();
    await server.listen({ port: 0 });
    await server.close();
    await server.close();
    await expect(server.store.ping()).rejects.toThrow(/not open/);
    temp.remove();
  });
});
