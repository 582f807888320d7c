import createClient from 'openapi-fetch';
import type { components, paths } from '../generated/lending-desk.ts';
import { bearer, inDays, ok, type Person, type Walk } from './walk.ts';

type Loan = components['schemas']['Loan'];

/**
 * The desk catalogues a book and lends it to a member (created, read back, listed), then takes it
 * back; a loan due before it was lent is refused with DUE_BEFORE_LENT.
 */
export async function walk(baseUrl: string, people: { staff: Person; member: Person }): Promise<Walk> {
  const api = createClient<paths>({ baseUrl });
  const book = ok(
    await api.POST('/api/books', {
      headers: bearer(people.staff),
      body: {
        title: 'The Left Hand of Darkness',
        author: 'Le Guin, Ursula K.',
        isbn: '9780441478125',
        shelf: 'FIC-120',
      },
    }),
  );
  const created: Loan = ok(
    await api.POST('/api/loans', {
      headers: bearer(people.staff),
      body: { book: book.id, borrower: people.member.id, due: inDays(14) },
    }),
  );
  const got = ok(
    await api.GET('/api/loans/{id}', { headers: bearer(people.member), params: { path: { id: created.id } } }),
  );
  const page = ok(await api.GET('/api/loans', { headers: bearer(people.member) }));
  const moved = ok(
    await api.POST('/api/loans/{id}/return', {
      headers: bearer(people.staff),
      params: { path: { id: created.id } },
      body: { condition_note: 'Coffee stain on page 12.' },
    }),
  );
  const { error, response } = await api.POST('/api/loans', {
    headers: bearer(people.staff),
    body: { book: book.id, borrower: people.member.id, lent_on: inDays(0), due: inDays(-1) },
  });
  if (error?.code !== 'DUE_BEFORE_LENT') throw new Error(`a loan due before it was lent answered ${response.status}`);
  return {
    created: { id: created.id, state: created.state },
    got: { id: got.id },
    listed: page.items.map((item) => item.id),
    moved: { state: moved.state },
    refused: {
      status: response.status,
      code: error.code,
      field: error.errors?.[0]?.field ?? null,
      fieldCode: error.errors?.[0]?.code ?? null,
    },
  };
}
