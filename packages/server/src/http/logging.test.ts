import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blankModel, tempDir } from '../../test/helpers.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import {
  bufferDestination,
  createLogger,
  defaultLogFormat,
  formatLogLine,
  jsonString,
  LineBatch,
  LogLevelError,
  milliseconds,
  parseLogLevel,
  requestLogging,
} from './logging.ts';

describe('LOG_LEVEL', () => {
  it('accepts pino’s levels in any case, and info when unset or empty', () => {
    expect(parseLogLevel(undefined)).toBe('info');
    expect(parseLogLevel('')).toBe('info');
    expect(parseLogLevel('warn')).toBe('warn');
    expect(parseLogLevel(' DEBUG ')).toBe('debug');
    expect(parseLogLevel('silent')).toBe('silent');
  });

  it('refuses another word, naming the levels it may be', () => {
    expect(() => parseLogLevel('verbose')).toThrow(LogLevelError);
    expect(() => parseLogLevel('verbose')).toThrow(
      'LOG_LEVEL must be fatal, error, warn, info, debug, trace or silent, not "verbose".',
    );
  });
});

describe('the log format', () => {
  it('is pretty on a terminal and JSON otherwise', () => {
    expect(defaultLogFormat({ isTTY: true })).toBe('pretty');
    expect(defaultLogFormat({ isTTY: false })).toBe('json');
    expect(defaultLogFormat({})).toBe('json');
  });
});

describe('pretty log lines', () => {
  const at = new Date(2026, 0, 2, 9, 5, 7).getTime();

  it('says a request in one line: time, method, path, status, duration, request id', () => {
    const line = JSON.stringify({
      level: 30,
      time: at,
      reqId: 'r-1',
      req: { method: 'GET', url: '/api/books?limit=2', host: 'x', remoteAddress: '127.0.0.1' },
      res: { statusCode: 200 },
      responseTime: 3.0625,
      msg: 'request completed',
    });
    expect(formatLogLine(line)).toBe('09:05:07 GET /api/books?limit=2 200 3.1 ms r-1\n');
  });

  it('gives a refused request its problem code', () => {
    const line = JSON.stringify({
      level: 30,
      time: at,
      reqId: 'r-2',
      req: { method: 'POST', url: '/api/auth/sign-in' },
      res: { statusCode: 429 },
      responseTime: 12,
      code: 'SIGN_IN_LOCKED',
      msg: 'request completed',
    });
    expect(formatLogLine(line)).toBe('09:05:07 POST /api/auth/sign-in 429 SIGN_IN_LOCKED 12.0 ms r-2\n');
  });

  it('says other records with their level and fields, and an error’s stack indented below', () => {
    expect(formatLogLine(JSON.stringify({ level: 40, time: at, table: 'books', rows: 3, msg: 'column hidden' }))).toBe(
      '09:05:07 WARN column hidden table=books rows=3\n',
    );
    const error = JSON.stringify({
      level: 50,
      time: at,
      reqId: 'r-3',
      err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at handler (x.ts:1:1)' },
      msg: 'internal error',
    });
    expect(formatLogLine(error)).toBe(
      '09:05:07 ERROR internal error r-3\n    Error: boom\n        at handler (x.ts:1:1)\n',
    );
  });

  it('colours the status and level only when asked, and never passes on terminal escapes from a message', () => {
    const request = JSON.stringify({
      level: 30,
      time: at,
      req: { method: 'GET', url: '/x' },
      res: { statusCode: 503 },
      responseTime: 1,
    });
    expect(formatLogLine(request, true)).toContain('\u001b[31m503\u001b[0m');
    expect(formatLogLine(request, false)).not.toContain('\u001b');
    expect(formatLogLine(JSON.stringify({ level: 30, time: at, msg: 'a\u001b[2Jb' }))).toBe('09:05:07 INFO a?[2Jb\n');
  });

  it('passes a line that is not JSON through unchanged', () => {
    expect(formatLogLine('plain words\n')).toBe('plain words\n');
  });

  it('is what a pretty logger writes', () => {
    const out: string[] = [];
    const logger = createLogger({ format: 'pretty', write: (text) => out.push(text) });
    logger.warn({ kind: 'x' }, 'careful');
    logger.debug('not at info');
    expect(out).toEqual([expect.stringMatching(/^\d\d:\d\d:\d\d WARN careful kind=x\n$/)]);
  });
});

