import type { FastifyRequest } from 'fastify';
import { ProblemError } from '../compile/problems.ts';

/** Refuses a request addressed to a DNS name other than localhost (DNS rebinding). */
export function refuseNamedHost(request: FastifyRequest): void {
  // The Host header as the browser sent it: under TRUST_PROXY, `request.hostname` would take
  // X-Forwarded-Host, which a rebound page can set to anything.
  const host = (request.headers.host ?? '').replace(/:\d+$/, '');
  if (!isLocalHostname(host)) {
    throw new ProblemError(
      'FORBIDDEN',
      {},
      { detail: 'Dev mode answers only requests addressed to localhost or an IP address.' },
    );
  }
}

/** Whether a host name (without port) is localhost or an IP address: never a name rebound by DNS. */
export function isLocalHostname(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host.startsWith('[') || /^[\d.]+$/.test(host);
}
