import { DeliveriesStore, type DeliveryStatus, deliveryOf } from '@ninepoint/server';
import type { Command } from 'commander';
import { type DbOption, dbOption, withAccounts } from '../accounts-db.ts';
import type { Context } from '../context.ts';
import { formatColumns, formatTime } from '../text-table.ts';
import { EXIT, UsageError } from '../usage-error.ts';

interface DeliveriesOptions extends DbOption {
  status?: string;
  limit: string;
  retry?: string;
  json?: boolean;
}

const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'dead'];

/**
 * `ninepoint deliveries`: point 7's notifications and calls to other systems as the outbox holds
 * them (docs/outbox.md), newest first, read from the app's database; `--retry <id>` makes a
 * pending or dead one due at once (a running server takes it within a second).
 */
export function registerDeliveries(program: Command, ctx: Context, version: string): void {
  dbOption(
    program
      .command('deliveries')
      .description('List the notifications and calls to other systems the app made or is making; retry one.')
      .argument('<spec.md>', 'the spec whose app made them')
      .option('--status <status>', `only those pending, delivered or dead`)
      .option('--limit <n>', 'how many, newest first', '50')
      .option('--retry <id>', 'try this pending or dead delivery again now')
      .option('--json', 'print them as JSON: {"deliveries": [{id, kind, target, event, status, attempts, …}]}'),
  )
    .version(version)
    .action(async (file: string, options: DeliveriesOptions) => {
      const status = options.status ?? null;
      if (status !== null && !STATUSES.includes(status as DeliveryStatus)) {
        throw new UsageError(`--status is one of ${STATUSES.join(', ')}.`);
      }
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
        throw new UsageError('--limit is a number from 1 to 10000.');
      await withAccounts(ctx, file, options, async ({ db, where }) => {
        const deliveries = new DeliveriesStore(db.store.sql);
        await deliveries.setUp();
        if (options.retry !== undefined) {
          const found = await deliveries.retryNow(options.retry.trim(), Date.now());
          if (found === undefined || found === 'delivered') {
            ctx.io.stderr.write(
              found === 'delivered'
                ? `error: the delivery ${options.retry} was delivered already.\n`
                : `error: there is no delivery with the id ${options.retry}; deliveries lists them.\n`,
            );
            ctx.exitCode = EXIT.refused;
            return;
          }
          ctx.io.stdout.write(`The delivery ${found.id} (${found.kind} ${found.target}) is due now.\n`);
          return;
        }
        const rows = (await deliveries.list({ status: status as DeliveryStatus | null, limit, before: null })).map(
          deliveryOf,
        );
        if (options.json === true) {
          ctx.io.stdout.write(`${JSON.stringify({ deliveries: rows }, null, 2)}\n`);
          return;
        }
        if (rows.length === 0) {
          ctx.io.stdout.write(`No deliveries${status ? ` ${status}` : ''} in ${where}.\n`);
          return;
        }
        const event = (d: (typeof rows)[number]) => `${d.entity} ${d.transition ?? d.event} ${d.recordId}`;
        ctx.io.stdout.write(
          formatColumns(
            ['id', 'kind', 'target', 'event', 'status', 'attempts', 'last answer', 'next try'],
            rows.map((d) => [
              d.id,
              d.kind,
              d.target,
              event(d),
              d.status,
              String(d.attempts),
              d.lastAt ? `${d.lastCode ?? d.lastError ?? 'ok'} at ${formatTime(d.lastAt)}` : '-',
              d.nextAt ? formatTime(d.nextAt) : '-',
            ]),
          ),
        );
      });
    });
}
