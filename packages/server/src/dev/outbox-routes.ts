import type { FastifyInstance } from 'fastify';
import { refuseNamedHost } from '../http/local-host.ts';
import type { Mailer, Outbox } from '../mail/mailer.ts';

/** `GET`: the mails `ninepoint dev` kept instead of sending, newest first. */
export const OUTBOX_ROUTE = '/api/dev/outbox';

/**
 * Registers the dev outbox: `{ mailer, mails }`, where `mailer` says how mail goes (`outbox`, or
 * `smtp` when SMTP settings are given, and then `mails` is empty). Its mails hold working reset
 * links, so it answers only requests addressed to localhost or an IP address, as the Studio does.
 */
export function registerOutboxRoutes(app: FastifyInstance, mailer: Mailer, outbox: Outbox | null): void {
  app.get(OUTBOX_ROUTE, async (request, reply) => {
    refuseNamedHost(request);
    return reply.header('cache-control', 'no-store').send({ mailer: mailer.kind, mails: outbox?.mails() ?? [] });
  });
}
