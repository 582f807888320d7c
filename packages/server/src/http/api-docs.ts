import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The API reference page: the app's OpenAPI document rendered by Swagger UI. */
export const API_DOCS_PATH = '/api/docs';
/** Where the page's scripts, styles and icons are served from. */
export const API_DOCS_ASSETS_PATH = `${API_DOCS_PATH}/assets/`;

/**
 * The page may load scripts, styles and images from its own origin only, fetch only from it (the
 * document and "Try it out"), and may not be framed. No inline script or style: Swagger UI is
 * started by a served file. `data:` images are the icons inlined in Swagger UI's stylesheet.
 */
export const API_DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const HTML_TYPE = 'text/html; charset=utf-8';
/** Asked with the `v` its page gives (its content's digest), an asset never changes. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The page names the spec, so it changes with the spec: browsers keep it but ask again each time. */
const REVALIDATE = 'no-cache';

interface Asset {
  readonly body: Buffer;
  readonly type: string;
  /** A digest of the body: the ETag, and the `v` the page links the asset with. */
  readonly digest: string;
}

/** Served name → where it comes from: swagger-ui-dist's own files and the initializer beside this file. */
const ASSET_SOURCES: Record<string, { file: string; type: string; from: 'swagger-ui-dist' | 'here' }> = {
  'swagger-ui.css': { file: 'swagger-ui.css', type: 'text/css; charset=utf-8', from: 'swagger-ui-dist' },
  'index.css': { file: 'index.css', type: 'text/css; charset=utf-8', from: 'swagger-ui-dist' },
  'swagger-ui-bundle.js': {
    file: 'swagger-ui-bundle.js',
    type: 'text/javascript; charset=utf-8',
    from: 'swagger-ui-dist',
  },
  'initializer.js': { file: 'api-docs-initializer.js', type: 'text/javascript; charset=utf-8', from: 'here' },
  'favicon-32x32.png': { file: 'favicon-32x32.png', type: 'image/png', from: 'swagger-ui-dist' },
  'favicon-16x16.png': { file: 'favicon-16x16.png', type: 'image/png', from: 'swagger-ui-dist' },
};

let loaded: ReadonlyMap<string, Asset> | null = null;

/** The assets, read from disk once per process (about 2 MB) and shared by every server it creates. */
function assets(): ReadonlyMap<string, Asset> {
  if (loaded) return loaded;
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const here = dirname(fileURLToPath(import.meta.url));
  const map = new Map<string, Asset>();
  for (const [name, source] of Object.entries(ASSET_SOURCES)) {
    let body = readFileSync(join(source.from === 'here' ? here : dist, source.file));
    // The source map is not served: drop the comment naming it, so developer tools do not ask.
    if (name.endsWith('.css'))
      body = Buffer.from(body.toString('utf8').replace(/\/\*# sourceMappingURL=.*\*\/\s*$/, ''));
    map.set(name, { body, type: source.type, digest: createHash('sha256').update(body).digest('hex').slice(0, 16) });
  }
  loaded = map;
  return map;
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page, titled with the product's name; its assets are linked relative to it, with their digests. */
export function apiDocsHtml(productName: string): string {
  const files = assets();
  const href = (name: string) => `docs/assets/${name}?v=${files.get(name)?.digest ?? ''}`;
  const title = escapeHtml(`${productName} — API reference`);
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${title}</title>
    <link rel="stylesheet" href="${href('swagger-ui.css')}">
    <link rel="stylesheet" href="${href('index.css')}">
    <link rel="icon" type="image/png" href="${href('favicon-32x32.png')}" sizes="32x32">
    <link rel="icon" type="image/png" href="${href('favicon-16x16.png')}" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"><noscript>The API reference needs JavaScript. The document itself is at <a href="openapi.json">/api/openapi.json</a>.</noscript></div>
    <script src="${href('swagger-ui-bundle.js')}"></script>
    <script src="${href('initializer.js')}"></script>
  </body>
</html>
`;
}

/** True when the request's If-None-Match names this ETag (or `*`). */
function fresh(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === etag || tag === '*');
}

function send(request: FastifyRequest, reply: FastifyReply, body: Buffer | string, type: string, etag: string) {
  reply.header('etag', etag);
  if (fresh(request, etag)) return reply.code(304).send();
  return reply.type(type).send(body);
}

/**
 * Serves the API reference page at `GET /api/docs` and its assets under `/api/docs/assets/`.
 * Only the listed assets are routes: any other path there is left to the not-found handler.
 */
export function registerApiDocs(app: FastifyInstance, productName: string): void {
  const files = assets();
  const html = apiDocsHtml(productName);
  const htmlEtag = `"${createHash('sha256').update(html).digest('hex').slice(0, 16)}"`;
  app.get(API_DOCS_PATH, (request, reply) => {
    reply.header('content-security-policy', API_DOCS_CSP);
    reply.header('referrer-policy', 'no-referrer');
    reply.header('cache-control', REVALIDATE);
    return send(request, reply, html, HTML_TYPE, htmlEtag);
  });
  for (const [name, asset] of files) {
    const etag = `"${asset.digest}"`;
    app.get(`${API_DOCS_ASSETS_PATH}${name}`, (request, reply) => {
      const { v } = request.query as { v?: unknown };
      reply.header('cache-control', v === asset.digest ? IMMUTABLE : REVALIDATE);
      reply.header('cross-origin-resource-policy', 'same-origin');
      return send(request, reply, asset.body, asset.type, etag);
    });
  }
}
