import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { blankModel, insertRowBefore, LENDING_DESK, LENDING_DESK_DERIVED, modelOf } from '../../test/helpers.ts';
import { compileApp } from './compile-app.ts';
import type { OpenApiDocument, Response } from './openapi.ts';

/** A response, following its $ref into the components. */
function response(document: OpenApiDocument, r: Response | { $ref: string } | undefined): Response | undefined {
  if (!r || !('$ref' in r)) return r;
  return document.components.responses[r.$ref.replace('#/components/responses/', '')];
}

async function expectValidOpenApi(document: OpenApiDocument): Promise<void> {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(document) as unknown as Record<string, unknown>);
  expect(result.errors).toBeUndefined();
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
  // Every $ref points at a component that exists.
  for (const [, kind, name] of JSON.stringify(document).matchAll(
    /"\$ref":"#\/components\/(schemas|responses)\/([^"]+)"/g,
  )) {
    expect(document.components[kind as 'schemas' | 'responses'], `missing ${kind} ${name}`).toHaveProperty([
      name as string,
    ]);
  }
}

describe('the OpenAPI document', () => {
  it('of the blank spec has the system calls and no entity paths', async () => {
    const { openapi } = compileApp(blankModel());
    await expectValidOpenApi(openapi);
    expect(openapi.openapi).toMatch(/^3\.1\.\d+$/);
    expect(openapi.info.title).toBe('New product');
    expect(Object.keys(openapi.paths)).toEqual(['/api/health', '/api/spec', '/api/openapi.json', '/api/docs']);
    expect(Object.keys(openapi.components.schemas)).toEqual(['ninepoint.Problem', 'ninepoint.Health']);
  });

  it('lists exactly the declared calls, with payload and answer schemas', async () => {
    const { openapi, routeTable } = compileApp(modelOf(LENDING_DESK));
    await expectValidOpenApi(openapi);
    expect(openapi.info).toMatchObject({
      title: 'Lending desk',
      summary: 'Lets the staff of a small library lend books to members. Members see their own loans.',
    });
    expect(routeTable.routes.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/books',
      'POST /api/books',
      'POST /api/loans/:id/return',
    ]);
    const books = openapi.paths['/api/books'];
    expect(Object.keys(books ?? {})).toEqual(['get', 'post']);
    expect(books?.post?.requestBody?.content['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/Book.create',
    });
    expect(response(openapi, books?.post?.responses['201'])?.content?.['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/Book',
    });
    expect(response(openapi, books?.get?.responses['200'])?.content?.['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/Book.page',
    });

    const ret = openapi.paths['/api/loans/{id}/return']?.post;
    expect(ret?.operationId).toBe('returnLoan');
    expect(ret?.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
    ]);
    // Errors come from the catalogue: built-ins and the spec's own codes, grouped by status.
    const conflict = response(openapi, ret?.responses['409']);
    expect(conflict?.content?.['application/problem+json']?.schema).toEqual({
      allOf: [
        { $ref: '#/components/schemas/ninepoint.Problem' },
        { properties: { code: { enum: ['TRANSITION_NOT_ALLOWED', 'CONFLICT', 'LOAN_LIMIT'] } } },
      ],
    });
    expect(conflict?.description).toContain('LOAN_LIMIT: A member may hold at most {MAX_LOANS} books at once.');
    // A POST has its body read even when it takes none: a malformed or oversized one is refused.
    expect(Object.keys(ret?.responses ?? {})).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '422',
      '429',
      '500',
    ]);

    const schemas = openapi.components.schemas;
    expect(schemas.Book?.required).toEqual(['id', 'created_at', 'updated_at', 'created_by', 'title', 'isbn', 'copies']);
    expect(schemas['Book.create']?.required).toEqual(['title', 'isbn']);
    expect(schemas.Loan?.properties?.state).toMatchObject({ enum: ['out', 'overdue', 'returned'] });
  });

  it('lists the derived REST set when point 7 is not shown', async () => {
    const { openapi } = compileApp(modelOf(LENDING_DESK_DERIVED));
    await expectValidOpenApi(openapi);
    const operations = Object.entries(openapi.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    expect(operations).toEqual([
      'GET /api/health getHealth',
      'GET /api/spec getSpec',
      'GET /api/openapi.json getOpenApi',
      'GET /api/docs getApiDocs',
      'GET /api/books listBooks',
      'POST /api/books createBook',
      'GET /api/books/{id} getBook',
      'PATCH /api/books/{id} updateBook',
      'DELETE /api/books/{id} deleteBook',
      'GET /api/books/{id}/history getBookHistory',
      'GET /api/loans listLoans',
      'POST /api/loans createLoan',
      'GET /api/loans/{id} getLoan',
      'PATCH /api/loans/{id} updateLoan',
      'DELETE /api/loans/{id} deleteLoan',
      'GET /api/loans/{id}/history getLoanHistory',
      'POST /api/loans/{id}/return returnLoan',
      'POST /api/loans/{id}/mark-overdue markOverdueLoan',
    ]);
    expect(openapi.paths['/api/books/{id}']?.patch?.requestBody?.content['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/Book.update',
    });
    expect(Object.keys(openapi.paths['/api/books/{id}']?.delete?.responses ?? {})).toContain('204');
    // The creating transition "lend" has a guard: creating a Loan can be refused.
    expect(response(openapi, openapi.paths['/api/loans']?.post?.responses['409'])?.description).toContain(
      'TRANSITION_NOT_ALLOWED',
    );
  });

  it('documents the query parameters of lists, and the headers of optimistic concurrency', async () => {
    const { openapi } = compileApp(modelOf(LENDING_DESK_DERIVED));
    const list = openapi.paths['/api/loans']?.get;
    expect(list?.parameters?.map((p) => `${p.in} ${p.name}`)).toEqual([
      'query limit',
      'query cursor',
      'query sort',
      'query count',
      'query filter[state]',
      'query filter[book]',
      'query filter[borrower]',
      'query filter[due]',
    ]);
    expect(list?.parameters?.find((p) => p.name === 'limit')?.schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 200,
      default: 50,
    });
    expect(list?.parameters?.find((p) => p.name === 'sort')?.schema.enum).toContain('-due');
    expect(list?.parameters?.find((p) => p.name === 'filter[due]')?.schema).toEqual({ type: 'string', format: 'date' });
    // Books have text fields, so they can be searched.
    expect(openapi.paths['/api/books']?.get?.parameters?.map((p) => p.name)).toContain('q');
    expect(Object.keys(list?.responses ?? {})).toContain('400');

    const one = openapi.paths['/api/books/{id}'];
    expect(one?.patch?.parameters?.map((p) => `${p.in} ${p.name}`)).toEqual(['path id', 'header If-Match']);
    expect(one?.delete?.parameters?.map((p) => `${p.in} ${p.name}`)).toEqual(['path id', 'header If-Match']);
    expect(Object.keys(response(openapi, one?.get?.responses['200'])?.headers ?? {})).toEqual(['ETag']);
    const created = response(openapi, openapi.paths['/api/books']?.post?.responses['201']);
    expect(Object.keys(created?.headers ?? {})).toEqual(['ETag', 'Location']);
    // A loan's book must exist; a book's isbn must be unique.
    expect(response(openapi, openapi.paths['/api/loans']?.post?.responses['422'])?.description).toContain(
      'UNKNOWN_REFERENCE',
    );
    expect(response(openapi, one?.patch?.responses['409'])?.description).toContain('NOT_UNIQUE');
  });

  it('uses the statuses and messages the spec gives built-in codes', () => {
    const source = insertRowBefore(LENDING_DESK, ['LOAN_LIMIT', '409'], '| RATE_LIMITED | 503 | Slow down. |');
    const { openapi } = compileApp(modelOf(source));
    const list = openapi.paths['/api/books']?.get;
    expect(response(openapi, list?.responses['503'])?.description).toBe('RATE_LIMITED: Slow down.');
    expect(list?.responses['429']).toBeUndefined();
  });

  it('changes its version exactly when the API changes', () => {
    const a = compileApp(modelOf(LENDING_DESK)).openapi.info.version;
    expect(compileApp(modelOf(LENDING_DESK)).openapi.info.version).toBe(a);
    expect(compileApp(modelOf(LENDING_DESK_DERIVED)).openapi.info.version).not.toBe(a);
  });
});
