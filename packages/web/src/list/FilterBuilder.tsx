import { Button, Group, MultiSelect, Popover, SegmentedControl, Select, Stack, Text, TextInput } from '@mantine/core';
import type { Model } from '@ninepoint/spec';
import { type FormEvent, useState } from 'react';
import type { Me } from '../api/session.ts';
import { choiceLabel } from '../app/screens.ts';
import { stateLabel } from '../records/access.ts';
import { PlusIcon } from './icons.tsx';
import { type FieldFilter, type FilterField, type FilterGroup, MAX_GROUPS, validFilterValue } from './query.ts';
import { ReferencePicker } from './ReferencePicker.tsx';

/** What a condition of the builder says about a field. */
export type Operator = 'is' | 'isNot' | 'contains' | 'before' | 'after' | 'between' | 'empty' | 'notEmpty';

export const OPERATOR_WORDS: Record<Operator, string> = {
  is: 'is',
  isNot: 'is not',
  contains: 'contains',
  before: 'before',
  after: 'after',
  between: 'between',
  empty: 'is empty',
  notEmpty: 'is not empty',
};

/** The operators that make sense for a field's kind, as the list API takes them. */
export function operatorsFor(field: FilterField): Operator[] {
  switch (field.kind) {
    case 'choice':
      return field.name === 'state' ? ['is', 'isNot'] : ['is', 'isNot', 'empty', 'notEmpty'];
    case 'boolean':
      return ['is', 'empty', 'notEmpty'];
    case 'text':
      return ['contains', 'is', 'isNot', 'empty', 'notEmpty'];
    case 'integer':
    case 'decimal':
    case 'date':
    case 'datetime':
      return ['is', 'isNot', 'before', 'after', 'between', 'empty', 'notEmpty'];
    case 'reference':
      // A record or person picked by name (as the Filters panel offered), or none at all.
      return ['is', 'empty', 'notEmpty'];
  }
}

/** A condition as the filter of its field: what `filter[field][…]` (or `or[n][field][…]`) says. */
export function conditionFilter(op: Operator, values: string[]): FieldFilter {
  const [a = '', b = ''] = values;
  switch (op) {
    case 'is':
      return { values };
    case 'isNot':
      return { not: values };
    case 'contains':
      return { contains: a };
    case 'before':
      return { before: a };
    case 'after':
      return { after: a };
    case 'between':
      return { ...(a !== '' ? { from: a } : {}), ...(b !== '' ? { to: b } : {}) };
    case 'empty':
      return { empty: true };
    case 'notEmpty':
      return { empty: false };
  }
}

/** Where a new condition goes: with every other filter (and), into an or-group, or a new one. */
type Target = 'and' | 'new' | `${number}`;

/**
 * "+ Filter": pick a field, then how it compares (is, is not, contains, before, after, between,
 * is empty, is not empty), then the value; the condition joins the others (all must hold) or an
 * "either" group (any one of it holds). The list shows each as a chip; the address keeps them.
 */
