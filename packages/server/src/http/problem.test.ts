import { BUILTIN_ERRORS } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { blankModel, LENDING_DESK, modelOf } from '../../test/helpers.ts';
import { classifyError } from './error-handler.ts';
import { ProblemCatalogue, ProblemError, problemTitle } from './problem.ts';

const settings = { MAX_BODY_BYTES: 1024 };

describe('ProblemCatalogue', () => {
  it('answers every built-in code with its status and an RFC 9457 body', () => {
    const catalogue = new ProblemCatalogue(blankModel());
    for (const [code, entry] of Object.entries(BUILTIN_ERRORS)) {
      const body = catalogue.problem(code, {}, { instance: '/api/x' });
      expect(body.status).toBe(entry.status);
      expect(body).toMatchObject({ type: `urn:ninepoint:problem:${code}`, code, instance: '/api/x' });
      expect(body.title).toBe(problemTitle(code));
    }
  });

  it('fills placeholders from parameters, then constants, and leaves unknown ones as written', () => {
    const catalogue = new ProblemCatalogue(modelOf(LENDING_DESK));
    expect(catalogue.problem('LOAN_LIMIT', {}, { instance: '/' }).detail).toBe(
      'A member may hold at most 5 books at once.',
    );
    expect(
      catalogue.problem('NOT_FOUND', { entity: 'Book', id: 'b1' }, { instance: '/', requestId: 'r1' }),
    ).toMatchObject({ detail: 'No Book with id b1 was found.', requestId: 'r1' });
    expect(catalogue.problem('NOT_FOUND', {}, { instance: '/' }).detail).toBe('No {entity} with id {id} was found.');
    expect(catalogue.problem('PAYLOAD_TOO_LARGE', { limit: 2048 }, { instance: '/' }).detail).toBe(
      'The request body is larger than 2048 bytes.',
    );
  });

  it('answers an uncatalogued code as INTERNAL_ERROR', () => {
    const catalogue = new ProblemCatalogue(blankModel());
    expect(catalogue.problem('NO_SUCH_CODE', {}, { instance: '/' })).toMatchObject({
      code: 'INTERNAL_ERROR',
      status: 500,
    });
  });

  it('titles codes in words', () => {
    expect(problemTitle('UNKNOWN_CALL')).toBe('Unknown call');
    expect(problemTitle('DUE_IN_PAST')).toBe('Due in past');
  });
});

describe('classifyError', () => {
  const fastifyError = (code: string, statusCode: number) =>
    Object.assign(new Error('raw message'), { code, statusCode });

  it('passes catalogued problems through', () => {
    expect(classifyError(new ProblemError('NOT_FOUND', { entity: 'Book' }), settings)).toEqual({
      code: 'NOT_FOUND',
      params: { entity: 'Book' },
      internal: false,
      extras: {},
    });
  });

  it('maps body errors to INVALID_PAYLOAD and PAYLOAD_TOO_LARGE without the raw message', () => {
    expect(classifyError(fastifyError('FST_ERR_CTP_BODY_TOO_LARGE', 413), settings)).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      params: { limit: 1024 },
      internal: false,
    });
    for (const code of [
      'FST_ERR_CTP_INVALID_JSON_BODY',
      'FST_ERR_CTP_EMPTY_JSON_BODY',
      'FST_ERR_CTP_INVALID_MEDIA_TYPE',
      'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
      'FST_ERR_CTP_SOMETHING_NEW',
      'FST_ERR_VALIDATION',
    ]) {
      const classified = classifyError(fastifyError(code, 400), settings);
      expect(classified.code).toBe('INVALID_PAYLOAD');
      expect(JSON.stringify(classified.params)).not.toContain('raw message');
    }
  });

  // Found by e2e/reliability/bad-input.test.ts: every slow client cut off mid-body was logged
  // as an internal error.
  it('takes a body the client stopped sending (the connection closed) as no fault of the server', () => {
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET', statusCode: 400 });
    expect(classifyError(aborted, settings)).toMatchObject({ code: 'INVALID_PAYLOAD', internal: false });
  });

  it('treats anything else as an internal error', () => {
    for (const error of [new Error('boom'), new TypeError('x'), 'a string', null, { code: 'SQLITE_ERROR' }]) {
      expect(classifyError(error, settings)).toEqual({ code: 'INTERNAL_ERROR', params: {}, internal: true });
    }
  });
});
