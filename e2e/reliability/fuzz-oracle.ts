import { type CompiledApp, createAjv, PROBLEM_CONTENT_TYPE } from '@ninepoint/server';
import { errorCatalogue } from '@ninepoint/spec';
import type { ValidateFunction } from 'ajv';
import type { FuzzRequest } from './fuzz-arbitraries.ts';

/** An answer as the fuzzer saw it, in-process or over TCP. */
export interface FuzzAnswer {
  status: number;
  contentType: string | undefined;
  body: string;
}

/** What leaks from a fault: SQL, driver messages, stack frames. */
const LEAK =
  /SQLITE_|SELECT |INSERT |UPDATE .* SET|constraint failed|violates|syntax error|at .*\.ts:\d|node:internal/i;

/**
 * The checks every answer of a fuzzed call must pass, as a function that answers what is wrong
 * (empty when nothing is):
 * - never a 5xx;
 * - an error is `application/problem+json`, its `code` is in the spec's catalogue (point 8 and the
 *   built-ins), its status is the catalogue's for that code, the call lists the code among its
 *   errors (UNKNOWN_CALL for a path made to match no call), and its detail leaks no SQL or stack;
 * - a success has the call's success status and a body its response schema accepts.
 */
export function answerChecker(compiled: CompiledApp): (request: FuzzRequest, answer: FuzzAnswer) => string[] {
  const catalogue = new Map(errorCatalogue(compiled.model).map((e) => [e.code, e.status]));
  const ajv = createAjv();
  const validators = new Map<string, ValidateFunction>();
  const validatorOf = (request: FuzzRequest): ValidateFunction | null => {
    const { schema } = request.route.success;
    if (!schema) return null;
    const key = `${request.route.method} ${request.route.path}`;
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile(schema);
      validators.set(key, validate);
    }
    return validate;
  };

  return (request, answer) => {
    const wrong: string[] = [];
    if (answer.status >= 500) wrong.push(`answered ${answer.status}`);
    if (answer.status < 200 || answer.status >= 300) {
      if (answer.contentType !== PROBLEM_CONTENT_TYPE) wrong.push(`error with Content-Type ${answer.contentType}`);
      let problem: { code?: unknown; status?: unknown; detail?: unknown };
      try {
        problem = JSON.parse(answer.body) as typeof problem;
      } catch {
        return [...wrong, 'error body is not JSON'];
      }
      const code = String(problem.code);
      const status = catalogue.get(code);
      if (status === undefined) wrong.push(`code ${code} is not in the catalogue`);
      else if (status !== answer.status) wrong.push(`code ${code} answered ${answer.status}, catalogued ${status}`);
      if (problem.status !== answer.status) wrong.push(`problem.status ${problem.status} ≠ ${answer.status}`);
      if (!request.onRoute) {
        if (code !== 'UNKNOWN_CALL') wrong.push(`a path that matches no call answered ${code}, not UNKNOWN_CALL`);
      } else if (!request.route.errors.includes(code)) {
        wrong.push(`code ${code} is not among the call's errors (${request.route.errors.join(', ')})`);
      }
      if (typeof problem.detail !== 'string' || LEAK.test(problem.detail)) {
        wrong.push(`detail leaks or is missing: ${String(problem.detail)}`);
      }
      return wrong;
    }
    const { success } = request.route;
    if (answer.status !== success.status) wrong.push(`succeeded with ${answer.status}, not ${success.status}`);
    const validate = validatorOf(request);
    if (!validate) {
      if (answer.body !== '') wrong.push('a body where none is documented');
      return wrong;
    }
    if (!answer.contentType?.startsWith('application/json'))
      wrong.push(`success with Content-Type ${answer.contentType}`);
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      return [...wrong, 'success body is not JSON'];
    }
    if (!validate(body)) wrong.push(`body does not match its schema: ${ajv.errorsText(validate.errors)}`);
    return wrong;
  };
}
