import { Button, Group, Modal, NativeSelect, Stack, Text } from '@mantine/core';
import type { Entity, Field, Model } from '@ninepoint/spec';
import { useState } from 'react';
import { api } from '../api/client.ts';
import type { Me } from '../api/session.ts';
import { fieldLabel } from '../app/screens.ts';
import { FieldInput } from '../fields/FieldInput.tsx';
import { defaultInput } from '../fields/form-values.ts';
import type { ApiRecord } from '../format.ts';
import { accessTo } from './access.ts';
import { callFor, pathOf, payloadFields, writableFields } from './calls.ts';
import { useFieldForm } from './field-form.ts';

/**
 * The fields a bulk "Set" may give one value on many rows: those the update call (a PATCH) takes
 * and point 6 lets the user change, but files and long texts (one record's own words). Whether
 * each row may be changed (whose it is, its state, the rules) the server decides per row.
 */
export function bulkSettableFields(model: Model, me: Me, entity: Entity): Field[] {
  const call = callFor(model, entity.name, 'update');
  const access = accessTo(me, entity.name);
  if (call?.method !== 'PATCH' || access.update === 'none') return [];
  return writableFields(payloadFields(entity, call), access, true).filter(
    (f) => f.type.kind !== 'file' && f.type.kind !== 'longText' && !f.unique,
  );
}

/**
 * "Set a field…" on the selection bar: choose a field and its value (checked by point 3's rules as
 * the form checks it), then each selected row is changed by its own call; `onRun` lists each
 * row's outcome, refusals with their reasons.
 */
export function BulkSetField({
  model,
  me,
  entity,
  rows,
  disabled,
  onRun,
}: {
  model: Model;
  me: Me;
  entity: Entity;
  /** "3 rows". */
  rows: string;
  disabled: boolean;
  onRun: (action: string, act: (record: ApiRecord) => Promise<unknown>) => void;
}) {
  const fields = bulkSettableFields(model, me, entity);
  const [open, setOpen] = useState(false);
  if (fields.length === 0) return null;
  return (
    <>
      <Button size="xs" variant="default" onClick={() => setOpen(true)} disabled={disabled}>
        Set a field…
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={`Set a field on ${rows}`} centered>
        {open && (
          <SetFieldForm
            model={model}
            me={me}
            entity={entity}
            fields={fields}
            rows={rows}
            onCancel={() => setOpen(false)}
            onSet={(action, act) => {
              setOpen(false);
              onRun(action, act);
            }}
          />
        )}
      </Modal>
    </>
  );
}

function SetFieldForm({
  model,
  me,
  entity,
  fields,
  rows,
  onCancel,
  onSet,
}: {
  model: Model;
  me: Me;
  entity: Entity;
  fields: Field[];
  rows: string;
  onCancel: () => void;
  onSet: (action: string, act: (record: ApiRecord) => Promise<unknown>) => void;
}) {
  const [name, setName] = useState(fields[0]?.name ?? '');
  const field = fields.find((f) => f.name === name) ?? (fields[0] as Field);
  return (
    <Stack gap="md">
      <NativeSelect
        label="Field"
        value={field.name}
        onChange={(e) => setName(e.currentTarget.value)}
        data={fields.map((f) => ({ value: f.name, label: fieldLabel(f) }))}
      />
      <ValueForm
        key={field.name}
        model={model}
        me={me}
        entity={entity}
        field={field}
        rows={rows}
        onCancel={onCancel}
        onSet={onSet}
      />
    </Stack>
  );
}

function ValueForm({
  model,
  me,
  entity,
  field,
  rows,
  onCancel,
  onSet,
}: {
  model: Model;
  me: Me;
  entity: Entity;
  field: Field;
  rows: string;
  onCancel: () => void;
  onSet: (action: string, act: (record: ApiRecord) => Promise<unknown>) => void;
}) {
  const [initial] = useState(() => ({ [field.name]: defaultInput(field, me.user?.id ?? null) }));
  // Every row gets the same value: it is sent whatever each row holds now.
  const form = useFieldForm(model, entity.name, [field], 'replace', initial);
  const call = callFor(model, entity.name, 'update');
  const submit = () => {
    const prepared = form.prepare(null);
    if ('invalid' in prepared || !call) return;
    const body = prepared.body;
    onSet(`Set ${fieldLabel(field).toLowerCase()}`, (record) =>
      api(call.method, pathOf(call, String(record.id)), { body }),
    );
  };
  return (
    <Stack gap="md">
      <FieldInput
        model={model}
        field={field}
        idPrefix="bulk"
        value={form.values[field.name]}
        onChange={(v) => form.setValue(field.name, v)}
        error={form.errors[field.name]}
        description={field.required ? undefined : 'Leave it empty to clear it on every row.'}
      />
      <Text size="xs" c="dimmed">
        Each row is changed on its own, checked by the same rules as its form; rows that may not be changed are listed
        with the reason.
      </Text>
      <Group justify="flex-end" gap="sm">
        <Button variant="default" onClick={onCancel}>
          Cancel
        </Button>
        <Button onClick={submit}>Set on {rows}</Button>
      </Group>
    </Stack>
  );
}
