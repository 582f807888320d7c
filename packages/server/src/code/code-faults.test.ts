import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { specTypes } from '@ninepoint/spec';
import { type Logger, pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelOf, tempDir } from '../../test/helpers.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { CodeModulesError, createServer, type NinepointServer } from '../app/server.ts';

/** A logger at info whose lines are pushed to `lines` as parsed JSON, for the tests to read. */
function jsonLogger(lines: Record<string, unknown>[]): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return pino({ level: 'info' }, sink);
}

// SQLite only: what is tested is the module's fault, not the database.
const NOTES = `# Specification: Notes

## 1. What the product does and for whom

Notes, for the faults of modules.

## 3. Entities and their fields

### Note

| field | type | rules    |
| ----- | ---- | -------- |
| title | text | required |

## 7. The calls it makes

| method | path                       | payload | does                     | answer |
| ------ | -------------------------- | ------- | ------------------------ | ------ |
| GET    | /api/notes                 |         | list Note                |        |
| POST   | /api/notes                 | Note    | create Note              |        |
| POST   | /api/notes/:id/boom        |         | code boom.ts             |        |
| POST   | /api/notes/:id/bad-answer  |         | code answer from boom.ts | Note   |

### Code

| on                 | code                 |
| ------------------ | -------------------- |
| before create Note | guard from hooks.ts  |

## 8. The error catalogue

| code    | status | message                |
| ------- | ------ | ---------------------- |
| NO_WAY  | 409    | Not this note.         |
`;

// As an app's own would be: typed by the file \`ninepoint types\` writes, which Node needs nothing to run.
const BOOM = `import { defineCall } from './notes.types.ts';
export default defineCall('Note', () => {
  throw new Error('the tariff server is down');
});
export const answer = defineCall('Note', () => ({ title: 42 }));
`;
const HOOKS = `import { defineHook } from './notes.types.ts';
export const guard = defineHook('Note', async ({ changes, refuse }) => {
  if (changes.title === 'hang') await new Promise(() => {});
  if (changes.title === 'shape') return { ok: false };
  if (changes.title === 'throw') throw new TypeError('cannot read the blocklist');
  if (changes.title === 'refuse') refuse('NO_WAY');
});
`;

