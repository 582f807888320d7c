// Before a quote is created (point 7's Code: `before create Quote`): the floor cannot build more
// than its stock this month, a number that lives in the tariff, not in the spec.
import { defineHook } from '../quotes.types.ts';
import { TARIFF } from './tariff.ts';

export const checkStock = defineHook('Quote', ({ changes, refuse }) => {
  const { product, quantity } = changes;
  if (product && typeof quantity === 'number' && quantity > TARIFF[product].stock) refuse('OUT_OF_STOCK');
});
