import { blankSpec } from '@ninepoint/spec';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { blankModel, insertRowBefore, LENDING_DESK, LENDING_DESK_DERIVED, modelOf } from '../../test/helpers.ts';
import { SYSTEM_PATHS } from '../../test/system-paths.ts';
import { createAjv } from '../compile/ajv.ts';
import type { OpenApiDocument, Operation, Response } from '../compile/openapi.ts';
import {
  PASSWORD_RESET_ACCEPTED,
  PASSWORD_RESET_CONFIRM_SCHEMA,
  PASSWORD_RESET_DONE_SCHEMA,
  PASSWORD_RESET_SCHEMA,
  SIGN_IN_SCHEMA,
  USER_SCHEMA,
} from '../people/people-schemas.ts';

import { compileApp } from './compile-app.ts';

/** A response, following its $ref into the components. */
function response(document: OpenApiDocument, r: Response | { $ref: string } | undefined): Response | undefined {
  if (!r || !('$ref' in r)) return r;
  return document.components.responses[r.$ref.replace('#/components/responses/', '')];
}

/** The problem codes of an operation's error answers, by status. */
function codesOf(document: OpenApiDocument, operation: Operation | undefined): Record<string, string[]> {
  const codes: Record<string, string[]> = {};
  for (const [status, r] of Object.entries(operation?.responses ?? {})) {
    const schema = response(document, r)?.content?.['application/problem+json']?.schema as
      | { allOf: [unknown, { properties: { code: { enum: string[] } } }] }
      | undefined;
    if (schema) codes[status] = schema.allOf[1].properties.code.enum;
  }
  return codes;
}

/** Every operation of a document, by operationId. */
function operations(document: OpenApiDocument): Map<string, Operation> {
  return new Map(
    Object.values(document.paths).flatMap((methods) => Object.values(methods).map((op) => [op.operationId, op])),
  );
}