describe('modules that fail: a clear refusal, nothing written, the server still serving', () => {
  const { dir, dbPath, remove } = tempDir();
  const lines: Record<string, unknown>[] = [];
  let server: NinepointServer;
  let user: string;
  const call = callAs(() => server);

  beforeAll(async () => {
    const folder = join(dir, 'spec');
    mkdirSync(folder);
    writeFileSync(join(folder, 'boom.ts'), BOOM);
    writeFileSync(join(folder, 'hooks.ts'), HOOKS);
    writeFileSync(join(folder, 'notes.types.ts'), specTypes(modelOf(NOTES), 'notes.md'));
    server = await createServer({
      model: modelOf(NOTES),
      dbPath,
      logger: jsonLogger(lines),
      codeFolder: folder,
      codeTimeoutMs: 200,
    });
    await server.app.ready();
    user = (await userWithToken(server, [])).authorization;
  });

  afterAll(async () => {
    await server?.close();
    remove();
  });

  /** The error logged for a request: its message and stack. */
  const loggedError = (requestId: unknown): { message: string; stack: string } => {
    const line = lines.find((l) => l.reqId === requestId && l.err);
    return (line?.err ?? { message: '', stack: '' }) as { message: string; stack: string };
  };
  const notes = async () => ((await call(user, 'GET', '/api/notes')).body.items as unknown[]).length;

  it('answers 500 with a request id when a custom call throws, logs the stack, and keeps serving', async () => {
    const note = await call(user, 'POST', '/api/notes', { title: 'fine' });
    expect(note.status).toBe(201);
    const answer = await call(user, 'POST', `/api/notes/${note.body.id}/boom`, {});
    expect(answer.status).toBe(500);
    expect(answer.body).toMatchObject({ code: 'INTERNAL_ERROR', requestId: answer.headers['x-request-id'] });
    expect(answer.text).not.toContain('tariff');
    expect(loggedError(answer.body.requestId).stack).toMatch(/Error: the tariff server is down\n\s+at .*boom\.ts/);
    expect((await call(user, 'GET', '/api/notes')).status).toBe(200);
  });

  it('refuses a custom call whose answer is not what the spec declares', async () => {
    const note = await call(user, 'POST', '/api/notes', { title: 'fine too' });
    const answer = await call(user, 'POST', `/api/notes/${note.body.id}/bad-answer`, {});
    expect(answer.status).toBe(500);
    expect(loggedError(answer.body.requestId).message).toContain(
      "answered what POST /api/notes/:id/bad-answer does not declare: the answer must have required property 'id'",
    );
  });

  it.each([
    ['refuses with its catalogue code', 'refuse', 409, 'NO_WAY'],
    ['throws', 'throw', 500, 'INTERNAL_ERROR'],
    ['answers the wrong shape', 'shape', 500, 'INTERNAL_ERROR'],
    ['hangs past the timeout', 'hang', 500, 'INTERNAL_ERROR'],
  ])('writes nothing when a before hook %s', async (_what, title, status, code) => {
    const before = await notes();
    const answer = await call(user, 'POST', '/api/notes', { title });
    expect(answer.status).toBe(status);
    expect(answer.body.code).toBe(code);
    expect(await notes()).toBe(before);
    if (title === 'hang') {
      expect(loggedError(answer.body.requestId).message).toContain('did not finish within 200 ms');
    }
    if (title === 'shape') {
      expect(loggedError(answer.body.requestId).message).toContain('a before hook, answered object');
    }
  });

  it('refuses to start when a module is missing, lacks its export, or links outside the folder', async () => {
    const folder = join(dir, 'broken');
    mkdirSync(folder);
    writeFileSync(join(folder, 'boom.ts'), 'export const other = 1;\n');
    const outside = join(dir, 'outside.ts');
    writeFileSync(outside, HOOKS);
    symlinkSync(outside, join(folder, 'hooks.ts'));
    const start = createServer({ model: modelOf(NOTES), dbPath: join(dir, 'b.db'), logger: false, codeFolder: folder });
    await expect(start).rejects.toThrow(CodeModulesError);
    await expect(start).rejects.toThrow(
      /a default export of boom\.ts, which it does not export[\s\S]*hooks\.ts, which is a link to a file outside the spec's folder/,
    );
    await expect(createServer({ model: modelOf(NOTES), dbPath: join(dir, 'c.db'), logger: false })).rejects.toThrow(
      /was not told the spec's folder/,
    );
  });
});

describe("a module's own calls", () => {
  const { dir, dbPath, remove } = tempDir();
  let server: NinepointServer;
  const call = callAs(() => server);
  const SPEC = `${NOTES.replace('| POST   | /api/notes/:id/boom        |', '| GET    | /api/notes/:id             |         | get Note                 |        |\n| POST   | /api/notes/:id/reread      |         | code reread.ts           |        |\n| POST   | /api/notes/:id/boom        |').replace('| before create Note | guard from hooks.ts  |', '| before create Note | guard from hooks.ts  |\n| after create Note  | signed.ts            |')}
## 9. Business constants and limits

| name                  | value |
| --------------------- | ----- |
| RATE_LIMIT_PER_MINUTE | 3     |
`;

  beforeAll(async () => {
    writeFileSync(join(dir, 'boom.ts'), BOOM);
    writeFileSync(join(dir, 'hooks.ts'), HOOKS);
    writeFileSync(
      join(dir, 'reread.ts'),
      "import { defineCall } from './notes.types.ts';\nexport default defineCall('Note', async ({ record, records }) => {\n  for (let n = 0; n < 10; n++) await records.get('Note', record.id);\n  return { reads: 10 };\n});\n",
    );
    // After a note is created, one more as its author (not after that one: it would go on for ever).
    writeFileSync(
      join(dir, 'signed.ts'),
      "import { defineHook } from './notes.types.ts';\nexport default defineHook('Note', async ({ record, user, records }) => {\n  if (!record || record.title.startsWith('by ')) return;\n  await records.create('Note', { title: 'by ' + (user?.email ?? 'nobody') });\n});\n",
    );
    writeFileSync(join(dir, 'notes.types.ts'), specTypes(modelOf(SPEC), 'notes.md'));
    server = await createServer({ model: modelOf(SPEC), dbPath, logger: false, codeFolder: dir });
    await server.app.ready();
  });

  afterAll(async () => {
    await server?.close();
    remove();
  });

  it('are not counted against the rate limit: the request that ran the module was', async () => {
    const { authorization, user } = await userWithToken(server, []);
    const note = await call(authorization, 'POST', '/api/notes', { title: 'counted once' });
    const answer = await call(authorization, 'POST', `/api/notes/${note.body.id}/reread`, {});
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ reads: 10 });
    // The after hook acted for the note's author: their note, in their name.
    await server.code?.idle();
    const titles = (
      (await call(authorization, 'GET', '/api/notes')).body.items as { title: string; created_by: string }[]
    ).map((n) => [n.title, n.created_by]);
    expect(titles).toContainEqual([`by ${user.email}`, user.id]);
    // A header naming no live module is nobody's: the caller's own token and limit still apply.
    const forged = await server.app.inject({
      method: 'GET',
      url: `/api/notes/${note.body.id}`,
      headers: { 'x-ninepoint-code-actor': 'guessed' },
    });
    expect(forged.statusCode).toBe(401);
  });
});

