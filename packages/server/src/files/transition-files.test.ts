import { describe, expect, it } from 'vitest';
import { CLAIMS } from '../../test/claims-spec.ts';
import { TEST_DATABASES } from '../../test/databases.ts';
import { filesServer, pdf, png, upload } from '../../test/uploads.ts';

/**
 * A transition whose call (point 7) names file fields takes files with it, as multipart/form-data:
 * a claim is submitted with its receipt, which the submit's rule asks for. A field of one file has
 * it replaced, a field of several has the new ones added; a refused transition keeps none of the
 * files sent with it, and a file sent to a field the call does not take is refused before any is kept.
 */
const SUBMITTED = CLAIMS.replace(
  '## 5. Validation rules',
  `## 4. States and transitions

### Claim

| state     | meaning          |
| --------- | ---------------- |
| draft     | being written    |
| submitted | waiting for pay  |

| transition | from  | to        | who   |
| ---------- | ----- | --------- | ----- |
| open       | (new) | draft     | clerk |
| submit     | draft | submitted | clerk |

## 5. Validation rules`,
)
  .replace(
    '| receipt above limit | Claim      | amount <= 25 \\|\\| has(receipt)  | RECEIPT_REQUIRED |',
    '| receipt above limit | Claim      | amount <= 25 \\|\\| has(receipt)  | RECEIPT_REQUIRED |\n| receipt to submit   | Claim: submit | has(receipt)                   | RECEIPT_REQUIRED |',
  )
  .replace(
    '## 8. The error catalogue',
    `## 7. The calls it makes

| method | path                   | payload                        | does          |
| ------ | ---------------------- | ------------------------------ | ------------- |
| GET    | /api/claims            |                                | list Claim    |
| POST   | /api/claims            | Claim (title, amount)          | create Claim  |
| GET    | /api/claims/:id        |                                | get Claim     |
| GET    | /api/claims/:id/history |                               | history Claim |
| POST   | /api/claims/:id/submit | Claim (title, receipt, photos) | Claim: submit |

## 8. The error catalogue`,
  );

type Json = Record<string, unknown>;

describe.each(TEST_DATABASES)('files sent with a transition, on $name', (db) => {
  const served = filesServer(db, SUBMITTED, ['clerk']);
  const claim = async (title: string): Promise<string> => {
    const made = await served.server.app.inject({
      method: 'POST',
      url: '/api/claims',
      headers: { authorization: served.authorization },
      payload: { title, amount: 20 },
    });
    expect(made.statusCode).toBe(201);
    return String(made.json().id);
  };

  it('submits a claim with its receipt and photos, the files attached and the step in its history', async () => {
    const id = await claim('Taxi');
    const submitted = await upload(
      served.server,
      served.authorization,
      'POST',
      `/api/claims/${id}/submit`,
      { title: 'Taxi to the airport' },
      [
        { field: 'receipt', name: 'r.pdf', bytes: pdf() },
        { field: 'photos', name: 'a.png', bytes: png() },
        { field: 'photos', name: 'b.png', bytes: png() },
      ],
    );
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({ state: 'submitted', title: 'Taxi to the airport' });
    expect(String(submitted.body.photos).split(',')).toHaveLength(2);
    const receipt = await served.server.app.inject({
      method: 'GET',
      url: `/api/files/${String(submitted.body.receipt)}`,
      headers: { authorization: served.authorization },
    });
    expect(receipt.statusCode).toBe(200);
    expect(receipt.body).toContain('%PDF-1.4');
    const history = await served.server.app.inject({
      method: 'GET',
      url: `/api/claims/${id}/history`,
      headers: { authorization: served.authorization },
    });
    expect(history.json().items.at(-1)).toMatchObject({ transition: 'submit' });
  });

  it('keeps none of the files of a refused transition, nor of a call that sends one to a field it does not take', async () => {
    const id = await claim('Lunch');
    const before = await served.kept();
    const [stored = 0, fileRows = 0] = before;
    // The submit's rule wants a receipt: photos alone are refused, and not kept.
    const noReceipt = await upload(served.server, served.authorization, 'POST', `/api/claims/${id}/submit`, undefined, [
      { field: 'photos', name: 'a.png', bytes: png() },
    ]);
    expect([noReceipt.status, noReceipt.body.code]).toEqual([422, 'RECEIPT_REQUIRED']);
    expect(await served.kept()).toEqual(before);

    // `scan` is not the submit's: refused before any file is kept.
    const notTaken = await upload(served.server, served.authorization, 'POST', `/api/claims/${id}/submit`, undefined, [
      { field: 'receipt', name: 'r.pdf', bytes: pdf() },
      { field: 'scan', name: 's.pdf', bytes: pdf('scan') },
    ]);
    expect([notTaken.status, notTaken.body.code]).toEqual([400, 'INVALID_PAYLOAD']);
    expect(String(notTaken.body.detail)).toContain('"scan"');
    expect(await served.kept()).toEqual(before);

    // A file field named in the record part is refused: a transition only adds files.
    const named = await upload(
      served.server,
      served.authorization,
      'POST',
      `/api/claims/${id}/submit`,
      { receipt: null },
      [{ field: 'receipt', name: 'r.pdf', bytes: pdf() }],
    );
    expect([named.status, named.body.code]).toEqual([422, 'VALIDATION_FAILED']);
    expect(named.body.errors).toEqual([expect.objectContaining({ field: 'receipt', code: 'READ_ONLY_FIELD' })]);
    expect(await served.kept()).toEqual(before);

    // The claim left draft: a second submit is refused (TRANSITION_NOT_ALLOWED), its file not kept.
    const submitted = await upload(served.server, served.authorization, 'POST', `/api/claims/${id}/submit`, undefined, [
      { field: 'receipt', name: 'r.pdf', bytes: pdf() },
    ]);
    expect(submitted.status).toBe(200);
    const again = await upload(served.server, served.authorization, 'POST', `/api/claims/${id}/submit`, undefined, [
      { field: 'receipt', name: 'other.pdf', bytes: pdf('other') },
    ]);
    expect(again.status).toBe(409);
    expect(await served.kept()).toEqual([stored + 1, fileRows + 1]);
  });

  it('offers the transition’s file parts in the OpenAPI document', async () => {
    const answer = await served.server.app.inject({ method: 'GET', url: '/api/openapi.json' });
    const paths = answer.json().paths as Record<string, Record<string, Json>>;
    type Body = { content: Record<string, { schema: { properties: Json; description?: string } }> };
    const submit = (paths['/api/claims/{id}/submit']?.post?.requestBody as Body | undefined)?.content[
      'multipart/form-data'
    ];
    expect(Object.keys(submit?.schema.properties ?? {})).toEqual(['record', 'receipt', 'photos']);
    expect(submit?.schema.description).toMatch(/refused transition keeps none of the files/);
  });
});
