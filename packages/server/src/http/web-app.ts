import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { codedEtag, etagMatches, preferredCoding } from './compression.ts';

/**
 * The web app's page may run scripts from its own origin only and talk only to it. Mantine sets
 * inline `style` attributes (CSS variables), hence `'unsafe-inline'` for styles, never scripts.
 */
export const WEB_APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};

interface File {
  body: Buffer;
  type: string;
  etag: string;
  /** The build's precompressed forms (`<file>.br`, `<file>.gz`), when it wrote them. */
  br?: Buffer;
  gz?: Buffer;
}

/** Where `npm run build -w packages/web` puts the app; null when it has not been built. */
export function webAppDirectory(): string | null {
  try {
    const packageJson = fileURLToPath(import.meta.resolve('@ninepoint/web/package.json'));
    const dist = join(dirname(packageJson), 'dist');
    return existsSync(join(dist, 'index.html')) ? dist : null;
  } catch {
    return null;
  }
}

/** Builds already read, by folder: a process that makes many apps (dev mode, tests) reads each once. */
const builds = new Map<string, { builtAt: number; files: Map<string, File> }>();

/**
 * Every file of the build, served from memory: the app's few hundred KB, and the Studio's lazy
 * chunks (about 7 MB with Mermaid's). Read once per build: a rebuild (a new `index.html`) is
 * read again.
 */
function readBuild(dist: string): Map<string, File> {
  const builtAt = statSync(join(dist, 'index.html')).mtimeMs;
  const known = builds.get(dist);
  if (known?.builtAt === builtAt) return known.files;
  const files = new Map<string, File>();
  const compressed = new Map<string, Buffer>();
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path, `${prefix}${name}/`);
      else if (name.endsWith('.br') || name.endsWith('.gz')) compressed.set(`/${prefix}${name}`, readFileSync(path));
      else {
        const body = readFileSync(path);
        const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
        files.set(`/${prefix}${name}`, { body, type: TYPES[extname(name)] ?? 'application/octet-stream', etag });
      }
    }
  };
  walk(dist, '');
  for (const [path, file] of files) {
    const br = compressed.get(`${path}.br`);
    const gz = compressed.get(`${path}.gz`);
    if (br) file.br = br;
    if (gz) file.gz = gz;
  }
  builds.set(dist, { builtAt, files });
  return files;
}

/**
 * The web app's pages for signing in, resetting a password, signing up, accepting an invitation,
 * inviting, and the Users and Deliveries screens of those who manage people.
 */
export const ACCOUNT_PAGES = [
  '/sign-in',
  '/forgot-password',
  '/reset-password',
  '/sign-up',
  '/verify-email',
  '/accept-invitation',
  '/invite',
  '/users',
  '/deliveries',
] as const;

/** `/books/:id/edit` → a pattern matching `/books/<anything but a slash>/edit`. */
function routePattern(route: string): RegExp {
  const parts = route
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${parts.join('/')}/?$`);
}

/**
 * The page's mark of development mode, `<meta name="ninepoint-dev-mode" content="on">`: the web app
 * reads it (packages/web/src/api/dev.ts) rather than asking a dev-only call that `serve` would
 * answer 404 on every page.
 */
export const DEV_MODE_META = 'ninepoint-dev-mode';

export interface WebAppOptions {
  /** The build's folder; null when there is none. Default: `webAppDirectory()`. */
  dist?: string | null;
  /** Marks the page as served by `ninepoint dev` (`DEV_MODE_META`). Default false. */
  devMode?: boolean;
}

/**
 * Serves the built web app: its hashed assets (cached for good), and its page for every route
 * it is given (the screens', and the Studio's under `ninepoint dev`), `ACCOUNT_PAGES` and `/`. A browser asking for any other page gets the page too, with
 * status 404, so the app shows its own "not found"; other clients get the catalogue's UNKNOWN_CALL
 * (`onUnknown`). Without a build, nothing is registered and `isPage` is always false.
 */
export function registerWebApp(
  app: FastifyInstance,
  pageRoutes: readonly string[],
  options: WebAppOptions = {},
): { isPage: (request: FastifyRequest) => boolean; sendPage: (reply: FastifyReply, status: number) => FastifyReply } {
  const dist = options.dist === undefined ? webAppDirectory() : options.dist;
  const files = dist ? readBuild(dist) : new Map<string, File>();
  const built = files.get('/index.html');
  const page = built && options.devMode ? markedDevMode(built) : built;
  const routes = [...pageRoutes.map(routePattern), ...ACCOUNT_PAGES.map(routePattern), routePattern('/')];
  const sendPage = (reply: FastifyReply, status: number) => {
    if (!page) throw new Error('The web app is not built.');
    return sendFile(
      reply.code(status).header('cache-control', 'no-cache').header('content-security-policy', WEB_APP_CSP),
      page,
    );
  };
  if (!page) return { isPage: () => false, sendPage };

  for (const [path, file] of files) {
    if (path === '/index.html') continue;
    app.get(path, (_request, reply) => {
      // Vite names assets by their content: a changed file has a new name.
      const cache = path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
      return sendFile(reply.header('cache-control', cache), file);
    });
  }
  // A screen route under /api would shadow the API; the checker's route rules should prevent it.
  const pages = ['/', ...ACCOUNT_PAGES, ...pageRoutes].filter((r) => !r.startsWith('/api'));
  for (const route of new Set(pages)) {
    app.get(route, (_request, reply) => sendPage(reply, 200));
  }
  const isPage = (request: FastifyRequest) => {
    const path = request.url.split('?', 1)[0] ?? '/';
    if (path.startsWith('/api/') || path === '/api') return false;
    if (request.method !== 'GET' && request.method !== 'HEAD') return false;
    return (request.headers.accept ?? '').includes('text/html') || routes.some((r) => r.test(path));
  };
  return { isPage, sendPage };
}

/** The page with `DEV_MODE_META` in its head (a meta tag: the CSP allows no inline script). */
function markedDevMode(page: File): File {
  const html = page.body.toString('utf8');
  const meta = `<meta name="${DEV_MODE_META}" content="on" />`;
  const at = html.indexOf('</head>');
  const body = Buffer.from(at === -1 ? `${meta}${html}` : `${html.slice(0, at)}${meta}${html.slice(at)}`);
  return { body, type: page.type, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"` };
}

/**
 * Sends a file of the build in the best form the browser accepts: brotli, gzip, or as it is, or 304
 * when the browser holds that form already. `Vary: Accept-Encoding` tells caches the answer depends
 * on it, and each form has its own ETag, so a cache never serves gzip bytes for the plain one.
 */
function sendFile(reply: FastifyReply, file: File): FastifyReply {
  const request = reply.request;
  const coding = file.br || file.gz ? preferredCoding(request.headers['accept-encoding'], file) : null;
  const etag = codedEtag(file.etag, coding);
  reply.type(file.type).header('etag', etag);
  if (file.br || file.gz) reply.header('vary', 'accept-encoding');
  if (reply.statusCode === 200 && etagMatches(request.headers['if-none-match'], etag)) return reply.code(304).send();
  if (coding === 'br' && file.br) return reply.header('content-encoding', 'br').send(file.br);
  if (coding === 'gzip' && file.gz) return reply.header('content-encoding', 'gzip').send(file.gz);
  return reply.send(file.body);
}