// A stand-in for a payment provider: it charges, or it never answers. (The module has no syntax
// only TypeScript has: under Vitest, Vite reads a module whose URL has a query as JavaScript.)
describe("a module's fetch and log", () => {
  const { dir, dbPath, remove } = tempDir();
  const lines: Record<string, unknown>[] = [];
  const charged: unknown[] = [];
  const closedEarly: string[] = [];
  let provider: Server;
  let server: NinepointServer;
  let user: string;
  const call = callAs(() => server);

  beforeAll(async () => {
    provider = createHttpServer((request, response) => {
      if (request.url === '/slow') {
        // Never answered: the module's fetch is aborted when its time is up.
        response.on('close', () => closedEarly.push(request.url ?? ''));
        return;
      }
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        charged.push(JSON.parse(body));
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ paid: true, reference: 'ch_1' }));
      });
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const { port } = provider.address() as AddressInfo;
    const spec = `${NOTES.replace(
      '| POST   | /api/notes/:id/boom        |',
      '| POST   | /api/notes/:id/pay         |         | code pay from provider.ts  |        |\n| POST   | /api/notes/:id/wait        |         | code wait from provider.ts |        |\n| POST   | /api/notes/:id/boom        |',
    )}
## 9. Business constants and limits

| name         | value                   |
| ------------ | ----------------------- |
| PROVIDER_URL | http://127.0.0.1:${port} |
`;
    writeFileSync(join(dir, 'boom.ts'), BOOM);
    writeFileSync(join(dir, 'hooks.ts'), HOOKS);
    writeFileSync(
      join(dir, 'provider.ts'),
      `import { defineCall } from './notes.types.ts';
export const pay = defineCall('Note', async ({ record, constants, fetch, log }) => {
  const answer = await fetch(constants.PROVIDER_URL + '/charge', { method: 'POST', body: JSON.stringify({ note: record.id }) });
  const { paid, reference } = await answer.json();
  log.info('charged the card', { note: record.id, reference });
  return { paid };
});
export const wait = defineCall('Note', async ({ constants, fetch }) => {
  await fetch(constants.PROVIDER_URL + '/slow');
  return {};
});
`,
    );
    writeFileSync(join(dir, 'notes.types.ts'), specTypes(modelOf(spec), 'notes.md'));
    server = await createServer({
      model: modelOf(spec),
      dbPath,
      logger: jsonLogger(lines),
      codeFolder: dir,
      // Long enough for \`pay\`'s round trip on a loaded machine; \`wait\` is never answered.
      codeTimeoutMs: 2000,
    });
    await server.app.ready();
    user = (await userWithToken(server, [])).authorization;
  });

  afterAll(async () => {
    await server?.close();
    await new Promise((resolve) => provider?.close(resolve));
    remove();
  });

  it('calls another system with fetch and logs under the module and the request', async () => {
    const note = await call(user, 'POST', '/api/notes', { title: 'an invoice' });
    const answer = await call(user, 'POST', `/api/notes/${note.body.id}/pay`, {});
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ paid: true });
    expect(charged).toEqual([{ note: note.body.id }]);
    expect(lines.find((l) => l.msg === 'charged the card')).toMatchObject({
      level: 30,
      module: 'provider.ts',
      export: 'pay',
      reqId: answer.headers['x-request-id'],
      note: note.body.id,
      reference: 'ch_1',
    });
  });

  it('aborts a fetch still waiting when the module runs out of time, and answers 500', async () => {
    const note = await call(user, 'POST', '/api/notes', { title: 'another' });
    const answer = await call(user, 'POST', `/api/notes/${note.body.id}/wait`, {});
    expect(answer.status).toBe(500);
    expect(answer.body.code).toBe('INTERNAL_ERROR');
    const end = Date.now() + 5000;
    while (closedEarly.length === 0 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closedEarly).toEqual(['/slow']);
  });
});