/** A spec with one entity and point 6 not shown: any signed-in user may do everything. */
const NO_ROLES = blankSpec().replace(
  '## 3. Entities and their fields\nNot shown.',
  '## 3. Entities and their fields\n\n### Note\n\n| field | type | rules |\n| ----- | ---- | ----- |\n| text | text | required |\n',
);

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
    expect(Object.keys(openapi.paths)).toEqual([...SYSTEM_PATHS]);
    expect(Object.keys(openapi.components.schemas)).toEqual([
      'ninepoint.Problem',
      'ninepoint.Health',
      'ninepoint.SignIn',
      'ninepoint.User',
      'ninepoint.DirectoryUser',
      'ninepoint.ManagedUser',
      'ninepoint.AccountChange',
      'ninepoint.AccountEvent',
      'ninepoint.PasswordReset',
      'ninepoint.PasswordResetConfirm',
      'ninepoint.SignUp',
      'ninepoint.VerifyEmail',
      'ninepoint.Invite',
      'ninepoint.Invitation',
      'ninepoint.AcceptInvitation',
      'ninepoint.InvitationLookup',
      'ninepoint.SignInSecondStep',
      'ninepoint.ConfirmTwoFactor',
      'ninepoint.DisableTwoFactor',
      'ninepoint.Passkey',
      'ninepoint.PasskeyRegister',
      'ninepoint.PasskeySignIn',
      'ninepoint.SavedView',
      'ninepoint.SaveView',
      'ninepoint.Delivery',
      'ninepoint.Notification',
    ]);
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
      'POST /api/auth/sign-in signIn',
      'POST /api/auth/sign-out signOut',
      'POST /api/auth/password-reset requestPasswordReset',
      'POST /api/auth/password-reset/confirm confirmPasswordReset',
      'POST /api/auth/sign-up signUp',
      'POST /api/auth/verify-email verifyEmail',
      'POST /api/invitations createInvitation',
      'GET /api/invitations listInvitations',
      'DELETE /api/invitations/{id} revokeInvitation',
      'POST /api/invitations/accept acceptInvitation',
      'POST /api/invitations/lookup lookUpInvitation',
      'GET /api/auth/me getMe',
      'GET /api/users listUsers',
      'PATCH /api/users/{id} changeUser',
      'GET /api/users/{id}/history getUserHistory',
      'POST /api/auth/sign-in/two-factor signInSecondStep',
      'POST /api/auth/two-factor/enrol enrolTwoFactor',
      'POST /api/auth/two-factor/confirm confirmTwoFactor',
      'POST /api/auth/two-factor/disable disableTwoFactor',
      'DELETE /api/users/{id}/two-factor resetUserTwoFactor',
      'POST /api/auth/passkeys/register/options passkeyRegisterOptions',
      'POST /api/auth/passkeys/register registerPasskey',
      'GET /api/auth/passkeys listPasskeys',
      'DELETE /api/auth/passkeys/{id} removePasskey',
      'POST /api/auth/passkeys/sign-in/options passkeySignInOptions',
      'POST /api/auth/passkeys/sign-in signInWithPasskey',
      'GET /api/users/{id}/passkeys listUserPasskeys',
      'DELETE /api/users/{id}/passkeys/{passkeyId} removeUserPasskey',
      'GET /api/events streamEvents',
      'GET /api/views listViews',
      'POST /api/views saveView',
      'DELETE /api/views/{id} deleteView',
      'GET /api/deliveries listDeliveries',
      'POST /api/deliveries/{id}/retry retryDelivery',
      'GET /api/notifications listNotifications',
      'POST /api/notifications/read markAllNotificationsRead',
      'POST /api/notifications/{id}/read markNotificationRead',
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
      'GET /api/books/summary summarizeBooks',
      'GET /api/loans/summary summarizeLoans',
      'POST /api/books/import importBook',
      'POST /api/books/import/preview previewBookImport',
      'POST /api/loans/import importLoan',
      'POST /api/loans/import/preview previewLoanImport',
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
      ...['created_by', 'state', 'book', 'borrower'].flatMap((f) => [
        `query filter[${f}]`,
        `query filter[${f}][not]`,
        `query filter[${f}][empty]`,
      ]),
      'query filter[due]',
      'query filter[due][from]',
      'query filter[due][to]',
      'query filter[due][after]',
      'query filter[due][before]',
      'query filter[due][not]',
      'query filter[due][empty]',
      'query or',
    ]);
    // The or-groups nest their filters in brackets.
    expect(list?.parameters?.find((p) => p.name === 'or')).toMatchObject({ style: 'deepObject', explode: true });
    expect(list?.parameters?.find((p) => p.name === 'limit')?.schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 200,
      default: 50,
    });
    expect(list?.parameters?.find((p) => p.name === 'sort')?.schema.enum).toContain('-due');
    expect(list?.parameters?.find((p) => p.name === 'filter[due]')?.schema).toEqual({ type: 'string', format: 'date' });
    expect(list?.parameters?.find((p) => p.name === 'filter[due][from]')?.schema).toEqual({
      type: 'string',
      format: 'date',
    });
    // Several states at once: the parameter repeats.
    expect(list?.parameters?.find((p) => p.name === 'filter[state]')?.schema).toMatchObject({
      type: 'array',
      items: { type: 'string', enum: ['out', 'overdue', 'returned'] },
    });
    // Text fields are searched by `contains`.
    expect(openapi.paths['/api/books']?.get?.parameters?.map((p) => p.name)).toContain('filter[title][contains]');
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

  it('documents sign-in, sign-out and who is signed in, with the very schema the server validates sign-in with', async () => {
    const { openapi } = compileApp(blankModel());
    await expectValidOpenApi(openapi);
    expect(openapi.components.schemas['ninepoint.SignIn']).toBe(SIGN_IN_SCHEMA);
    expect(openapi.components.schemas['ninepoint.User']).toBe(USER_SCHEMA);
    const userAnswer = {
      type: 'object',
      properties: { user: { $ref: '#/components/schemas/ninepoint.User' } },
      required: ['user'],
      additionalProperties: false,
    };

    const signIn = openapi.paths['/api/auth/sign-in']?.post;
    expect(signIn?.operationId).toBe('signIn');
    expect(signIn?.requestBody?.content['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/ninepoint.SignIn',
    });
    const signedIn = response(openapi, signIn?.responses['200']);
    expect(signedIn?.content?.['application/json']?.schema).toEqual(userAnswer);
    expect(Object.keys(signedIn?.headers ?? {})).toEqual(['Set-Cookie']);
    expect(codesOf(openapi, signIn)).toEqual({
      '400': ['INVALID_PAYLOAD'],
      '401': ['SIGN_IN_FAILED', 'NOT_SIGNED_IN'],
      '403': ['FORBIDDEN', 'ACCOUNT_DEACTIVATED'],
      '413': ['PAYLOAD_TOO_LARGE'],
      '429': ['SIGN_IN_LOCKED', 'RATE_LIMITED'],
      '500': ['INTERNAL_ERROR'],
    });
    // Nobody needs to be signed in to sign in.
    expect(signIn?.security).toEqual([]);

    const signOut = openapi.paths['/api/auth/sign-out']?.post;
    expect(Object.keys(signOut?.responses ?? {})).toEqual(['204', '400', '401', '403', '413', '429', '500']);
    expect(signOut?.requestBody).toBeUndefined();
    expect(signOut?.security).toEqual([{ session: [] }, {}]);

    const me = openapi.paths['/api/auth/me']?.get;
    const meSchema = response(openapi, me?.responses['200'])?.content?.['application/json']?.schema;
    expect(meSchema).toMatchObject({
      ...userAnswer,
      properties: { user: { anyOf: [{ $ref: '#/components/schemas/ninepoint.User' }, { type: 'null' }] } },
      required: ['user', 'access', 'people', 'signUp', 'singleSignOn', 'twoFactor'],
    });
    expect(meSchema?.properties?.access).toMatchObject({ type: 'object', additionalProperties: { type: 'object' } });
    expect(codesOf(openapi, me)).toEqual({
      '401': ['NOT_SIGNED_IN'],
      '429': ['RATE_LIMITED'],
      '500': ['INTERNAL_ERROR'],
    });
    expect(me?.security).toEqual([{ session: [] }, { token: [] }, {}]);

    expect(openapi.components.securitySchemes).toEqual({
      session: {
        type: 'apiKey',
        in: 'cookie',
        name: 'np_session',
        description: expect.stringContaining('__Host-np_session'),
      },
      token: { type: 'http', scheme: 'bearer', description: expect.stringContaining('NOT_SIGNED_IN') },
    });
  });

  it('documents asking for a password reset and following its link: no credentials, their bodies and every refusal', async () => {
    const { openapi } = compileApp(blankModel());
    await expectValidOpenApi(openapi);
    expect(openapi.components.schemas['ninepoint.PasswordReset']).toBe(PASSWORD_RESET_SCHEMA);
    expect(openapi.components.schemas['ninepoint.PasswordResetConfirm']).toBe(PASSWORD_RESET_CONFIRM_SCHEMA);

    const ask = openapi.paths['/api/auth/password-reset']?.post;
    expect(ask?.operationId).toBe('requestPasswordReset');
    expect(ask?.security).toEqual([]);
    expect(ask?.requestBody?.content['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/ninepoint.PasswordReset',
    });
    const accepted = response(openapi, ask?.responses['202'])?.content?.['application/json']?.schema;
    expect(createAjv().compile(accepted ?? {})(PASSWORD_RESET_ACCEPTED)).toBe(true);
    expect(codesOf(openapi, ask)).toEqual({
      '400': ['INVALID_PAYLOAD'],
      '401': ['NOT_SIGNED_IN'],
      '403': ['FORBIDDEN'],
      '413': ['PAYLOAD_TOO_LARGE'],
      '429': ['RATE_LIMITED'],
      '500': ['INTERNAL_ERROR'],
    });

    const confirm = openapi.paths['/api/auth/password-reset/confirm']?.post;
    expect(confirm?.operationId).toBe('confirmPasswordReset');
    expect(confirm?.security).toEqual([]);
    expect(confirm?.requestBody?.content['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/ninepoint.PasswordResetConfirm',
    });
    expect(response(openapi, confirm?.responses['200'])?.content?.['application/json']?.schema).toBe(
      PASSWORD_RESET_DONE_SCHEMA,
    );
    expect(codesOf(openapi, confirm)).toEqual({
      '400': ['INVALID_PAYLOAD', 'RESET_LINK_INVALID'],
      '401': ['NOT_SIGNED_IN'],
      '403': ['FORBIDDEN'],
      '413': ['PAYLOAD_TOO_LARGE'],
      '422': ['VALIDATION_FAILED'],
      '429': ['RATE_LIMITED'],
      '500': ['INTERNAL_ERROR'],
    });
  });

  it('asks a session or a token of each entity call, or nothing where point 6 lets signed-out visitors in', async () => {
    const signedIn = [{ session: [] }, { token: [] }];
    const anybody = [...signedIn, {}];
    const closed = compileApp(modelOf(LENDING_DESK_DERIVED)).openapi;
    for (const [id, operation] of operations(closed)) {
      if (operation.tags.includes('system')) continue;
      expect(operation.security, id).toEqual(signedIn);
    }

    const source = insertRowBefore(LENDING_DESK_DERIVED, ['member'], '| anyone | create, read | |');
    const open = compileApp(modelOf(source)).openapi;
    await expectValidOpenApi(open);
    const security = Object.fromEntries(
      [...operations(open)].filter(([, op]) => !op.tags.includes('system')).map(([id, op]) => [id, op.security]),
    );
    expect(security).toEqual({
      listBooks: anybody,
      createBook: anybody,
      getBook: anybody,
      updateBook: signedIn,
      deleteBook: signedIn,
      getBookHistory: anybody,
      listLoans: signedIn,
      createLoan: signedIn,
      getLoan: signedIn,
      updateLoan: signedIn,
      deleteLoan: signedIn,
      getLoanHistory: signedIn,
      returnLoan: signedIn,
      markOverdueLoan: signedIn,
      summarizeBooks: anybody,
      summarizeLoans: signedIn,
      importBook: anybody,
      previewBookImport: anybody,
      importLoan: signedIn,
      previewLoanImport: signedIn,
    });
  });

  it('lists 401 and 403 wherever they can occur', async () => {
    // Point 6 shown: a visitor may be refused (401) and a user (403) on any call.
    const withRoles = compileApp(modelOf(LENDING_DESK_DERIVED)).openapi;
    for (const [id, operation] of operations(withRoles)) {
      const codes = codesOf(withRoles, operation);
      // A bad API token answers NOT_SIGNED_IN on any call.
      expect(codes['401'], id).toContain('NOT_SIGNED_IN');
      if (!operation.tags.includes('system')) expect(codes['403'], id).toEqual(['FORBIDDEN']);
    }
    // Point 6 not shown: signed in, anybody may do anything; only a cross-site change by cookie is FORBIDDEN.
    const noRoles = compileApp(modelOf(NO_ROLES)).openapi;
    await expectValidOpenApi(noRoles);
    const refusals = Object.fromEntries(
      [...operations(noRoles)].map(([id, op]) => {
        const codes = codesOf(noRoles, op);
        return [id, [codes['401'], codes['403']]];
      }),
    );
    expect(refusals).toEqual({
      getHealth: [['NOT_SIGNED_IN'], undefined],
      getSpec: [['NOT_SIGNED_IN'], undefined],
      getOpenApi: [['NOT_SIGNED_IN'], undefined],
      getApiDocs: [['NOT_SIGNED_IN'], undefined],
      signIn: [
        ['SIGN_IN_FAILED', 'NOT_SIGNED_IN'],
        ['FORBIDDEN', 'ACCOUNT_DEACTIVATED'],
      ],
      signOut: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      requestPasswordReset: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      confirmPasswordReset: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      signUp: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      verifyEmail: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      createInvitation: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      listInvitations: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      revokeInvitation: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      acceptInvitation: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      lookUpInvitation: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      getMe: [['NOT_SIGNED_IN'], undefined],
      listUsers: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      changeUser: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      getUserHistory: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      signInSecondStep: [['TWO_FACTOR_FAILED', 'TWO_FACTOR_EXPIRED', 'NOT_SIGNED_IN'], ['FORBIDDEN']],
      enrolTwoFactor: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      confirmTwoFactor: [['TWO_FACTOR_FAILED', 'NOT_SIGNED_IN'], ['FORBIDDEN']],
      disableTwoFactor: [
        ['TWO_FACTOR_FAILED', 'SIGN_IN_FAILED', 'NOT_SIGNED_IN'],
        ['FORBIDDEN', 'TWO_FACTOR_REQUIRED'],
      ],
      resetUserTwoFactor: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      passkeyRegisterOptions: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      registerPasskey: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      listPasskeys: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      removePasskey: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      passkeySignInOptions: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      signInWithPasskey: [['SIGN_IN_FAILED', 'NOT_SIGNED_IN'], ['FORBIDDEN']],
      listUserPasskeys: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      removeUserPasskey: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      listViews: [['NOT_SIGNED_IN'], undefined],
      saveView: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      deleteView: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      listDeliveries: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      retryDelivery: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      listNotifications: [['NOT_SIGNED_IN'], undefined],
      markAllNotificationsRead: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      markNotificationRead: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      streamEvents: [['NOT_SIGNED_IN'], undefined],
      listNotes: [['NOT_SIGNED_IN'], undefined],
      createNote: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      getNote: [['NOT_SIGNED_IN'], undefined],
      updateNote: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      deleteNote: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      getNoteHistory: [['NOT_SIGNED_IN'], undefined],
      summarizeNotes: [['NOT_SIGNED_IN'], undefined],
      importNote: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
      previewNoteImport: [['NOT_SIGNED_IN'], ['FORBIDDEN']],
    });
  });

  it('serves a summary beside a declared list only for what a dashboard counts', () => {
    const paths = (source: string) => Object.keys(compileApp(modelOf(source)).openapi.paths);
    expect(paths(LENDING_DESK).filter((p) => p.endsWith('/summary'))).toEqual([]);
    const withDashboard = LENDING_DESK.replace(
      '| /my/loans  | list   | Loan where borrower = me | member        |',
      '| /my/loans  | list   | Loan where borrower = me | member        |\n| /overview | dashboard | Book: count, sum of copies | staff |',
    );
    expect(paths(withDashboard).filter((p) => p.endsWith('/summary'))).toEqual(['/api/books/summary']);
  });

  it('changes its version exactly when the API changes', () => {
    const a = compileApp(modelOf(LENDING_DESK)).openapi.info.version;
    expect(compileApp(modelOf(LENDING_DESK)).openapi.info.version).toBe(a);
    expect(compileApp(modelOf(LENDING_DESK_DERIVED)).openapi.info.version).not.toBe(a);
  });
});
