import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { blankSpec } from '@ninepoint/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LENDING_DESK, type ListeningServer, listeningServer } from '../../test/helpers.ts';
import { API_DOCS_CSP } from './api-docs.ts';

const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The `href` and `src` of a page, resolved against the page's URL. */
function linksOf(html: string, pageUrl: string): URL[] {
  return [...html.matchAll(/\b(?:href|src)="([^"]+)"/g)].map(([, link]) => new URL(link ?? '', pageUrl));
}

describe('the API reference page', () => {
  let served: ListeningServer;
  let url: string;
  let page: Response;
  let html: string;

  beforeAll(async () => {
    served = await listeningServer(LENDING_DESK);
    url = served.url;
    page = await fetch(`${url}/api/docs`);
    html = await page.text();
  });
  afterAll(() => served.close());

  it('is served at GET /api/docs as HTML titled with the product name', () => {
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<title>Lending desk — API reference</title>');
    expect(html).toContain('<div id="swagger-ui">');
  });

  it('sends a Content-Security-Policy that allows no inline script or style and nothing from elsewhere', () => {
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toBe(API_DOCS_CSP);
    const directives = new Map(csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toEqual(["'self'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp).not.toMatch(/unsafe-|https?:|\*/);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('holds no inline script or style: every script is a file of this origin', () => {
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBe(2);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="docs\/assets\//);
      expect(body).toBe('');
    }
    expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
    for (const link of linksOf(html, `${url}/api/docs`)) expect(link.origin).toBe(url);
  });

  it('is cached by browsers but asked for again each time, answering 304 when unchanged', async () => {
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const etag = page.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    const again = await fetch(`${url}/api/docs`, { headers: { 'if-none-match': etag ?? '' } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('links each asset with its digest, served with its content type and cached for good', async () => {
    const expected: Record<string, string> = {
      'swagger-ui.css': 'text/css; charset=utf-8',
      'index.css': 'text/css; charset=utf-8',
      'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
      'initializer.js': 'text/javascript; charset=utf-8',
      'favicon-32x32.png': 'image/png',
      'favicon-16x16.png': 'image/png',
    };
    const links = linksOf(html, `${url}/api/docs`).filter((l) => l.pathname.startsWith('/api/docs/assets/'));
    expect(links.map((l) => l.pathname.replace('/api/docs/assets/', '')).sort()).toEqual(Object.keys(expected).sort());
    for (const link of links) {
      const name = link.pathname.replace('/api/docs/assets/', '');
      const response = await fetch(link);
      expect(response.status, name).toBe(200);
      expect(response.headers.get('content-type'), name).toBe(expected[name]);
      expect(response.headers.get('cache-control'), name).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('etag'), name).toBe(`"${link.searchParams.get('v')}"`);
      expect(response.headers.get('x-content-type-options'), name).toBe('nosniff');
      expect((await response.arrayBuffer()).byteLength, name).toBeGreaterThan(0);
    }
  });

  it("serves swagger-ui-dist's own files, and its initializer pointed at /api/openapi.json", async () => {
    const bundle = Buffer.from(await (await fetch(`${url}/api/docs/assets/swagger-ui-bundle.js`)).arrayBuffer());
    expect(bundle.equals(readFileSync(join(dist, 'swagger-ui-bundle.js')))).toBe(true);
    const css = await (await fetch(`${url}/api/docs/assets/swagger-ui.css`)).text();
    expect(css).not.toContain('sourceMappingURL');
    const initializer = await (await fetch(`${url}/api/docs/assets/initializer.js`)).text();
    expect(initializer).toContain("new URL('openapi.json', document.baseURI)");
    expect(initializer).toContain('validatorUrl: null');
  });

  it('asks browsers to check again on an asset asked for without its current digest', async () => {
    for (const query of ['', '?v=0000000000000000']) {
      const response = await fetch(`${url}/api/docs/assets/initializer.js${query}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-cache');
      const etag = response.headers.get('etag') ?? '';
      const again = await fetch(`${url}/api/docs/assets/initializer.js${query}`, {
        headers: { 'if-none-match': etag },
      });
      expect(again.status).toBe(304);
    }
  });

  it.each([
    '/api/docs/assets/nothing.js',
    '/api/docs/assets/swagger-ui.css.map',
    '/api/docs/assets/swagger-initializer.js',
    '/api/docs/assets/index.html',
    '/api/docs/assets/package.json',
    '/api/docs/assets/%2e%2e/%2e%2e/package.json',
    '/api/docs/assets/',
    '/api/docs/assets',
    '/api/docs/',
    '/api/docs/index.html',
  ])('answers %s with the catalogued UNKNOWN_CALL', async (path) => {
    const response = await fetch(`${url}${path}`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await response.json()).toMatchObject({ code: 'UNKNOWN_CALL', status: 404 });
  });

  it('answers other methods on the page with UNKNOWN_CALL', async () => {
    const response = await fetch(`${url}/api/docs`, { method: 'POST' });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe('UNKNOWN_CALL');
  });

  it('is described in the OpenAPI document as an HTML answer', async () => {
    const document = (await (await fetch(`${url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
    };
    expect(Object.keys(document.paths['/api/docs'] ?? {})).toEqual(['get']);
    expect(Object.keys(document.paths['/api/docs']?.get?.responses['200']?.content ?? {})).toEqual(['text/html']);
    expect(Object.keys(document.paths).filter((p) => p.startsWith('/api/docs/'))).toEqual([]);
  });
});

describe('the API reference page of a product whose name holds HTML', () => {
  it('escapes the name in the title', async () => {
    const { url, close } = await listeningServer(blankSpec('Tom & Jerry <script>alert(1)</script>'));
    try {
      const html = await (await fetch(`${url}/api/docs`)).text();
      expect(html).toContain(
        '<title>Tom &#38; Jerry &#60;script&#62;alert(1)&#60;/script&#62; — API reference</title>',
      );
      expect(html).not.toContain('<script>alert');
    } finally {
      await close();
    }
  });
});