// Modules that fail after the fact: nobody is waiting for an answer, so the log is where it shows.
describe('an after hook and a scheduled module that throw', () => {
  const { dir, dbPath, remove } = tempDir();
  const lines: Record<string, unknown>[] = [];
  let server: NinepointServer;
  let user: string;
  /** Sunday 1 March 2026, 12:00 UTC; the nightly job first falls due at 02:00 the next day. */
  let at = Date.parse('2026-03-01T12:00:00Z');
  const call = callAs(() => server);
  const SPEC = NOTES.replace(
    '| before create Note | guard from hooks.ts  |',
    '| before create Note | guard from hooks.ts  |\n| after create Note  | after.ts             |\n| schedule nightly   | nightly.ts           |',
  ).replace(
    '### Code',
    '### Schedules\n\n| job     | every             |\n| ------- | ----------------- |\n| nightly | every day at 02:00 |\n\n### Code',
  );

  beforeAll(async () => {
    writeFileSync(join(dir, 'boom.ts'), BOOM);
    writeFileSync(join(dir, 'hooks.ts'), HOOKS);
    writeFileSync(
      join(dir, 'after.ts'),
      "import { defineHook } from './notes.types.ts';\nexport default defineHook('Note', () => {\n  throw new Error('the mail server refused');\n});\n",
    );
    writeFileSync(
      join(dir, 'nightly.ts'),
      "import { defineJob } from './notes.types.ts';\nexport default defineJob(({ due }) => {\n  throw new Error('the nightly export failed for ' + due);\n});\n",
    );
    writeFileSync(join(dir, 'notes.types.ts'), specTypes(modelOf(SPEC), 'notes.md'));
    server = await createServer({
      model: modelOf(SPEC),
      dbPath,
      logger: jsonLogger(lines),
      codeFolder: dir,
      now: () => at,
    });
    await server.app.ready();
    await server.timers.idle();
    user = (await userWithToken(server, [])).authorization;
  });

  afterAll(async () => {
    await server?.close();
    remove();
  });

  it('keeps the write an after hook followed, and logs the failure with its stack', async () => {
    const created = await call(user, 'POST', '/api/notes', { title: 'kept' });
    expect(created.status).toBe(201);
    await server.code?.idle();
    const titles = ((await call(user, 'GET', '/api/notes')).body.items as { title: string }[]).map((n) => n.title);
    expect(titles).toContain('kept');
    const failed = lines.find((l) => l.msg === 'an after hook failed; the write it followed stays committed');
    expect(failed).toMatchObject({ level: 50, module: 'after.ts', entity: 'Note', id: created.body.id });
    expect((failed?.err as { stack?: string } | undefined)?.stack).toMatch(
      /Error: the mail server refused\n\s+at .*after\.ts/,
    );
  });

  it('logs a scheduled module that throws, runs that due time once, and runs the next one', async () => {
    at = Date.parse('2026-03-02T02:00:10Z');
    expect((await server.timers.round()).jobs).toBe(1);
    expect((await server.timers.round()).jobs).toBe(0);
    at = Date.parse('2026-03-03T02:00:10Z');
    expect((await server.timers.round()).jobs).toBe(1);
    const failures = lines.filter((l) => l.msg === 'a scheduled module failed');
    expect(failures.map((l) => [l.module, l.job, (l.err as { message: string }).message])).toEqual([
      ['nightly.ts', 'nightly', 'the nightly export failed for 2026-03-02T02:00:00.000Z'],
      ['nightly.ts', 'nightly', 'the nightly export failed for 2026-03-03T02:00:00.000Z'],
    ]);
    expect((await call(user, 'GET', '/api/notes')).status).toBe(200);
  });
});
