import { NativeSelect, SimpleGrid, TextInput } from '@mantine/core';
import type { Model } from '@ninepoint/spec';
import type { Me } from '../api/session.ts';
import { DebouncedInput } from './inputs.tsx';
import { type FilterField, validFilterValue } from './query.ts';
import { ReferencePicker } from './ReferencePicker.tsx';

/**
 * One input per field the list may be filtered by, each typed by its field: a choice or a state
 * is a select, a yes/no field a select of Yes/No, a date a date input, a number a checked text
 * input, a reference a picker. An empty input means "any".
 */
export function FilterPanel({
  model,
  me,
  fields,
  values,
  onChange,
}: {
  model: Model;
  me: Me;
  fields: FilterField[];
  values: Record<string, string>;
  onChange: (field: string, value: string) => void;
}) {
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 3, lg: 4 }} spacing="sm" verticalSpacing="sm">
      {fields.map((field) => (
        <FilterInput
          key={field.name}
          model={model}
          me={me}
          field={field}
          value={values[field.name] ?? ''}
          onChange={(value) => onChange(field.name, value)}
        />
      ))}
    </SimpleGrid>
  );
}

function FilterInput({
  model,
  me,
  field,
  value,
  onChange,
}: {
  model: Model;
  me: Me;
  field: FilterField;
  value: string;
  onChange: (value: string) => void;
}) {
  switch (field.kind) {
    case 'choice':
      return (
        <NativeSelect
          label={field.label}
          value={value}
          onChange={(e) => onChange(e.currentTarget.value)}
          data={[{ value: '', label: 'Any' }, ...field.values.map((v) => ({ value: v, label: v }))]}
        />
      );
    case 'boolean':
      return (
        <NativeSelect
          label={field.label}
          value={value}
          onChange={(e) => onChange(e.currentTarget.value)}
          data={[
            { value: '', label: 'Any' },
            { value: 'true', label: 'Yes' },
            { value: 'false', label: 'No' },
          ]}
        />
      );
    case 'date':
      return (
        <TextInput
          label={field.label}
          type="date"
          value={value}
          onChange={(e) => {
            const next = e.currentTarget.value;
            if (next === '' || validFilterValue('date', next)) onChange(next);
          }}
        />
      );
    case 'integer':
    case 'decimal':
      return (
        <DebouncedInput
          label={field.label}
          inputMode={field.kind === 'integer' ? 'numeric' : 'decimal'}
          placeholder="Any"
          value={value}
          onCommit={onChange}
          valid={(v) => validFilterValue(field.kind, v)}
          invalidMessage={field.kind === 'integer' ? 'A whole number, e.g. 3' : 'A number, e.g. 12.50'}
        />
      );
    case 'reference':
      return (
        <ReferencePicker
          model={model}
          me={me}
          entity={field.type.kind === 'reference' ? field.type.entity : ''}
          label={field.label}
          value={value}
          onChange={onChange}
        />
      );
    case 'text':
      return (
        <DebouncedInput
          label={`${field.label} is exactly`}
          placeholder="Any"
          value={value}
          onCommit={onChange}
          valid={(v) => validFilterValue('text', v)}
        />
      );
  }
}
