import { brotliDecompressSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { LENDING_DESK, modelOf, replaceOnce, tempDir } from '../../test/helpers.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import { VALIDATORS_PATH, validatorsModule } from './index.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function started(source = LENDING_DESK): Promise<NinepointServer> {
  const temp = tempDir();
  const server = await createServer({ model: modelOf(source), dbPath: temp.dbPath, logger: false });
  cleanups.push(temp.remove, () => server.close());
  return server;
}

describe('GET /app/validators.js', () => {
  it('serves the field checks as a JavaScript module to anyone, as the model is, revalidated by its ETag', async () => {
    const { app } = await started();
    const answer = await app.inject({ method: 'GET', url: VALIDATORS_PATH });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(answer.headers['cache-control']).toBe('no-cache');
    expect(answer.body).toMatch(/^\/\/ The field checks of this spec/);
    expect(answer.body).toContain('export default function validators(require)');
    expect(answer.body).toContain('exports["Book.create"]');
    expect(answer.body).toContain('exports["Loan.update"]');
    // Nothing the app's CSP (`script-src 'self'`, no 'unsafe-eval') would refuse to run.
    expect(answer.body).not.toMatch(/new Function|\beval\(/);
    const etag = String(answer.headers.etag);
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    const again = await app.inject({ method: 'GET', url: VALIDATORS_PATH, headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // A later load of a page asks with a query (`?load=2`): the same module.
    const later = await app.inject({ method: 'GET', url: `${VALIDATORS_PATH}?load=2` });
    expect(later.headers.etag).toBe(etag);
  });

  it('sends brotli or gzip to a browser that takes it', async () => {
    const { app } = await started();
    const plain = await app.inject({ method: 'GET', url: VALIDATORS_PATH });
    const br = await app.inject({ method: 'GET', url: VALIDATORS_PATH, headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toContain('accept-encoding');
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 4);
    expect(brotliDecompressSync(br.rawPayload).toString('utf8')).toBe(plain.body);
  });

  it('changes with the spec, and its ETag with it', () => {
    const before = validatorsModule(modelOf(LENDING_DESK));
    const grown = replaceOnce(LENDING_DESK, /0\.\.MAX_COPIES/, () => '0..40');
    const after = validatorsModule(modelOf(grown));
    expect(after.etag).not.toBe(before.etag);
    expect(validatorsModule(modelOf(LENDING_DESK))).toEqual(before);
  });

  it("leaves out a pattern the browser's RegExp cannot read, for the server to check", () => {
    const re2Only = replaceOnce(LENDING_DESK, /pattern \^97\[89\]\[0-9\]\{10\}\$/, () => 'pattern ^\\pN{13}$');
    const { code } = validatorsModule(modelOf(re2Only));
    expect(code).not.toContain('\\\\pN');
    expect(validatorsModule(modelOf(LENDING_DESK)).code).toContain('^97[89][0-9]{10}$');
  });
});
