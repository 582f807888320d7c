import { brotliDecompressSync, gunzipSync } from 'node:zlib';
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

  it('gives each encoding its own ETag, and a 304 only for the ETag of the encoding it would send', async () => {
    const { app } = await started();
    const get = (encoding?: string, etag?: string) =>
      app.inject({
        method: 'GET',
        url: VALIDATORS_PATH,
        headers: { ...(encoding ? { 'accept-encoding': encoding } : {}), ...(etag ? { 'if-none-match': etag } : {}) },
      });
    const plain = await get();
    const gzip = await get('gzip');
    const br = await get('gzip, br');
    expect([
      plain.headers['content-encoding'],
      gzip.headers['content-encoding'],
      br.headers['content-encoding'],
    ]).toEqual([undefined, 'gzip', 'br']);
    const etags = [plain, gzip, br].map((answer) => String(answer.headers.etag));
    expect(new Set(etags).size).toBe(3);
    expect(etags[1]).toBe(`${etags[0]?.slice(0, -1)}-gzip"`);
    expect(gunzipSync(gzip.rawPayload).toString('utf8')).toBe(plain.body);
    for (const answer of [plain, gzip, br]) expect(answer.headers.vary).toBe('accept-encoding');
    // Each encoding revalidates with its own ETag, weak or in a list as a cache may send it.
    const [identityTag = '', gzipTag = '', brTag = ''] = etags;
    for (const [encoding, etag] of [
      [undefined, identityTag],
      ['gzip', gzipTag],
      ['gzip, br', `"other", W/${brTag}`],
    ] as const) {
      const again = await get(encoding, etag);
      expect(again.statusCode).toBe(304);
      expect(again.rawPayload.length).toBe(0);
    }
    // A cache holding the identity bytes asks with their ETag but takes br now: it gets the br bytes, not a 304.
    const switched = await get('br', identityTag);
    expect(switched.statusCode).toBe(200);
    expect(switched.headers.etag).toBe(brTag);
    expect(brotliDecompressSync(switched.rawPayload).toString('utf8')).toBe(plain.body);
    // And a client that takes no coding never gets a 304 for the gzip ETag.
    expect((await get(undefined, gzipTag)).statusCode).toBe(200);
  });

  it('is made right after the server is ready, so the first request does not wait for it', async () => {
    const server = await started();
    const url = await server.listen({ port: 0, host: '127.0.0.1' });
    await server.app.validatorsReady;
    // Made before anyone asked for it.
    expect(server.app.validatorsBuilt()).toBe(true);
    const answer = await fetch(`${url}${VALIDATORS_PATH}`, { headers: { 'accept-encoding': 'br' } });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('export default function validators(require)');
  });

  it('is made when first asked for if that comes before the background build, and the same', async () => {
    const early = await started();
    const late = await started();
    await late.app.ready();
    await late.app.validatorsReady;
    // inject makes the app ready and asks at once: the request builds it, the background then has nothing to do.
    const first = await early.app.inject({ method: 'GET', url: VALIDATORS_PATH });
    await early.app.validatorsReady;
    const built = await late.app.inject({ method: 'GET', url: VALIDATORS_PATH });
    expect(first.body).toBe(built.body);
    expect(first.headers.etag).toBe(built.headers.etag);
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
