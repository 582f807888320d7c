import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';

/** Answers smaller than this go as they are: compressing them saves little and costs a call's worth of time. */
export const COMPRESS_MIN_BYTES = 1024;

/** JSON answers (`application/json`, `application/problem+json`, …): the API's. */
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\b/i;

/** Fast settings for answers made per request: brotli 4 compresses JSON about as well as gzip 6, faster. */
const BROTLI = {
  params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
};
const GZIP = { level: 6 };

/**
 * Compresses JSON answers of `COMPRESS_MIN_BYTES` or more with brotli or gzip, as the client
 * accepts, on zlib's thread pool (the event loop is not held up). Smaller answers, such as a
 * record by id, leave the hook at its first length check. Answers already coded (the web app's
 * precompressed files), streams and other types are left alone: server-sent events
 * (`text/event-stream`, a stream) are never held back to fill a compressor's blocks.
 */
export function registerCompression(app: FastifyInstance): void {
  // A callback hook: an async one costs a promise on every answer.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
    // String length, not bytes: a cheap test; non-ASCII text near the threshold may go uncompressed.
    if (payload.length < COMPRESS_MIN_BYTES) return done(null, payload);
    if (reply.hasHeader('content-encoding') || !JSON_TYPE.test(String(reply.getHeader('content-type') ?? ''))) {
      return done(null, payload);
    }
    const vary = reply.getHeader('vary');
    reply.header('vary', vary ? `${String(vary)}, accept-encoding` : 'accept-encoding');
    const coding = preferredCoding(request.headers['accept-encoding']);
    if (coding === null) return done(null, payload);
    const finish = (error: Error | null, out: Buffer) => {
      if (error) return done(null, payload);
      reply.header('content-encoding', coding);
      reply.removeHeader('content-length');
      done(null, out);
    };
    if (coding === 'br') brotliCompress(payload, BROTLI, finish);
    else gzip(payload, GZIP, finish);
  });
}

/**
 * Brotli when accepted and at hand, else gzip, else none: a coding is accepted when `Accept-Encoding`
 * names it (or `*`) with a q-value above 0.
 */
export function preferredCoding(
  header: string | undefined,
  has: { br?: unknown; gz?: unknown } = { br: true, gz: true },
): 'br' | 'gzip' | null {
  if (!header) return null;
  const q = new Map<string, number>();
  for (const part of header.toLowerCase().split(',')) {
    const [name = '', ...params] = part.trim().split(';');
    const weight = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    q.set(name.trim(), weight === undefined ? 1 : Number(weight));
  }
  const accepts = (coding: string) => (q.get(coding) ?? q.get('*') ?? 0) > 0;
  if (has.br && accepts('br')) return 'br';
  if (has.gz && accepts('gzip')) return 'gzip';
  return null;
}

/**
 * The ETag of one coding of a resource whose bytes hash to `etag`: each coding is its own
 * representation (RFC 9110 §8.8.3), so a cache never answers an identity request with gzip bytes.
 */
export function codedEtag(etag: string, coding: 'br' | 'gzip' | null): string {
  return coding ? `${etag.slice(0, -1)}-${coding}"` : etag;
}

/** True when an If-None-Match header names this ETag (or `*`); weakly compared, as RFC 9110 asks. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === etag || tag === '*');
}
