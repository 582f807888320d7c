// After a quote is accepted (point 7's Code: `after Quote: accept`): the floor's order, made as
// the system (nobody's role creates orders; history says `system` made it).
import { defineHook } from '../quotes.types.ts';

export default defineHook('Quote', async ({ record, asSystem, log }) => {
  if (!record) return;
  const order = await asSystem.create('Order', { quote: record.id, total: record.total ?? 0 });
  log.info('made the order of an accepted quote', { quote: record.id, order: order.id });
});
