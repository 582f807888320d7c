import { type Entity, payloadFaults, type SpecLine } from '@ninepoint/spec';
import type { ErrorObject } from 'ajv';
import { type FieldError, type ProblemCatalogue, ProblemError, type ProblemParams } from '../compile/problems.ts';

/**
 * Turns the schema errors of a request body into catalogued answers: INVALID_PAYLOAD when the body
 * is not an object or names a field the entity does not have, else VALIDATION_FAILED with one
 * error per field (REQUIRED, INVALID_TYPE, TOO_SHORT, TOO_LONG, OUT_OF_RANGE, PATTERN_MISMATCH,
 * INVALID_CHOICE, READ_ONLY_FIELD), each with its catalogue message filled in for the field.
 */
export class FieldErrors {
  readonly #entity: Entity;
  readonly #catalogue: ProblemCatalogue;
  readonly #lineOf: (field: string) => SpecLine | null;

  /** `lineOf` gives the spec line of a field (point 3's row), which each error names. */
  constructor(entity: Entity, catalogue: ProblemCatalogue, lineOf: (field: string) => SpecLine | null = () => null) {
    this.#entity = entity;
    this.#lineOf = lineOf;
    this.#catalogue = catalogue;
  }

  /** The problem for these schema errors of `body` (read by the spec's `payloadFaults`, as the web app reads them). */
  problem(errors: readonly ErrorObject[], body: unknown): ProblemError {
    const faults = payloadFaults(this.#entity, errors, body);
    if (faults.kind === 'not-object') {
      return new ProblemError('INVALID_PAYLOAD', { detail: 'the body must be a JSON object' });
    }
    if (faults.kind === 'unknown-fields') {
      const named = faults.fields.find((f) => /^[A-Za-z0-9_]{1,64}$/.test(f));
      const what = named ? `"${named}"` : 'a field';
      return new ProblemError('INVALID_PAYLOAD', {
        detail: `the body has ${what} that ${this.#entity.name} does not have`,
      });
    }
    const errorsByField = faults.faults.map((f) => this.error(f.field, f.code, f.params));
    return new ProblemError('VALIDATION_FAILED', {}, { errors: errorsByField });
  }

  /** A field error with its code's message. */
  error(field: string, code: string, params: ProblemParams = {}): FieldError {
    const spec = this.#lineOf(field);
    return { field, code, message: this.#catalogue.message(code, { field, ...params }), ...(spec ? { spec } : {}) };
  }
}
