import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelOf, tempDir } from '../../test/helpers.ts';
import { type ContractAnswer, OpenApiContract } from '../../test/openapi-contract.ts';
import { userWithToken } from '../../test/users.ts';
import type { OpenApiDocument } from '../compile/openapi.ts';
import { createServer, type NinepointServer } from './server.ts';

/** Blind review: reviewers `read except (speaker, bio)`, so `/api/auth/me` lists the fields they read. */
const SOURCE = readFileSync(new URL('../../test/fixtures/blind-review.md', import.meta.url), 'utf8');

/**
 * The contract the shared test hook (`test/contract-hook.ts`) holds every answer to, checked
 * here on answers of a real server, so what it accepts and refuses does not rest on the hook.
 */
describe('the OpenAPI document as the contract of every answer', () => {
  const temp = tempDir();
  let server: NinepointServer;
  let contract: OpenApiContract;
  let reviewer: string;

  /** A call's answer as the contract reads it. */
  const answer = async (authorization: string, method: 'GET' | 'POST', url: string): Promise<ContractAnswer> => {
    const reply = await server.app.inject({ method, url, headers: { authorization } });
    return {
      method,
      path: url.split('?', 1)[0] ?? url,
      status: reply.statusCode,
      contentType: reply.headers['content-type'] as string | undefined,
      body: reply.body,
    };
  };

  beforeAll(async () => {
    server = await createServer({ model: modelOf(SOURCE), dbPath: temp.dbPath, logger: false });
    contract = new OpenApiContract(server.compiled.openapi);
    reviewer = (await userWithToken(server, ['reviewer'])).authorization;
  });
  afterAll(async () => {
    await server.close();
    temp.remove();
  });

  it("describes /api/auth/me's answer, the fields a role reads included", async () => {
    const me = await answer(reviewer, 'GET', '/api/auth/me');
    expect(JSON.parse(me.body ?? '').access.Talk.readFields).toEqual(['title', 'abstract', 'score']);
    expect(contract.check(me)).toBeNull();
  });

  it("refuses /api/auth/me's answer against a schema without readFields (the document before issue 24)", async () => {
    const document = structuredClone(server.compiled.openapi) as OpenApiDocument;
    const ok = document.paths['/api/auth/me']?.get?.responses['200'];
    const access = ok && 'content' in ok ? ok.content?.['application/json']?.schema.properties?.access : undefined;
    const perEntity = access?.additionalProperties;
    if (typeof perEntity !== 'object' || !perEntity.properties) throw new Error('no access schema');
    delete perEntity.properties.readFields;
    perEntity.required = perEntity.required?.filter((name) => name !== 'readFields');
    const violation = new OpenApiContract(document).check(await answer(reviewer, 'GET', '/api/auth/me'));
    expect(violation).toMatchObject({ operation: 'GET /api/auth/me', status: 200 });
    expect(violation?.message).toMatch(/\/access\/Talk must NOT have additional properties.*readFields/);
  });

  it('checks problem answers against the response their status documents', async () => {
    const signedOut = await answer('Bearer npt_not-a-token', 'GET', '/api/talks');
    expect(signedOut.status).toBe(401);
    expect(contract.check(signedOut)).toBeNull();
    const broken = {
      ...signedOut,
      body: JSON.stringify({ ...JSON.parse(signedOut.body ?? ''), status: 'four oh one' }),
    };
    expect(contract.check(broken)?.message).toMatch(/\/status must be integer/);
  });

  it('refuses a status the operation does not document, and an undocumented content type', async () => {
    const me = await answer(reviewer, 'GET', '/api/auth/me');
    expect(contract.check({ ...me, status: 418 })?.message).toMatch(/status 418 is not documented \(200, 401/);
    expect(contract.check({ ...me, contentType: 'text/plain' })?.message).toMatch(
      /Content-Type text\/plain is not documented \(application\/json\)/,
    );
  });

  it('tells a literal path from a templated one, and holds problems on unknown paths to the Problem schema', async () => {
    const unknown = await answer(reviewer, 'GET', '/api/no-such-thing');
    expect(unknown.status).toBe(404);
    expect(contract.check(unknown)).toBeNull();
    expect(contract.check({ ...unknown, body: '{"title":"Not found"}' })).toMatchObject({
      operation: 'GET /api/no-such-thing (not in the document)',
    });
    const history = await answer(reviewer, 'GET', '/api/talks/01890a5d-ac96-774b-bcce-b302099a8057/history');
    expect(contract.check(history)).toBeNull();
  });
});
