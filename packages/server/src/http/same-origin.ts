import type { FastifyRequest } from 'fastify';

/** Whether a request comes from the app's own origin, as the browser says. */
export function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined) return origin === `${request.protocol}://${request.host}`;
  return request.headers['sec-fetch-site'] === 'same-origin';
}
