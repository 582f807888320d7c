// Every Monday at 06:00 workshop time (point 7's Schedules: `monday repricing`): the drafts are
// priced again from the new week's tariff, keeping each one's discount.
import { defineJob } from '../quotes.types.ts';
import { priceOf } from './tariff.ts';

export default defineJob(async ({ asSystem, due, log }) => {
  const drafts = await asSystem.list('Quote', { state: 'draft' });
  for (const quote of drafts) {
    const total = priceOf(quote.product, quote.quantity, quote.discount ?? 0);
    if (total !== quote.total) await asSystem.update('Quote', quote.id, { total, priced_at: due });
  }
  log.info('priced the drafts again', { drafts: drafts.length });
});