describe('a request line’s duration', () => {
  it('is written to the microsecond, without trailing zeros, and reads back as the duration so rounded', () => {
    expect(milliseconds(0.3484999984502792)).toBe('0.348');
    expect(milliseconds(0.34)).toBe('0.34');
    expect(milliseconds(0.005)).toBe('0.005');
    expect(milliseconds(0.0504)).toBe('0.05');
    expect(milliseconds(1.2)).toBe('1.2');
    expect(milliseconds(12)).toBe('12');
    expect(milliseconds(0.0001)).toBe('0');
    expect(milliseconds(2047.9996)).toBe('2048');
    for (let i = 0; i < 1000; i++) {
      const ms = Math.random() * 10 ** Math.floor(Math.random() * 6);
      expect(JSON.parse(milliseconds(ms))).toBe(Math.round(ms * 1000) / 1000);
    }
  });
});

describe('request logging', () => {
  let server: NinepointServer;
  let remove: () => void;
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const temp = tempDir();
    remove = temp.remove;
    const logger = createLogger({ format: 'json', write: (text) => void lines.push(JSON.parse(text)) });
    server = await createServer({ model: blankModel(), dbPath: temp.dbPath, logger });
  });
  afterAll(async () => {
    await server.close();
    remove();
  });

  it('writes one JSON line per request, with the refusal’s problem code and no separate refusal line', async () => {
    const ok = await server.app.inject({ method: 'GET', url: '/api/health' });
    const refused = await server.app.inject({ method: 'DELETE', url: '/api/nothing-here' });
    const mine = (id: unknown) => lines.filter((l) => l.reqId === id);
    expect(mine(ok.headers['x-request-id'])).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'request completed',
        req: expect.objectContaining({ method: 'GET', url: '/api/health' }),
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
      }),
    ]);
    expect(mine(refused.headers['x-request-id'])).toEqual([
      expect.objectContaining({ res: { statusCode: 404 }, code: 'UNKNOWN_CALL', msg: 'request completed' }),
    ]);
  });

  it('writes the request line as pino would, with the process, the client’s address and a secret query redacted', async () => {
    const answer = await server.app.inject({ method: 'GET', url: '/reset-password?token=npr_secret&x=1' });
    const [line] = lines.filter((l) => l.reqId === answer.headers['x-request-id']);
    expect(line).toEqual({
      level: 30,
      time: expect.any(Number),
      pid: process.pid,
      hostname: hostname(),
      reqId: answer.headers['x-request-id'],
      req: { method: 'GET', url: '/reset-password?token=***&x=1', remoteAddress: '127.0.0.1' },
      res: { statusCode: answer.statusCode },
      responseTime: expect.any(Number),
      msg: 'request completed',
    });
  });

  it('writes a path with a backslash as JSON that reads back the same, and a proxy’s request id as given', async () => {
    // inject sends quotes and accents percent-encoded, as a client would; a backslash stays.
    const url = '/api/nothing?q=%22a\\b%22&name=Zo%C3%AB';
    const answer = await server.app.inject({ method: 'GET', url, headers: { 'x-request-id': 'edge-1.2:3' } });
    expect(answer.headers['x-request-id']).toBe('edge-1.2:3');
    const [line] = lines.filter((l) => l.reqId === 'edge-1.2:3');
    expect(line).toEqual(expect.objectContaining({ req: expect.objectContaining({ method: 'GET', url }) }));
  });

  it('gives what a request logs itself its request id', async () => {
    const answer = await server.app.inject({
      method: 'POST',
      url: '/api/auth/sign-in',
      payload: { email: 'nobody@example.org', password: 'not a password at all' },
    });
    expect(answer.statusCode).toBe(401);
    const mine = lines.filter((l) => l.reqId === answer.headers['x-request-id']);
    expect(mine.map((l) => [l.level, l.msg])).toEqual([
      [40, 'sign-in failed'],
      [30, 'request completed'],
    ]);
  });

  it('never logs a request’s cookie or authorization header', async () => {
    await server.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { cookie: 'np_session=nps_secret', authorization: 'Bearer npt_secret' },
    });
    expect(JSON.stringify(lines)).not.toContain('secret');
  });
});

describe('a request’s logger', () => {
  it('is made when first used, carries the request id, and so do its own children', async () => {
    const out: Record<string, unknown>[] = [];
    const logger = createLogger({ format: 'json', write: (text) => void out.push(JSON.parse(text)) });
    const app = Fastify({ ...requestLogging(logger), genReqId: () => 'req-7' });
    app.get('/', async (request) => {
      request.log.child({ part: 'inner' }).warn('from a child');
      request.log.info('from the request');
      return { ok: true };
    });
    await app.inject({ method: 'GET', url: '/' });
    await app.close();
    expect(out.map((l) => [l.reqId, l.part, l.msg])).toEqual([
      ['req-7', 'inner', 'from a child'],
      ['req-7', undefined, 'from the request'],
      ['req-7', undefined, 'request completed'],
    ]);
  });
});

