import { DEFAULT_LONG_TEXT_LENGTH, DEFAULT_TEXT_LENGTH } from '@ninepoint/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

const SPEC = `# Specification: Notes

## 1. What the product does and for whom

People keep notes.

## 3. Entities and their fields

### Note

| field   | type      | rules                       |
| ------- | --------- | --------------------------- |
| title   | text      | required                    |
| body    | long text | optional                    |
| code    | text      | optional, at least 3 characters |
| summary | text      | required, at most 5000 characters |
`;

// The JSON Schema decides both, before any database; issue 28 asks for both databases all the same.
describe.each(TEST_DATABASES)('text inputs on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let authorization: string;
  const call = callAs(() => server);

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(SPEC), ...fresh.options, logger: false });
    ({ authorization } = await userWithToken(server));
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  const create = (body: Record<string, unknown>) =>
    call(authorization, 'POST', '/api/notes', { title: 'Groceries', summary: 'Milk', ...body });

  it('refuses a required text that is empty or blank with REQUIRED, on create and update', async () => {
    for (const title of ['', '   ', '\t\n ']) {
      const answer = await create({ title });
      expect(answer.status, JSON.stringify(title)).toBe(422);
      expect(answer.body).toMatchObject({
        code: 'VALIDATION_FAILED',
        errors: [{ field: 'title', code: 'REQUIRED' }],
      });
    }
    const made = await create({});
    expect(made.status).toBe(201);
    const patched = await call(authorization, 'PATCH', `/api/notes/${made.body.id}`, { summary: ' ' });
    expect(patched.body).toMatchObject({ errors: [{ field: 'summary', code: 'REQUIRED' }] });
    // An optional text may still be cleared, and text around spaces is text.
    expect((await create({ title: '  x  ', body: '' })).status).toBe(201);
  });

  it('bounds a text without a length rule by the documented default, and a long text by its own', async () => {
    expect((await create({ title: 'x'.repeat(DEFAULT_TEXT_LENGTH) })).status).toBe(201);
    const long = await create({ title: 'x'.repeat(DEFAULT_TEXT_LENGTH + 1) });
    expect(long.status).toBe(422);
    expect(long.body).toMatchObject({ errors: [{ field: 'title', code: 'TOO_LONG' }] });
    expect((await create({ body: 'x'.repeat(DEFAULT_LONG_TEXT_LENGTH) })).status).toBe(201);
    const million = await create({ body: 'x'.repeat(1_000_000) });
    expect(million.body).toMatchObject({ errors: [{ field: 'body', code: 'TOO_LONG' }] });
    // A length the spec gives is the field's own, above or below the default.
    expect((await create({ summary: 'x'.repeat(5000) })).status).toBe(201);
    expect((await create({ code: 'x'.repeat(DEFAULT_TEXT_LENGTH + 1) })).status).toBe(422);
  });

  it('documents the bound in the OpenAPI document', async () => {
    const document = (await server.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
      components: { schemas: Record<string, { properties: Record<string, { maxLength?: number }> }> };
    };
    const schema = Object.entries(document.components.schemas).find(([name]) => /^Note.*create/i.test(name))?.[1];
    expect(schema?.properties.title?.maxLength).toBe(DEFAULT_TEXT_LENGTH);
    expect(schema?.properties.body?.maxLength).toBe(DEFAULT_LONG_TEXT_LENGTH);
  });
});
