import { fieldValueSchema } from './field-schema.ts';
import { type Entity, type Field, SYSTEM_FIELDS } from './model.ts';
import { typeWords } from './type-words.ts';

/** The parts of an Ajv `ErrorObject` read here (this package runs no Ajv of its own). */
export interface SchemaError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** One field's failure as the catalogue names it: its code and its message's parameters besides `{field}`. */
export interface FieldFault {
  field: string;
  code: string;
  params: Record<string, string | number>;
}

/**
 * What the schema errors of a payload mean: the body is not an object, it names fields the entity
 * does not have (INVALID_PAYLOAD), or one fault per field at fault, the first Ajv reports for it
 * (VALIDATION_FAILED).
 */
export type PayloadFaults =
  | { kind: 'not-object' }
  | { kind: 'unknown-fields'; fields: string[] }
  | { kind: 'fields'; faults: FieldFault[] };

/**
 * Reads the errors Ajv reports for a create or update payload of `entity` (the server's JSON
 * Schemas, `compileJsonSchemas`) as the catalogue's field codes: REQUIRED, INVALID_TYPE, TOO_SHORT,
 * TOO_LONG, OUT_OF_RANGE, PATTERN_MISMATCH, INVALID_CHOICE, READ_ONLY_FIELD. The server answers a
 * request with these, and the web app shows them on a form before sending it, from the same
 * schemas run by the same Ajv (the browser's as standalone code): one reading, not two.
 */
export function payloadFaults(entity: Entity, errors: readonly SchemaError[], body: unknown): PayloadFaults {
  const fields = new Map(entity.fields.map((f) => [f.name, f]));
  const byField = new Map<string, FieldFault>();
  const unknown: string[] = [];
  const add = (field: string, code: string, params: FieldFault['params'] = {}) => {
    if (!byField.has(field)) byField.set(field, { field, code, params });
  };
  for (const error of errors) {
    if (error.instancePath === '') {
      if (error.keyword === 'required') add(String(error.params.missingProperty), 'REQUIRED');
      else if (error.keyword === 'additionalProperties') {
        const field = String(error.params.additionalProperty);
        if (fields.has(field) || (SYSTEM_FIELDS as readonly string[]).includes(field)) add(field, 'READ_ONLY_FIELD');
        else unknown.push(field);
      } else return { kind: 'not-object' };
      continue;
    }
    const field = decodePointer(error.instancePath);
    if (field === null || byField.has(field)) continue;
    const declared = fields.get(field);
    if (!declared) add(field, 'READ_ONLY_FIELD');
    else {
      const fault = valueFault(declared, error, (body as Record<string, unknown>)[field]);
      add(field, fault.code, fault.params);
    }
  }
  if (unknown.length > 0) return { kind: 'unknown-fields', fields: unknown };
  return { kind: 'fields', faults: [...byField.values()] };
}

/** What an error at a field's value means. */
function valueFault(field: Field, error: SchemaError, value: unknown): Omit<FieldFault, 'field'> {
  const fault = (code: string, params: FieldFault['params'] = {}) => ({ code, params });
  if (value === null && field.required) return fault('REQUIRED');
  if (field.type.kind === 'choice') return fault('INVALID_CHOICE', { values: field.type.values.join(', ') });
  const schema = fieldValueSchema(field);
  switch (error.keyword) {
    case 'minLength':
      return fault('TOO_SHORT', { min: Number(schema.minLength) });
    case 'maxLength':
      return fault('TOO_LONG', { max: Number(schema.maxLength) });
    case 'minimum':
    case 'maximum':
      return fault('OUT_OF_RANGE', { min: bound(schema.minimum) ?? '-∞', max: bound(schema.maximum) ?? '∞' });
    case 'pattern':
      // A url's own `^https?://` is part of its type; a pattern the spec gives it sits under allOf.
      if (field.type.kind === 'url' && !error.schemaPath.includes('allOf')) break;
      return fault('PATTERN_MISMATCH');
    case 'not':
      // The only `not` of a field's schema: a required text that is blank (`NOT_BLANK`).
      return fault('REQUIRED');
  }
  return fault('INVALID_TYPE', { type: typeWords(field) });
}

/**
 * A bound of the schema as people read it: an integer's own safe-integer bound (every integer
 * field has one) is no bound to them, so a range message says -∞ or ∞ there.
 */
function bound(value: unknown): number | undefined {
  return typeof value === 'number' && Math.abs(value) !== Number.MAX_SAFE_INTEGER ? value : undefined;
}

/** `/title` → `title`; a deeper path names the top-level field. */
function decodePointer(pointer: string): string | null {
  const first = pointer.split('/')[1];
  return first === undefined ? null : first.replaceAll('~1', '/').replaceAll('~0', '~');
}