export function FilterBuilder({
  model,
  me,
  fields,
  groups,
  onAdd,
}: {
  model: Model;
  me: Me;
  fields: FilterField[];
  groups: FilterGroup[];
  onAdd: (target: 'and' | number, field: string, filter: FieldFilter) => void;
}) {
  const [opened, setOpened] = useState(false);
  const [fieldName, setFieldName] = useState<string | null>(null);
  const [op, setOp] = useState<Operator | null>(null);
  const [values, setValues] = useState<string[]>([]);
  const [target, setTarget] = useState<Target>('and');
  const field = fields.find((f) => f.name === fieldName);
  const operators = field ? operatorsFor(field) : [];
  const needs = op === null || op === 'empty' || op === 'notEmpty' ? 0 : op === 'between' ? 2 : 1;
  const typed = field ? values.slice(0, needs === 2 ? 2 : values.length).map((v) => toApi(field, v)) : [];
  const valid = (v: string) => field !== undefined && validFilterValue(field.kind, v, field.values);
  // Between takes either end alone too ("from 2", "up to 4"), as a range always could.
  const complete =
    field !== undefined &&
    op !== null &&
    (needs === 0 ||
      (needs === 2
        ? typed.some((v) => v !== '') && typed.every((v) => v === '' || valid(v))
        : typed.length >= needs && typed.every((v) => v !== '' && valid(v))));

  const reset = () => {
    setFieldName(null);
    setOp(null);
    setValues([]);
    // Each condition starts as "and": an either-group is chosen on purpose.
    setTarget('and');
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!complete || !field || op === null) return;
    const filter = conditionFilter(op, needs === 0 ? [] : typed);
    onAdd(target === 'and' ? 'and' : target === 'new' ? groups.length : Number(target), field.name, filter);
    reset();
    setOpened(false);
  };

  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-start" shadow="md" trapFocus withinPortal>
      <Popover.Target>
        <Button variant="default" leftSection={<PlusIcon size={16} />} onClick={() => setOpened((o) => !o)}>
          Filter
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <form onSubmit={submit} aria-label="Add a filter">
          <Stack gap="xs" w={300}>
            <Select
              label="Field"
              placeholder="Pick a field"
              searchable
              data={fields.map((f) => ({ value: f.name, label: f.label }))}
              value={fieldName}
              onChange={(name) => {
                setFieldName(name);
                const next = fields.find((f) => f.name === name);
                setOp(next ? (operatorsFor(next)[0] ?? null) : null);
                setValues([]);
              }}
              comboboxProps={{ withinPortal: false }}
            />
            {field && (
              <Select
                label="Condition"
                data={operators.map((o) => ({ value: o, label: OPERATOR_WORDS[o] }))}
                value={op}
                onChange={(o) => {
                  setOp(o as Operator | null);
                  setValues([]);
                }}
                allowDeselect={false}
                comboboxProps={{ withinPortal: false }}
              />
            )}
            {field && op && needs > 0 && (
              <ValueInputs model={model} me={me} field={field} op={op} values={values} onChange={setValues} />
            )}
            {field && op && groups.length < MAX_GROUPS && (
              <Select
                label="Join"
                data={[
                  { value: 'and', label: 'With the other filters (and)' },
                  ...groups.map((_, i) => ({ value: String(i), label: `Into “either” group ${i + 1} (or)` })),
                  { value: 'new', label: 'Start an “either” group (or)' },
                ]}
                value={target}
                onChange={(t) => setTarget((t ?? 'and') as Target)}
                allowDeselect={false}
                comboboxProps={{ withinPortal: false }}
              />
            )}
            <Group justify="flex-end" gap="xs">
              <Button variant="subtle" onClick={() => setOpened(false)}>
                Cancel
              </Button>
              <Button type="submit" disabled={!complete}>
                Add filter
              </Button>
            </Group>
          </Stack>
        </form>
      </Popover.Dropdown>
    </Popover>
  );
}

/** The value (or the two ends) a condition compares with, in an input of the field's kind. */
function ValueInputs({
  model,
  me,
  field,
  op,
  values,
  onChange,
}: {
  model: Model;
  me: Me;
  field: FilterField;
  op: Operator;
  values: string[];
  onChange: (values: string[]) => void;
}) {
  const set = (i: number, value: string) => {
    const next = [...values];
    next[i] = value;
    onChange(next);
  };
  if (field.kind === 'choice') {
    return (
      <MultiSelect
        label="Any of"
        data={field.values.map((v) => ({ value: v, label: field.name === 'state' ? stateLabel(v) : choiceLabel(v) }))}
        value={values}
        onChange={onChange}
        comboboxProps={{ withinPortal: false }}
      />
    );
  }
  if (field.kind === 'reference' && field.type.kind === 'reference') {
    return (
      <ReferencePicker
        model={model}
        me={me}
        entity={field.type.entity}
        label="Value"
        value={values[0] ?? ''}
        onChange={(id) => onChange(id === '' ? [] : [id])}
      />
    );
  }
  if (field.kind === 'boolean') {
    return (
      <Stack gap={4}>
        <Text size="sm" fw={500} id={`value-${field.name}`}>
          Value
        </Text>
        <SegmentedControl
          aria-labelledby={`value-${field.name}`}
          data={[
            { value: 'true', label: 'Yes' },
            { value: 'false', label: 'No' },
          ]}
          value={values[0] ?? ''}
          onChange={(v) => onChange([v])}
        />
      </Stack>
    );
  }
  const type = field.kind === 'date' ? 'date' : field.kind === 'datetime' ? 'datetime-local' : 'text';
  const inputMode = field.kind === 'integer' || field.kind === 'decimal' ? 'decimal' : undefined;
  if (op === 'between') {
    return (
      <Group grow gap="xs">
        <TextInput
          label="From"
          type={type}
          inputMode={inputMode}
          value={values[0] ?? ''}
          onChange={(e) => set(0, e.currentTarget.value)}
        />
        <TextInput
          label="To"
          type={type}
          inputMode={inputMode}
          value={values[1] ?? ''}
          onChange={(e) => set(1, e.currentTarget.value)}
        />
      </Group>
    );
  }
  return (
    <TextInput
      label="Value"
      type={type}
      inputMode={inputMode}
      value={values[0] ?? ''}
      onChange={(e) => set(0, e.currentTarget.value)}
      data-autofocus
    />
  );
}

/** A typed value as the API takes it: a local date-time becomes an instant with its offset. */
function toApi(field: FilterField, value: string): string {
  if (field.kind === 'datetime' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value)) {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? value : new Date(ms).toISOString();
  }
  return value.trim();
}
