import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The header a request id arrives in (from a proxy) and is echoed back in. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** Ids a proxy may pass on: short, and nothing that could forge a log line or a header. */
const ACCEPTED = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the caller's `x-request-id` when it is well-formed, else a new random UUID. */
export function requestId(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && ACCEPTED.test(given) ? given : randomUUID();
}
