import { type Entity, type Field, type Model, payloadFaults, typeWords } from '@ninepoint/spec';
import { fieldLabel } from '../app/screens.ts';
import { catalogueOf, type MessageParams } from './catalogue.ts';
import type { Validators } from './validators.ts';

/** A value as the API takes it. */
export type Value = string | number | boolean | null;

/** One field's failure, as the server reports it in a 422's `errors`. */
export interface FieldFailure {
  field: string;
  code: string;
  message: string;
}

/**
 * Which payload a form sends: `create` for a create or a full replace (POST, PUT), `update` for a
 * partial change or a transition's fields (PATCH, POST …/:transition): the server's two schemas.
 */
export type Payload = 'create' | 'update';

/**
 * The field rules of point 3 for a form's body, as the server checks them, because it is the
 * server's check: the entity's payload schema (`compileJsonSchemas`), compiled by the server's
 * Ajv into standalone code (`/app/validators.js`, `validators.ts`), and its errors read into
 * catalogue codes by the spec's `payloadFaults`, as the server reads them. The first failure of
 * each of `fields` (others, such as a required field the form does not show, are the server's to
 * answer), with its catalogue message; `invalid` names inputs that could not be read as their
 * field's type at all (letters in a number). Without `validators` (not loaded yet) only those are
 * reported: the server's answer then says the rest.
 */
export function checkFields(
  model: Model,
  entity: Entity,
  fields: readonly Field[],
  body: Readonly<Record<string, Value>>,
  payload: Payload,
  validators: Validators | undefined,
  invalid: ReadonlySet<string> = new Set(),
): Record<string, FieldFailure> {
  const catalogue = catalogueOf(model);
  const failures: Record<string, FieldFailure> = {};
  const fail = (field: Field, code: string, params: MessageParams = {}) => {
    // `{field}` as people read it (`Lent on`), where the server writes the field's name (`lent_on`).
    failures[field.name] = {
      field: field.name,
      code,
      message: catalogue.message(code, { field: fieldLabel(field), ...params }),
    };
  };
  for (const field of fields) if (invalid.has(field.name)) fail(field, 'INVALID_TYPE', { type: typeWords(field) });
  const validate = validators?.[`${entity.name}.${payload}`];
  if (!validate || validate(body)) return failures;
  const faults = payloadFaults(entity, validate.errors ?? [], body);
  if (faults.kind !== 'fields') return failures;
  for (const fault of faults.faults) {
    const field = fields.find((f) => f.name === fault.field);
    if (field && !(field.name in failures)) fail(field, fault.code, fault.params);
  }
  return failures;
}
