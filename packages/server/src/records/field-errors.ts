import { type Entity, type Field, type SpecLine, SYSTEM_FIELDS, typeWords } from '@ninepoint/spec';
import type { ErrorObject } from 'ajv';
import type { JsonSchema } from '../compile/json-schemas.ts';
import { type FieldError, type ProblemCatalogue, ProblemError, type ProblemParams } from '../compile/problems.ts';

/**
 * Turns the schema errors of a request body into catalogued answers: INVALID_PAYLOAD when the body
 * is not an object or names a field the entity does not have, else VALIDATION_FAILED with one
 * error per field (REQUIRED, INVALID_TYPE, TOO_SHORT, TOO_LONG, OUT_OF_RANGE, PATTERN_MISMATCH,
 * INVALID_CHOICE, READ_ONLY_FIELD), each with its catalogue message filled in for the field.
 */
export class FieldErrors {
  readonly #entity: Entity;
  readonly #fields: ReadonlyMap<string, Field>;
  readonly #schema: JsonSchema;
  readonly #catalogue: ProblemCatalogue;
  readonly #lineOf: (field: string) => SpecLine | null;

  /**
   * `schema` is the body schema of the call: the entity's, or some of its fields (a point-7
   * payload); `lineOf` gives the spec line of a field (point 3's row), which each error names.
   */
  constructor(
    entity: Entity,
    schema: JsonSchema,
    catalogue: ProblemCatalogue,
    lineOf: (field: string) => SpecLine | null = () => null,
  ) {
    this.#entity = entity;
    this.#lineOf = lineOf;
    this.#fields = new Map(entity.fields.map((f) => [f.name, f]));
    this.#schema = schema;
    this.#catalogue = catalogue;
  }

  /** The problem for these schema errors of `body`. */
  problem(errors: readonly ErrorObject[], body: unknown): ProblemError {
    const byField = new Map<string, FieldError>();
    const unknown: string[] = [];
    for (const error of errors) {
      if (error.instancePath === '') {
        if (error.keyword === 'required') {
          const field = String(error.params.missingProperty);
          if (!byField.has(field)) byField.set(field, this.error(field, 'REQUIRED'));
        } else if (error.keyword === 'additionalProperties') {
          const field = String(error.params.additionalProperty);
          if (this.#fields.has(field) || (SYSTEM_FIELDS as readonly string[]).includes(field)) {
            if (!byField.has(field)) byField.set(field, this.error(field, 'READ_ONLY_FIELD'));
          } else unknown.push(field);
        } else {
          return new ProblemError('INVALID_PAYLOAD', { detail: 'the body must be a JSON object' });
        }
        continue;
      }
      const field = decodePointer(error.instancePath);
      if (field === null || byField.has(field)) continue;
      const value = (body as Record<string, unknown>)[field];
      byField.set(field, this.#valueError(field, error, value));
    }
    if (unknown.length > 0) {
      const named = unknown.find((f) => /^[A-Za-z0-9_]{1,64}$/.test(f));
      const what = named ? `"${named}"` : 'a field';
      return new ProblemError('INVALID_PAYLOAD', {
        detail: `the body has ${what} that ${this.#entity.name} does not have`,
      });
    }
    return new ProblemError('VALIDATION_FAILED', {}, { errors: [...byField.values()] });
  }

  /** A field error with its code's message. */
  error(field: string, code: string, params: ProblemParams = {}): FieldError {
    const spec = this.#lineOf(field);
    return { field, code, message: this.#catalogue.message(code, { field, ...params }), ...(spec ? { spec } : {}) };
  }

  #valueError(field: string, error: ErrorObject, value: unknown): FieldError {
    const declared = this.#fields.get(field);
    const schema = this.#schema.properties?.[field] ?? {};
    if (!declared) return this.error(field, 'READ_ONLY_FIELD');
    if (value === null && declared.required) return this.error(field, 'REQUIRED');
    if (declared.type.kind === 'choice') {
      return this.error(field, 'INVALID_CHOICE', { values: declared.type.values.join(', ') });
    }
    switch (error.keyword) {
      case 'minLength':
        return this.error(field, 'TOO_SHORT', { min: Number(schema.minLength) });
      case 'maxLength':
        return this.error(field, 'TOO_LONG', { max: Number(schema.maxLength) });
      case 'minimum':
      case 'maximum':
        return this.error(field, 'OUT_OF_RANGE', {
          min: typeof schema.minimum === 'number' ? schema.minimum : '-∞',
          max: typeof schema.maximum === 'number' ? schema.maximum : '∞',
        });
      case 'pattern':
        // A url's own `^https?://` is part of its type; a pattern the spec gives it sits under allOf.
        if (declared.type.kind === 'url' && !error.schemaPath.includes('allOf')) break;
        return this.error(field, 'PATTERN_MISMATCH');
      case 'enum':
        return this.error(field, 'INVALID_CHOICE', { values: (schema.enum ?? []).join(', ') });
      case 'not':
        // The only `not` of a field's schema: a required text that is blank (`NOT_BLANK`).
        return this.error(field, 'REQUIRED');
    }
    return this.error(field, 'INVALID_TYPE', { type: typeWords(declared) });
  }
}

/** `/title` → `title`; a deeper path names the top-level field. */
function decodePointer(pointer: string): string | null {
  const first = pointer.split('/')[1];
  return first === undefined ? null : first.replaceAll('~1', '/').replaceAll('~0', '~');
}
