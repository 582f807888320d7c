import type { Field, Model } from '@ninepoint/spec';
import { useCallback, useContext, useState } from 'react';
import type { ApiError } from '../api/client.ts';
import { ModelContext } from '../app/context.ts';
import { changed, fromInput, type InputValue, type InputValues } from '../fields/form-values.ts';
import { formatMessage } from '../format.ts';
import { checkFields, type Value } from '../rules/field-checks.ts';
import { useValidators } from '../rules/validators.ts';

/**
 * How a form sends its fields: `create` sends every field with a value (the server fills in the
 * defaults of the rest), `replace` (PUT) every field, `change` (PATCH, a transition's payload) only
 * those the user changed from `base`.
 */
export type SendMode = 'create' | 'replace' | 'change';

export interface FieldForm {
  values: InputValues;
  setValue: (field: string, value: InputValue) => void;
  /** Replaces every input (a form loaded from a record). */
  reset: (values: InputValues) => void;
  /** The catalogue's message per field, from the browser's checks or the server's answer. */
  errors: Record<string, string>;
  setErrors: (errors: Record<string, string>) => void;
  /**
   * The body to send, or null when the browser's checks of point 3 found something wrong (then
   * `errors` says what, and the first field at fault is returned to focus).
   */
  prepare: (
    base: Record<string, unknown> | null,
    /** File fields with files picked to upload: not empty, whatever the record holds. */
    uploading?: ReadonlySet<string>,
  ) => { body: Record<string, Value> } | { invalid: string };
  /**
   * Shows a refusal's field errors at their fields; returns the messages no field of the form
   * shows (a rule about the whole record, a field the form does not have).
   */
  showProblem: (error: ApiError) => string[];
}

/**
 * The state of a form over some of `entity`'s fields, with the spec's field rules checked before
 * sending by the server's own validators (`rules/field-checks.ts`).
 */
export function useFieldForm(
  model: Model,
  entity: string,
  fields: readonly Field[],
  mode: SendMode,
  initial: InputValues,
): FieldForm {
  // The whole model: the payload schemas hold every field, those the user does not see too.
  const whole = useContext(ModelContext) ?? model;
  const validators = useValidators().data;
  const [values, setValues] = useState<InputValues>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});

  const setValue = useCallback((field: string, value: InputValue) => {
    setValues((previous) => ({ ...previous, [field]: value }));
    // The message was about the old value; the next check says whether the new one will do.
    setErrors((previous) => {
      if (!(field in previous)) return previous;
      const { [field]: _, ...rest } = previous;
      return rest;
    });
  }, []);

  const prepare: FieldForm['prepare'] = (base, uploading = new Set()) => {
    const body: Record<string, Value> = {};
    const sent: Field[] = [];
    const invalid = new Set<string>();
    for (const field of fields) {
      const input = values[field.name];
      const read = fromInput(field, input);
      if (read.invalid) invalid.add(field.name);
      const include =
        mode === 'replace' ||
        (mode === 'create' && (read.value !== null || read.invalid)) ||
        (mode === 'change' && changed(field, input, base?.[field.name]));
      if (!include) continue;
      sent.push(field);
      body[field.name] = read.value;
    }
    // A create checks every field (a required one left empty is missing); a change what it sends.
    const checked = mode === 'create' ? fields : sent;
    // POST and PUT send the create payload, PATCH and transitions the update payload.
    const declared = whole.entities.find((e) => e.name === entity) ?? model.entities.find((e) => e.name === entity);
    const payload = mode === 'change' ? 'update' : 'create';
    const failures = declared ? checkFields(model, declared, checked, body, payload, validators, invalid) : {};
    // A required file field with a file picked is filled by the upload.
    for (const name of uploading) if (failures[name]?.code === 'REQUIRED') delete failures[name];
    const found = Object.fromEntries(Object.entries(failures).map(([name, f]) => [name, formatMessage(f.message)]));
    setErrors(found);
    const first = fields.find((f) => f.name in found);
    if (first) return { invalid: first.name };
    return { body };
  };

  const showProblem = (error: ApiError): string[] => {
    const shown: Record<string, string> = {};
    const elsewhere: string[] = [];
    for (const e of error.problem.errors ?? []) {
      if (e.field !== null && fields.some((f) => f.name === e.field) && !(e.field in shown)) {
        shown[e.field] = formatMessage(capitalized(e.message));
      } else elsewhere.push(formatMessage(e.message));
    }
    setErrors(shown);
    return elsewhere;
  };

  return { values, setValue, reset: setValues, errors, setErrors, prepare, showProblem };
}

/** A message that starts with a field's name (`due is required.`) still starts a sentence. */
function capitalized(message: string): string {
  return message.charAt(0).toUpperCase() + message.slice(1);
}
