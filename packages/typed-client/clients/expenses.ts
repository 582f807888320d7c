import createClient from 'openapi-fetch';
import type { components, paths } from '../generated/expenses.ts';
import { bearer, ok, type Person, type Walk } from './walk.ts';

type Expense = components['schemas']['Expense'];

/**
 * Finance file the employee's payroll record, the employee files a claim (created, read back,
 * listed) and submits it; a claim above their limit is refused with OVER_LIMIT.
 */
export async function walk(
  baseUrl: string,
  people: { finance: Person; manager: Person; employee: Person },
): Promise<Walk> {
  const api = createClient<paths>({ baseUrl });
  const employee = ok(
    await api.POST('/api/employees', {
      headers: bearer(people.finance),
      body: {
        person: people.employee.id,
        manager: people.manager.id,
        work_email: 'ana.costa@example.org',
        cost_center: 'CC-0420',
        single_claim_limit: 500,
        active: true,
      },
    }),
  );
  const claim = {
    employee: employee.id,
    approver: people.manager.id,
    description: 'Train to Leeds for the Acme kickoff',
    category: 'travel',
    amount: 84.5,
    currency: 'GBP',
    receipt: 'https://drive.example.org/receipts/leeds.pdf',
    receipt_attached: true,
  } as const;
  const created: Expense = ok(await api.POST('/api/expenses', { headers: bearer(people.employee), body: claim }));
  const got = ok(
    await api.GET('/api/expenses/{id}', { headers: bearer(people.employee), params: { path: { id: created.id } } }),
  );
  const page = ok(await api.GET('/api/expenses', { headers: bearer(people.employee) }));
  const moved = ok(
    await api.POST('/api/expenses/{id}/submit', {
      headers: bearer(people.employee),
      params: { path: { id: created.id } },
    }),
  );
  const { error, response } = await api.POST('/api/expenses', {
    headers: bearer(people.employee),
    body: { ...claim, amount: 612.4 },
  });
  if (error?.code !== 'OVER_LIMIT') throw new Error(`a claim above the limit answered ${response.status}`);
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
