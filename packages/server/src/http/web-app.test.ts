import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { effectiveScreens } from '@ninepoint/spec';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { LENDING_DESK, modelOf, tempDir } from '../../test/helpers.ts';
import { DEV_MODE_META, registerWebApp, WEB_APP_CSP } from './web-app.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A server with a fake build of the web app: a page and one hashed asset. */
function serve(devMode = false) {
  const temp = tempDir();
  cleanups.push(temp.remove);
  const dist = join(temp.dir, 'dist');
  mkdirSync(join(dist, 'assets'), { recursive: true });
  writeFileSync(join(dist, 'index.html'), '<!doctype html><head><title>x</title></head><div id="root"></div>');
  writeFileSync(join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
  // As scripts/build-web.mjs precompresses a file (here with made-up bodies, to tell them apart).
  writeFileSync(join(dist, 'assets', 'index-abc123.js.br'), 'BROTLI');
  writeFileSync(join(dist, 'assets', 'index-abc123.js.gz'), 'GZIP');
  const app = Fastify();
  const web = registerWebApp(
    app,
    effectiveScreens(modelOf(LENDING_DESK)).map((screen) => screen.route),
    { dist, devMode },
  );
  app.setNotFoundHandler((request, reply) =>
    web.isPage(request) ? web.sendPage(reply, 404) : reply.code(404).send({ code: 'UNKNOWN_CALL' }),
  );
  return app;
}

describe('serving the web app', () => {
  it('answers every screen route, /, /sign-in, /forgot-password and /reset-password with the page, under a strict CSP', async () => {
    const app = serve();
    for (const path of [
      '/',
      '/sign-in',
      '/forgot-password',
      '/reset-password?token=npr_x',
      '/books',
      '/my/loans',
      '/loans',
    ]) {
      const answer = await app.inject({ method: 'GET', url: path });
      expect(answer.statusCode, path).toBe(200);
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(answer.headers['content-security-policy']).toBe(WEB_APP_CSP);
      expect(answer.headers['cache-control']).toBe('no-cache');
    }
    expect(WEB_APP_CSP).toMatch(/script-src 'self';/);
    expect(WEB_APP_CSP).not.toMatch(/script-src[^;]*unsafe/);
  });

  it('serves hashed assets cached for good, and answers 304 to a matching ETag', async () => {
    const app = serve();
    const first = await app.inject({ method: 'GET', url: '/assets/index-abc123.js' });
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(first.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const again = await app.inject({
      method: 'GET',
      url: '/assets/index-abc123.js',
      headers: { 'if-none-match': String(first.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
  });

  it('gives a browser the page with 404 for an unknown page, and other clients the catalogued answer', async () => {
    const app = serve();
    const browser = await app.inject({ method: 'GET', url: '/no/such/page', headers: { accept: 'text/html' } });
    expect(browser.statusCode).toBe(404);
    expect(browser.headers['content-type']).toBe('text/html; charset=utf-8');
    const client = await app.inject({ method: 'GET', url: '/no/such/page' });
    expect(client.statusCode).toBe(404);
    expect(client.json()).toEqual({ code: 'UNKNOWN_CALL' });
    const api = await app.inject({ method: 'GET', url: '/api/nothing', headers: { accept: 'text/html' } });
    expect(api.json()).toEqual({ code: 'UNKNOWN_CALL' });
  });

  it('sends a file’s precompressed form the browser accepts, with Vary and an ETag per form, and never the .br or .gz file alone', async () => {
    const app = serve();
    const get = (accept?: string) =>
      app.inject({
        method: 'GET',
        url: '/assets/index-abc123.js',
        headers: accept ? { 'accept-encoding': accept } : {},
      });
    const br = await get('gzip, deflate, br');
    expect([br.headers['content-encoding'], br.body, br.headers.vary]).toEqual(['br', 'BROTLI', 'accept-encoding']);
    expect(br.headers['content-type']).toBe('text/javascript; charset=utf-8');
    const gz = await get('gzip');
    expect([gz.headers['content-encoding'], gz.body]).toEqual(['gzip', 'GZIP']);
    const plain = await get();
    expect([plain.headers['content-encoding'], plain.body, plain.headers.vary]).toEqual([
      undefined,
      'console.log(1)',
      'accept-encoding',
    ]);
    // Each form is its own representation: a cache holding the plain bytes never gets a 304 for brotli.
    expect(new Set([br.headers.etag, gz.headers.etag, plain.headers.etag]).size).toBe(3);
    const ask = (etag: unknown, accept: string) =>
      app.inject({
        method: 'GET',
        url: '/assets/index-abc123.js',
        headers: { 'if-none-match': String(etag), 'accept-encoding': accept },
      });
    const unchanged = await ask(br.headers.etag, 'br');
    expect([unchanged.statusCode, unchanged.headers.vary, unchanged.headers.etag]).toEqual([
      304,
      'accept-encoding',
      br.headers.etag,
    ]);
    expect((await ask(`W/${gz.headers.etag}, "other"`, 'gzip')).statusCode).toBe(304);
    const other = await ask(plain.headers.etag, 'br');
    expect([other.statusCode, other.headers['content-encoding'], other.body]).toEqual([200, 'br', 'BROTLI']);
    for (const path of ['/assets/index-abc123.js.br', '/assets/index-abc123.js.gz']) {
      expect((await app.inject({ method: 'GET', url: path })).statusCode, path).toBe(404);
    }
    // A file the build did not compress goes as it is, with no Vary.
    const page = await app.inject({ method: 'GET', url: '/', headers: { 'accept-encoding': 'br' } });
    expect([page.headers['content-encoding'], page.headers.vary]).toEqual([undefined, undefined]);
  });

  it('marks the page under ninepoint dev, so the app needs no dev-only call to know it, and only there', async () => {
    const served = await serve().inject({ method: 'GET', url: '/' });
    expect(served.body).toBe('<!doctype html><head><title>x</title></head><div id="root"></div>');
    const dev = serve(true);
    const page = await dev.inject({ method: 'GET', url: '/' });
    expect(page.body).toBe(
      `<!doctype html><head><title>x</title><meta name="${DEV_MODE_META}" content="on" /></head><div id="root"></div>`,
    );
    expect(page.headers.etag).not.toBe(served.headers.etag);
    const again = await dev.inject({
      method: 'GET',
      url: '/',
      headers: { 'if-none-match': String(page.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    const notFound = await dev.inject({ method: 'GET', url: '/no/such/page', headers: { accept: 'text/html' } });
    expect(notFound.body).toContain(DEV_MODE_META);
  });

  it('registers nothing when the app is not built', async () => {
    const app = Fastify();
    const web = registerWebApp(
      app,
      effectiveScreens(modelOf(LENDING_DESK)).map((screen) => screen.route),
      {
        dist: null,
      },
    );
    const answer = await app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } });
    expect(answer.statusCode).toBe(404);
    expect(web.isPage({ url: '/', method: 'GET', headers: { accept: 'text/html' } } as never)).toBe(false);
  });
});
