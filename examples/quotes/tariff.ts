// This week's tariff, as the floor sends it every Friday: a unit price per product, the stock
// the floor can build this month, and the volume discount. Plain data and arithmetic, imported by
// the modules that price quotes and check stock.

export type Product = 'bench' | 'stool' | 'shelf';

export const TARIFF: Readonly<Record<Product, { unit: number; stock: number }>> = {
  bench: { unit: 240, stock: 40 },
  stool: { unit: 65, stock: 200 },
  shelf: { unit: 120, stock: 80 },
};

/** Per cent off the unit price for a quantity: 5 from 10 pieces, 10 from 50. */
export function volumeDiscount(quantity: number): number {
  return quantity >= 50 ? 10 : quantity >= 10 ? 5 : 0;
}

/** The quote's total in euros, to the cent: the tariff, less the volume discount, less the discount asked. */
export function priceOf(product: Product, quantity: number, discount: number): number {
  const cents = TARIFF[product].unit * 100 * quantity * (1 - volumeDiscount(quantity) / 100) * (1 - discount / 100);
  return Math.round(cents) / 100;
}
