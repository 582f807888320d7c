import createClient from 'openapi-fetch';
import type { components, paths } from '../generated/quotes.ts';
import { bearer, ok, type Person, type Walk } from './walk.ts';

type Quote = components['schemas']['Quote'];

/**
 * Sales write a quote (created, read back, listed), price it with the custom call the spec names
 * (`code quotes/pricing.ts`: its payload and answer typed from the OpenAPI document) and send it;
 * a quote for more benches than the floor has is refused before it is written (OUT_OF_STOCK).
 */
export async function walk(baseUrl: string, people: { sales: Person }): Promise<Walk> {
  const api = createClient<paths>({ baseUrl });
  const created: Quote = ok(
    await api.POST('/api/quotes', {
      headers: bearer(people.sales),
      body: { customer: 'Mill Café', product: 'stool', quantity: 12 },
    }),
  );
  const got = ok(
    await api.GET('/api/quotes/{id}', { headers: bearer(people.sales), params: { path: { id: created.id } } }),
  );
  const page = ok(await api.GET('/api/quotes', { headers: bearer(people.sales) }));
  const priced: Quote = ok(
    await api.POST('/api/quotes/{id}/price', {
      headers: bearer(people.sales),
      params: { path: { id: created.id } },
      body: { discount: 5 },
    }),
  );
  if (priced.total !== 703.95) throw new Error(`12 stools at 5 % and 5 % off came to ${priced.total}`);
  const moved = ok(
    await api.POST('/api/quotes/{id}/send', { headers: bearer(people.sales), params: { path: { id: created.id } } }),
  );
  const { error, response } = await api.POST('/api/quotes', {
    headers: bearer(people.sales),
    body: { customer: 'Big Hotel', product: 'bench', quantity: 41 },
  });
  if (error?.code !== 'OUT_OF_STOCK') throw new Error(`41 benches answered ${response.status}`);
  return {
    created: { id: created.id, state: created.state },
    got: { id: got.id },
    listed: page.items.map((item) => item.id),
    moved: { state: moved.state },
    refused: { status: response.status, code: error.code, field: null, fieldCode: null },
  };
}
