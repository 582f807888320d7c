import { randomUUID } from 'node:crypto';
import { maxHeaderSize, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { RuntimeSettings } from '@ninepoint/spec';
import type { Logger } from 'pino';
import { PROBLEM_CONTENT_TYPE, type ProblemCatalogue } from '../compile/problems.ts';
import { REQUEST_ID_HEADER } from './request-id.ts';
import { REFERRER_POLICY } from './security-headers.ts';

/**
 * How often Node looks for requests past their time (its default is 30 s, which would let a
 * stalled client stay up to twice `REQUEST_TIMEOUT_SECONDS`).
 */
const TIMEOUT_CHECK_MS = 1000;

/**
 * The Node HTTP server options that cut off slow clients: a request whose headers or body have
 * not all arrived within `REQUEST_TIMEOUT_SECONDS` is refused (see `clientErrorHandler`). Without
 * them Fastify waits for a trickled body for ever, and for trickled headers for up to 90 s.
 */
export function requestTimeouts(settings: Pick<RuntimeSettings, 'REQUEST_TIMEOUT_SECONDS'>): {
  requestTimeout: number;
  headersTimeout: number;
  connectionsCheckingInterval: number;
} {
  const ms = settings.REQUEST_TIMEOUT_SECONDS * 1000;
  return { requestTimeout: ms, headersTimeout: ms, connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, ms) };
}

/** What Node reports for a connection it cannot read a request from, as the detail of INVALID_PAYLOAD. */
export function clientErrorDetail(
  code: string | undefined,
  settings: Pick<RuntimeSettings, 'REQUEST_TIMEOUT_SECONDS'>,
): string {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return `its request line and headers are larger than ${maxHeaderSize} bytes`;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return `it did not arrive within REQUEST_TIMEOUT_SECONDS (${settings.REQUEST_TIMEOUT_SECONDS} s)`;
    default:
      return 'it is not well-formed HTTP/1.1';
  }
}

/**
 * Fastify's `clientErrorHandler`: answers a connection Node's HTTP parser refused (headers too
 * large, malformed HTTP, a request too slow) with a catalogued problem, then closes it. These
 * requests never reach Fastify's routing or error handler, and Fastify's own answer is an
 * uncatalogued `application/json` body. The catalogue has no 408 or 431 code: INVALID_PAYLOAD
 * says what was wrong in its detail.
 */
export function clientErrorHandler(
  catalogue: ProblemCatalogue,
  settings: Pick<RuntimeSettings, 'REQUEST_TIMEOUT_SECONDS'>,
  log: Pick<Logger, 'info'>,
): (error: Error & { code?: string }, socket: Socket) => void {
  return (error, socket) => {
    // A reset connection is gone: there is nobody to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const requestId = randomUUID();
    log.info({ code: error.code, requestId }, 'connection refused by the HTTP parser');
    // As Node itself does: answer only when no answer of an earlier request on this connection
    // has started, so as not to corrupt it.
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const detail = clientErrorDetail(error.code, settings);
      // The request line may not have been read: the problem cannot name the path.
      const body = JSON.stringify(catalogue.problem('INVALID_PAYLOAD', { detail }, { instance: '/', requestId }));
      const status = catalogue.status('INVALID_PAYLOAD');
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Bad Request'}\r\n` +
          `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `${REQUEST_ID_HEADER}: ${requestId}\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: ${REFERRER_POLICY}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
