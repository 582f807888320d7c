import { describe, expect, it } from 'vitest';
import { CLAIMS } from '../../test/claims-spec.ts';
import { TEST_DATABASES } from '../../test/databases.ts';
import { filesServer, pdf, png, upload } from '../../test/uploads.ts';

/**
 * Point 7 names the fields each call takes: a file field is one of them like any other. The create
 * takes the receipt, the update the photos (added to those kept) and the title; each refuses a file
 * sent to a field it does not take, before anything is kept, and the OpenAPI document offers each
 * call's own file parts.
 */
const DECLARED = `${CLAIMS.replace('## 8. The error catalogue', '## 7. The calls it makes\n\n| method | path | payload | does |\n| --- | --- | --- | --- |\n| GET | /api/claims | | list Claim |\n| POST | /api/claims | Claim (title, amount, receipt) | create Claim |\n| GET | /api/claims/:id | | get Claim |\n| PATCH | /api/claims/:id | Claim (title, photos) | update Claim |\n\n## 8. The error catalogue')}`;

type Json = Record<string, unknown>;

describe.each(TEST_DATABASES)('uploads to the calls point 7 declares, on $name', (db) => {
  const served = filesServer(db, DECLARED, ['clerk']);

  it('refuses a file sent to a field the call does not take, keeping nothing, and adds to one it does', async () => {
    const refusedCreate = await upload(
      served.server,
      served.authorization,
      'POST',
      '/api/claims',
      { title: 'Taxi', amount: 30 },
      [
        { field: 'receipt', name: 'r.pdf', bytes: pdf() },
        { field: 'photos', name: 'p.png', bytes: png() },
      ],
    );
    expect(refusedCreate.status).toBe(400);
    expect(refusedCreate.body.code).toBe('INVALID_PAYLOAD');
    expect(String(refusedCreate.body.detail)).toContain('"photos"');
    expect(await served.kept()).toEqual([0, 0]);

    const created = await upload(
      served.server,
      served.authorization,
      'POST',
      '/api/claims',
      { title: 'Taxi', amount: 30 },
      [{ field: 'receipt', name: 'r.pdf', bytes: pdf() }],
    );
    expect(created.status).toBe(201);
    const path = `/api/claims/${created.body.id}`;

    // The update takes photos, not the receipt: replacing it here is refused, nothing kept.
    const refusedUpdate = await upload(served.server, served.authorization, 'PATCH', path, undefined, [
      { field: 'receipt', name: 'other.pdf', bytes: pdf('other') },
    ]);
    expect(refusedUpdate.status).toBe(400);
    expect(refusedUpdate.body.code).toBe('INVALID_PAYLOAD');
    expect(await served.kept()).toEqual([1, 1]);

    const first = await upload(served.server, served.authorization, 'PATCH', path, undefined, [
      { field: 'photos', name: 'a.png', bytes: png() },
    ]);
    const second = await upload(served.server, served.authorization, 'PATCH', path, { title: 'Taxi home' }, [
      { field: 'photos', name: 'b.png', bytes: png() },
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(String(second.body.photos).split(',')).toEqual([String(first.body.photos), expect.any(String)]);
    expect(second.body).toMatchObject({ title: 'Taxi home', receipt: created.body.receipt });
    expect(await served.kept()).toEqual([3, 3]);
  });

  it('describes each call’s own file parts in the OpenAPI document', async () => {
    const answer = await served.server.app.inject({ method: 'GET', url: '/api/openapi.json' });
    const paths = answer.json().paths as Record<string, Record<string, Json>>;
    type Body = { content: Record<string, { schema: { properties: Json; description?: string } }> };
    const multipart = (path: string, method: string) =>
      (paths[path]?.[method]?.requestBody as Body | undefined)?.content['multipart/form-data'];
    const create = multipart('/api/claims', 'post');
    const update = multipart('/api/claims/{id}', 'patch');
    expect(Object.keys(create?.schema.properties ?? {})).toEqual(['record', 'receipt']);
    expect(Object.keys(update?.schema.properties ?? {})).toEqual(['record', 'photos']);
    // A generated client's author learns how to add, replace and remove files from the document.
    expect(update?.schema.description).toMatch(/added to those it holds/);
    expect(update?.schema.description).toMatch(/remove/i);
  });
});
