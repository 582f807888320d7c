import { describe, expect, it } from 'vitest';
import { ProblemError } from '../compile/problems.ts';
import { classifyError } from './error-handler.ts';

const settings = { MAX_BODY_BYTES: 1024 };

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
