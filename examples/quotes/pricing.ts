// POST /api/quotes/:id/price (point 7: `code quotes/pricing.ts`): prices a quote from the tariff
// and the discount asked for, saves the total through the spec's own update call (so point 6's
// permissions and the fields' rules hold), and answers the quote as saved.
import { defineCall } from '../quotes.types.ts';
import { priceOf } from './tariff.ts';

export default defineCall('Quote', async ({ record, payload, constants, records, refuse, log }) => {
  const discount = payload.discount ?? record.discount ?? 0;
  if (record.quantity < constants.MIN_VOLUME && discount > constants.SMALL_ORDER_DISCOUNT) {
    refuse('DISCOUNT_TOO_HIGH');
  }
  const total = priceOf(record.product, record.quantity, discount);
  log.info('priced a quote', { quote: record.id, total });
  return records.update('Quote', record.id, { discount, total, priced_at: new Date().toISOString() });
});