describe('jsonString', () => {
  it('is JSON.stringify’s string for every ASCII character, accents, an emoji and a lone surrogate', () => {
    const texts = [
      '',
      ...Array.from({ length: 128 }, (_, code) => `a${String.fromCharCode(code)}b`),
      'Zoë',
      '🙂',
      '\ud800',
      '/api/x?q="1"',
    ];
    for (const text of texts) expect(jsonString(text)).toBe(JSON.stringify(text));
  });
});

describe('log lines on their way to the file', () => {
  const lines = (text: string) => text.trim().split('\n');
  const numbers = (text: string) => lines(text).map((l) => (JSON.parse(l) as { n: number }).n);

  /** Runs `test` with a new log file open for writing, then closes and removes it. */
  const withLogFile = async (test: (fd: number, read: () => string) => unknown) => {
    const temp = tempDir();
    const path = join(temp.dir, 'log.jsonl');
    const fd = openSync(path, 'w');
    try {
      await test(fd, () => readFileSync(path, 'utf8'));
    } finally {
      closeSync(fd);
      temp.remove();
    }
  };

  it('go out together, one write for the lines of a moment, in the order they were logged', () =>
    withLogFile(async (fd, read) => {
      const destination = bufferDestination(fd);
      let writes = 0;
      destination.on('write', () => writes++);
      const batch = new LineBatch(destination, fd);
      for (let n = 1; n <= 500; n++) batch.write(`{"n":${n}}\n`);
      await new Promise<void>((resolve) => destination.once('drain', resolve));
      expect(writes).toBe(1);
      expect(numbers(read())).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    }));

  it('keep their order when one is longer than any batch, which goes out whole on its own', () =>
    withLogFile(async (fd, read) => {
      const destination = bufferDestination(fd);
      const batch = new LineBatch(destination, fd);
      const long = `{"n":2,"text":"${'é🙂'.repeat(200_000)}"}\n`;
      batch.write('{"n":1}\n');
      batch.write(long);
      batch.write('{"n":3}\n');
      batch.flush();
      await new Promise<void>((resolve) => destination.once('drain', resolve));
      const written = read();
      expect(numbers(written)).toEqual([1, 2, 3]);
      expect(written).toContain(long);
    }));

  it('still held when the process exits are written at once, after those the destination held', () =>
    withLogFile((fd, read) => {
      const destination = bufferDestination(fd, { minLength: 4096 });
      destination.write(Buffer.from('{"n":1}\n'));
      const batch = new LineBatch(destination, fd);
      batch.write('{"n":2}\n');
      batch.flushSync();
      expect(lines(read())).toEqual(['{"n":1}', '{"n":2}']);
    }));
});

describe('the JSON log of a process that ends', () => {
  const child = fileURLToPath(new URL('../../test/log-child.ts', import.meta.url));
  const run = (args: string[]) =>
    spawnSync(process.execPath, [child, ...args], { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });

  it('holds every line written just before process.exit (the asynchronous destination is flushed)', () => {
    const { status, stdout } = run(['burst', '20000']);
    expect(status).toBe(0);
    const numbers = stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { n: number }).n);
    expect(numbers).toHaveLength(20000);
    expect(numbers.at(-1)).toBe(20000);
  });

  it('of `serve` stopped by SIGTERM holds one line per request answered and the shutdown', () => {
    const temp = tempDir();
    try {
      const { status, stdout } = run(['serve', temp.dbPath, '300']);
      expect(status).toBe(0);
      const records = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { msg: string; req?: { url: string }; res?: { statusCode: number } });
      const requests = records.filter((r) => r.msg === 'request completed');
      expect(requests).toHaveLength(300);
      expect(requests.every((r) => r.req?.url === '/api/health' && r.res?.statusCode === 200)).toBe(true);
      // The caller may read the last answer before the server's side of it has finished: that
      // request's line then follows the shutdown's, which is logged once, with nothing else after it.
      const shutdown = records.findIndex((r) => r.msg === 'shutting down');
      expect(shutdown).toBeGreaterThanOrEqual(records.length - 2);
      expect(records.slice(shutdown + 1).every((r) => r.msg === 'request completed')).toBe(true);
    } finally {
      temp.remove();
    }
  });
});

describe('request logging above info', () => {
  it('writes no request line at LOG_LEVEL=warn, and still what a request warns of', async () => {
    const temp = tempDir();
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ level: 'warn', format: 'json', write: (text) => void lines.push(JSON.parse(text)) });
    const server = await createServer({ model: blankModel(), dbPath: temp.dbPath, logger });
    try {
      await server.app.inject({ method: 'GET', url: '/api/health' });
      const refused = await server.app.inject({
        method: 'POST',
        url: '/api/auth/sign-in',
        payload: { email: 'nobody@example.org', password: 'not a password at all' },
      });
      expect(lines.map((l) => [l.msg, l.reqId])).toEqual([['sign-in failed', refused.headers['x-request-id']]]);
    } finally {
      await server.close();
      temp.remove();
    }
  });
});
