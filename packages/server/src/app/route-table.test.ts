import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { modelOf } from '../../test/helpers.ts';
import { compileApp } from './compile-app.ts';

const EXPENSES = readFileSync(new URL('../../../../examples/expenses.md', import.meta.url), 'utf8');

describe('the errors each call lists', () => {
  const { routeTable } = compileApp(modelOf(EXPENSES));
  const errorsOf = (method: string, path: string) =>
    routeTable.routes.find((r) => r.method === method && r.path === path)?.errors ?? [];

  // Found by the payload fuzzer (e2e/reliability/fuzz.test.ts): the server answered these codes,
  // which the calls (and so the OpenAPI document) did not list.
  it('lists UNKNOWN_REFERENCE for writes of an entity whose only references are to users', () => {
    expect(errorsOf('POST', '/api/employees')).toContain('UNKNOWN_REFERENCE');
    expect(errorsOf('PATCH', '/api/employees/:id')).toContain('UNKNOWN_REFERENCE');
  });

  it('lists VALIDATION_FAILED for a transition without a payload whose rules can fail', () => {
    expect(errorsOf('POST', '/api/expenses/:id/submit')).toEqual(
      expect.arrayContaining(['VALIDATION_FAILED', 'EMPLOYEE_INACTIVE', 'TOO_LATE', 'RECEIPT_REQUIRED']),
    );
  });
});
