import { Checkbox, NumberInput, Select, Textarea, TextInput } from '@mantine/core';
import { assertNever, type Field, type Model } from '@ninepoint/spec';
import { choiceLabel, fieldLabel } from '../app/screens.ts';
import { alwaysSet, isNarrowType } from './field-kinds.ts';
import { FileField } from './files/FileField.tsx';
import type { InputValue } from './form-values.ts';
import { ReferenceSelect } from './ReferenceSelect.tsx';

export interface FieldInputProps {
  model: Model;
  field: Field;
  value: InputValue | undefined;
  onChange: (value: InputValue) => void;
  /** The catalogue's message for what is wrong with it, if anything. */
  error?: string | undefined;
  disabled?: boolean;
  /** Shown under the label instead of the field's own documentation. */
  description?: string | undefined;
  /** Prefix of the input's id, so one field can have an input on a page and another in a dialog. */
  idPrefix?: string;
}

/** Fields whose input is short (a number, a date, a choice, a checkbox): two fit side by side. */
export function isNarrow(field: Field): boolean {
  return isNarrowType(field.type);
}

/** The id of a field's input, to focus the first one at fault. */
export function inputId(field: Field, prefix = 'field'): string {
  return `${prefix}-${field.name}`;
}

/**
 * The input for a field's type: text, long text, numbers with the field's decimals, a checkbox,
 * dates, email and web addresses, a choice, or a searchable pick of a record or a user. Required
 * fields are marked; the browser's own validation is off (the form checks the spec's rules).
 */
export function FieldInput({ model, field, value, onChange, error, disabled, description, idPrefix }: FieldInputProps) {
  const common = {
    id: inputId(field, idPrefix),
    label: fieldLabel(field),
    description: description ?? (field.doc ? capitalized(field.doc) : undefined),
    required: field.required && !alwaysSet(field.type),
    disabled,
    error,
  };
  const text = typeof value === 'string' ? value : value === undefined ? '' : String(value);
  const t = field.type;
  switch (t.kind) {
    case 'text':
      return <TextInput {...common} value={text} onChange={(e) => onChange(e.currentTarget.value)} />;
    case 'email':
      return (
        <TextInput
          {...common}
          type="email"
          autoComplete="off"
          value={text}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
    case 'url':
      return (
        <TextInput
          {...common}
          type="url"
          placeholder="https://"
          value={text}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
    case 'longText':
      return (
        <Textarea
          {...common}
          autosize
          minRows={3}
          maxRows={12}
          value={text}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
    case 'integer':
    case 'decimal':
      return (
        <NumberInput
          {...common}
          value={typeof value === 'number' ? value : text}
          onChange={(v) => onChange(v)}
          allowDecimal={t.kind === 'decimal'}
          decimalScale={t.kind === 'decimal' && t.scale !== null ? t.scale : undefined}
          fixedDecimalScale={t.kind === 'decimal' && t.scale !== null}
          // The range is checked with the catalogue's message, not silently clamped.
          clampBehavior="none"
          hideControls={t.kind === 'decimal'}
          inputMode={t.kind === 'decimal' ? 'decimal' : 'numeric'}
        />
      );
    case 'boolean':
      return (
        <Checkbox
          id={common.id}
          label={common.label}
          description={common.description}
          disabled={disabled}
          error={error}
          checked={value === true}
          onChange={(e) => onChange(e.currentTarget.checked)}
        />
      );
    case 'date':
      return <TextInput {...common} type="date" value={text} onChange={(e) => onChange(e.currentTarget.value)} />;
    case 'datetime':
      return (
        <TextInput {...common} type="datetime-local" value={text} onChange={(e) => onChange(e.currentTarget.value)} />
      );
    case 'choice':
      return (
        <Select
          {...common}
          data={t.values.map((v) => ({ value: v, label: choiceLabel(v) }))}
          value={text || null}
          onChange={(v) => onChange(v ?? '')}
          clearable={!field.required}
          allowDeselect={!field.required}
          searchable={t.values.length > 8}
          placeholder="Choose…"
          comboboxProps={{ withinPortal: true }}
        />
      );
    case 'reference':
      return (
        <ReferenceSelect
          model={model}
          entity={t.entity}
          {...common}
          required={common.required}
          value={text}
          onChange={onChange}
        />
      );
    case 'file':
      return <FileField {...common} name={field.name} type={t} value={text} onChange={onChange} />;
    default:
      return assertNever(t);
  }
}

/** `the day it left the desk` → `The day it left the desk`. */
function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
