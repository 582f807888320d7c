import createClient from 'openapi-fetch';
import type { components, paths } from '../generated/expenses.ts';
import { bearer, ok, type Person, type Walk } from './walk.ts';

type Expense = components['schemas']['Expense'];
type Upload = paths['/api/expenses']['post']['requestBody']['content']['multipart/form-data'];

/** A multipart body as the server reads it: the `record` part as JSON, a part per file. */
function formOf(body: Upload): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    if (value instanceof Blob) form.append(name, value);
    else if (value !== undefined) form.append(name, new Blob([JSON.stringify(value)], { type: 'application/json' }));
  }
  return form;
}

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
  } as const;
  // The receipt is uploaded with the claim (multipart/form-data: the record as JSON, the file
  // beside it), as the OpenAPI document describes: above the threshold, submitting needs it. The
  // body's type is the document's multipart schema, so its part names are checked like fields.
  const pdf = new TextEncoder().encode(
    '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n' +
      'trailer<</Root 1 0 R>>\n%%EOF\n',
  );
  const sent = new File([pdf], 'leeds.pdf', { type: 'application/pdf' });
  const upload: Upload = { record: claim, receipt: sent };
  const created: Expense = ok(
    await api.POST('/api/expenses', {
      headers: bearer(people.employee),
      body: upload,
      bodySerializer: () => formOf(upload),
    }),
  );
  if (typeof created.receipt !== 'string') throw new Error('the claim was created without its receipt');
  // Downloaded back through the app's own file URL, with the employee's token.
  const download = await api.GET('/api/files/{id}', {
    headers: bearer(people.employee),
    params: { path: { id: created.receipt } },
    parseAs: 'arrayBuffer',
  });
  if (download.data === undefined) throw new Error(`the receipt's download answered ${download.response.status}`);
  const receipt = {
    sent: [...pdf],
    received: [...new Uint8Array(download.data)],
    type: download.response.headers.get('content-type'),
    disposition: download.response.headers.get('content-disposition'),
  };
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
    // JSON, as every other write: a claim above the limit, refused.
    headers: bearer(people.employee),
    body: { ...claim, amount: 612.4 },
  });
  if (error?.code !== 'OVER_LIMIT') throw new Error(`a claim above the limit answered ${response.status}`);
  return {
    created: { id: created.id, state: created.state },
    got: { id: got.id },
    listed: page.items.map((item) => item.id),
    moved: { state: moved.state },
    receipt,
    refused: {
      status: response.status,
      code: error.code,
      field: error.errors?.[0]?.field ?? null,
      fieldCode: error.errors?.[0]?.code ?? null,
    },
  };
}
