import createClient from 'openapi-fetch';
import type { components, paths } from '../generated/helpdesk.ts';
import { bearer, ok, type Person, type Walk } from './walk.ts';

type Ticket = components['schemas']['Ticket'];

/**
 * An agent logs a ticket for themselves (created, read back, listed) and assigns it; a requester
 * opening an urgent ticket is refused with URGENT_BY_PHONE.
 */
export async function walk(baseUrl: string, people: { agent: Person; requester: Person }): Promise<Walk> {
  const api = createClient<paths>({ baseUrl });
  const created: Ticket = ok(
    await api.POST('/api/tickets', {
      headers: bearer(people.agent),
      body: {
        title: 'Printer on floor 3 jams',
        description: 'Every second page jams in tray 2 since this morning.',
        category: 'hardware',
        priority: 'normal',
        assignee: people.agent.id,
        asset_tag: 'IT-00420',
      },
    }),
  );
  const got = ok(
    await api.GET('/api/tickets/{id}', { headers: bearer(people.agent), params: { path: { id: created.id } } }),
  );
  const page = ok(await api.GET('/api/tickets', { headers: bearer(people.agent), params: { query: { limit: 10 } } }));
  const moved = ok(
    await api.POST('/api/tickets/{id}/assign', { headers: bearer(people.agent), params: { path: { id: created.id } } }),
  );
  const { error, response } = await api.POST('/api/tickets', {
    headers: bearer(people.requester),
    body: { title: 'Cannot sign in', description: 'Locked out before a client call.', priority: 'urgent' },
  });
  if (error?.code !== 'URGENT_BY_PHONE')
    throw new Error(`an urgent ticket from a requester answered ${response.status}`);
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
