import type { FastifyInstance } from 'fastify';
import { ProblemError } from '../compile/problems.ts';

/** Refuses bytes that are not UTF-8 instead of replacing them with U+FFFD. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads JSON bodies as Fastify does (empty and malformed bodies, `__proto__` and
 * `constructor.prototype` keys refused), but refuses a body that is not UTF-8 (RFC 8259 §8.1)
 * with INVALID_PAYLOAD. Fastify's own parser decodes leniently: a title sent as the bytes
 * `C3 28` would be stored as "\uFFFD(", which is not what the client sent.
 */
export function registerJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = UTF8.decode(body as Buffer);
    } catch {
      done(new ProblemError('INVALID_PAYLOAD', { detail: 'the body is not valid UTF-8' }), undefined);
      return;
    }
    parseJson(request, text, done);
  });
}
