import { Checkbox, Fieldset, Group, NativeSelect, SimpleGrid, Stack, TextInput } from '@mantine/core';
import { assertNever, type Model } from '@ninepoint/spec';
import { useEffect, useState } from 'react';
import type { Me } from '../api/session.ts';
import { choiceLabel } from '../app/screens.ts';
import { stateLabel } from '../records/access.ts';
import { DebouncedInput } from './inputs.tsx';
import { type FieldFilter, type FilterField, validFilterValue } from './query.ts';
import { ReferencePicker } from './ReferencePicker.tsx';

/**
 * One input per field the list may be filtered by, each typed by its field: a choice or the state
 * is a set of checkboxes (any of those ticked), a yes/no field a select of Yes/No, text a
 * "contains" input, a number, day or moment a from–to pair, a reference a picker. An empty input
 * means "any".
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
  values: Record<string, FieldFilter>;
  onChange: (field: string, filter: FieldFilter) => void;
}) {
  return (
    <SimpleGrid cols={{ base: 1, xs: 2, md: 3, lg: 4 }} spacing="sm" verticalSpacing="sm">
      {fields.map((field) => (
        <FilterInput
          key={field.name}
          model={model}
          me={me}
          field={field}
          filter={values[field.name] ?? {}}
          onChange={(filter) => onChange(field.name, filter)}
        />
      ))}
    </SimpleGrid>
  );
}

function FilterInput({
  model,
  me,
  field,
  filter,
  onChange,
}: {
  model: Model;
  me: Me;
  field: FilterField;
  filter: FieldFilter;
  onChange: (filter: FieldFilter) => void;
}) {
  const value = filter.values?.[0] ?? '';
  const one = (next: string) => onChange(next === '' ? {} : { values: [next] });
  switch (field.kind) {
    case 'choice':
      return (
        <TickedGroup
          label={field.label}
          options={field.values.map((v) => ({
            value: v,
            label: field.name === 'state' ? stateLabel(v) : choiceLabel(v),
          }))}
          value={filter.values ?? []}
          onChange={(values) => onChange({ values })}
          inline
        />
      );
    case 'boolean':
      return (
        <NativeSelect
          label={field.label}
          value={value}
          onChange={(e) => one(e.currentTarget.value)}
          data={[
            { value: '', label: 'Any' },
            { value: 'true', label: 'Yes' },
            { value: 'false', label: 'No' },
          ]}
        />
      );
    case 'date':
    case 'datetime':
    case 'integer':
    case 'decimal':
      return <RangeInput field={field} filter={filter} onChange={onChange} />;
    case 'reference':
      return (
        <ReferencePicker
          model={model}
          me={me}
          entity={field.type.kind === 'reference' ? field.type.entity : ''}
          label={field.label}
          value={value}
          onChange={one}
        />
      );
    case 'text':
      return (
        <DebouncedInput
          label={`${field.label} contains`}
          placeholder="Any"
          value={filter.contains ?? ''}
          onCommit={(contains) => onChange(contains === '' ? {} : { contains })}
          valid={(v) => validFilterValue('text', v)}
        />
      );
    default:
      return assertNever(field.kind);
  }
}

/**
 * Checkboxes for several values, in the options' order. Ticks show at once: the address they are
 * kept in changes a moment later (a router transition), and a box must not untick meanwhile.
 */
export function TickedGroup({
  label,
  options,
  value,
  onChange,
  inline = false,
  keepOne = false,
}: {
  label: string;
  options: { value: string; label: string }[];
  value: string[];
  onChange: (values: string[]) => void;
  inline?: boolean;
  /** Refuse to untick the last box (columns: at least one stays). */
  keepOne?: boolean;
}) {
  const [ticked, setTicked] = useState(value);
  const key = value.join('\u0000');
  // biome-ignore lint/correctness/useExhaustiveDependencies: the value from outside wins when it changes, as after the back button.
  useEffect(() => setTicked(value), [key]);
  const Layout = inline ? Group : Stack;
  return (
    <Checkbox.Group
      label={label}
      value={ticked}
      onChange={(next) => {
        if (keepOne && next.length === 0) return;
        const ordered = options.map((o) => o.value).filter((v) => next.includes(v));
        setTicked(ordered);
        onChange(ordered);
      }}
    >
      <Layout gap={inline ? 'xs' : 6} mt={6}>
        {options.map((o) => (
          <Checkbox key={o.value} value={o.value} label={o.label} size="sm" />
        ))}
      </Layout>
    </Checkbox.Group>
  );
}

/** From and to, both ends included; either may be left empty. */
function RangeInput({
  field,
  filter,
  onChange,
}: {
  field: FilterField;
  filter: FieldFilter;
  onChange: (filter: FieldFilter) => void;
}) {
  const set = (end: 'from' | 'to', next: string) => {
    const changed: FieldFilter = { ...filter };
    if (next === '') delete changed[end];
    else changed[end] = next;
    onChange(changed);
  };
  const input = (end: 'from' | 'to') => {
    const name = `${field.label} ${end}`;
    const current = filter[end] ?? '';
    if (field.kind === 'date') {
      return (
        <TextInput
          label={end === 'from' ? 'From' : 'To'}
          aria-label={name}
          type="date"
          value={current}
          onChange={(e) => {
            const next = e.currentTarget.value;
            if (next === '' || validFilterValue('date', next)) set(end, next);
          }}
        />
      );
    }
    if (field.kind === 'datetime') {
      return (
        <TextInput
          label={end === 'from' ? 'From' : 'To'}
          aria-label={name}
          type="datetime-local"
          value={current === '' ? '' : localInputValue(current)}
          onChange={(e) => {
            const next = e.currentTarget.value;
            // The input is in the browser's time zone; the address and the API take an instant.
            const at = next === '' ? null : new Date(next);
            if (at === null) set(end, '');
            else if (!Number.isNaN(at.getTime())) set(end, at.toISOString());
          }}
        />
      );
    }
    return (
      <DebouncedInput
        label={end === 'from' ? 'From' : 'To'}
        aria-label={name}
        inputMode={field.kind === 'integer' ? 'numeric' : 'decimal'}
        placeholder="Any"
        value={current}
        onCommit={(next) => set(end, next)}
        valid={(v) => validFilterValue(field.kind, v)}
        invalidMessage={field.kind === 'integer' ? 'A whole number, e.g. 3' : 'A number, e.g. 12.50'}
      />
    );
  };
  return (
    <Fieldset
      legend={field.label}
      variant="unstyled"
      p={0}
      // As the other filters' labels read.
      styles={{
        legend: {
          fontSize: 'var(--mantine-font-size-sm)',
          fontWeight: 'var(--mantine-font-weight-medium)',
          marginBottom: 2,
        },
      }}
    >
      {field.kind === 'datetime' ? (
        // A moment's input is wide: from above to.
        <Stack gap={4}>
          {input('from')}
          {input('to')}
        </Stack>
      ) : (
        <Group gap="xs" grow wrap="nowrap" align="flex-start">
          {input('from')}
          {input('to')}
        </Group>
      )}
    </Fieldset>
  );
}

/** An instant as a `datetime-local` input shows it: the browser's local time, to the minute. */
function localInputValue(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  const local = new Date(at.getTime() - at.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}
