import { BUILTIN_ERRORS } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { blankModel, LENDING_DESK, modelOf } from '../../test/helpers.ts';
import { ProblemCatalogue, problemTitle } from './problems.ts';

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
