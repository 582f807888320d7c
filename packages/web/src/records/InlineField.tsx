import { ActionIcon, Alert, Button, Group, Stack, Tooltip } from '@mantine/core';
import type { Entity, Field, Model } from '@ninepoint/spec';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useContext, useState } from 'react';
import { type Answer, api } from '../api/client.ts';
import type { Me } from '../api/session.ts';
import { ModelContext } from '../app/context.ts';
import { fieldLabel } from '../app/screens.ts';
import { FieldInput } from '../fields/FieldInput.tsx';
import { FieldValue } from '../fields/FieldValue.tsx';
import { toInput } from '../fields/form-values.ts';
import { formatMessage } from '../format.ts';
import { refusalBeforeSending } from '../rules/before-sending.ts';
import { accessTo, covers } from './access.ts';
import { problemOf, recordKey, refreshRecords, storeRecord } from './api.ts';
import { type ApiRecord, callFor, pathOf, payloadFields, writableFields } from './calls.ts';
import { useFieldForm } from './field-form.ts';

/**
 * The fields of a record the user may change one at a time on its detail page: those the update
 * call takes (a PATCH: a PUT sends every field, which is the form's job) and point 6 lets them
 * change on this record (`update own (notes)`, `while draft`). Files stay with the form.
 */
export function inPlaceFields(model: Model, me: Me, entity: Entity, record: ApiRecord, owned: boolean): Set<string> {
  const call = callFor(model, entity.name, 'update');
  const access = accessTo(me, entity.name);
  if (call?.method !== 'PATCH' || !covers(access.update, owned, access.updateStates, record.state)) return new Set();
  return new Set(
    writableFields(payloadFields(entity, call), access, true)
      .filter((f) => f.type.kind !== 'file')
      .map((f) => f.name),
  );
}

/**
 * A field's value on the detail page, with an "Edit" button when it may be changed here: the
 * field's input opens in place and saves that field alone, checked as the form checks it (point 3's
 * rules, then point 5's, in the browser first), with the form's messages.
 */
export function InlineField({
  model,
  me,
  entity,
  field,
  answer,
  editable,
  editing,
  onEditing,
  onSaved,
}: {
  model: Model;
  me: Me;
  entity: Entity;
  field: Field;
  answer: Answer<ApiRecord>;
  editable: boolean;
  editing: boolean;
  onEditing: (on: boolean) => void;
  onSaved: (field: Field) => void;
}) {
  const record = answer.body;
  if (editing) {
    return (
      <FieldEditor
        model={model}
        me={me}
        entity={entity}
        field={field}
        answer={answer}
        onClose={() => onEditing(false)}
        onSaved={() => {
          onEditing(false);
          onSaved(field);
        }}
      />
    );
  }
  return (
    <Group gap={6} wrap="nowrap" align="flex-start" justify="space-between">
      <div style={{ minWidth: 0, overflowWrap: 'anywhere' }}>
        <FieldValue model={model} field={field} value={record[field.name]} />
      </div>
      {editable && (
        <Tooltip label={`Edit ${fieldLabel(field).toLowerCase()}`} openDelay={300}>
          <ActionIcon
            variant="subtle"
            color="gray"
            size="sm"
            aria-label={`Edit ${fieldLabel(field)}`}
            onClick={() => onEditing(true)}
          >
            <PencilIcon />
          </ActionIcon>
        </Tooltip>
      )}
    </Group>
  );
}

function FieldEditor({
  model,
  me,
  entity,
  field,
  answer,
  onClose,
  onSaved,
}: {
  model: Model;
  me: Me;
  entity: Entity;
  field: Field;
  answer: Answer<ApiRecord>;
  onClose: () => void;
  onSaved: () => void;
}) {
  const client = useQueryClient();
  const whole = useContext(ModelContext) ?? model;
  const call = callFor(model, entity.name, 'update');
  const [initial] = useState(() => ({ [field.name]: toInput(field, answer.body[field.name]) }));
  const form = useFieldForm(model, entity.name, [field], 'change', initial);
  const [elsewhere, setElsewhere] = useState<string[]>([]);
  const save = useMutation({
    mutationFn: async (body: Record<string, unknown>) => {
      const refusal = await refusalBeforeSending(client, whole, {
        kind: 'update',
        current: answer.body,
        entity: entity.name,
        body,
        user: me.user,
      });
      if (refusal) throw refusal;
      return api<ApiRecord>('PATCH', pathOf(call as NonNullable<typeof call>, answer.body.id), {
        body,
        ifMatch: answer.etag,
      });
    },
    onSuccess: (saved) => {
      storeRecord(client, entity.name, saved);
      void refreshRecords(client);
      onSaved();
    },
    onError: (error) => {
      const problem = problemOf(error);
      const others = form.showProblem(problem);
      const atField = problem.problem.errors?.some((e) => e.field === field.name) ?? false;
      setElsewhere(others.length > 0 || atField ? others : [formatMessage(problem.message)]);
      if (problem.problem.code === 'CONFLICT') {
        setElsewhere(['Someone changed this record meanwhile: it now shows their version. Try again.']);
        void client.invalidateQueries({ queryKey: recordKey(entity.name, answer.body.id) });
      }
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setElsewhere([]);
    const prepared = form.prepare(answer.body);
    if ('invalid' in prepared) return;
    if (Object.keys(prepared.body).length === 0) {
      onClose();
      return;
    }
    save.mutate(prepared.body);
  };

  return (
    <form noValidate onSubmit={submit} aria-label={`Edit ${fieldLabel(field)}`} style={{ width: '100%', flex: 1 }}>
      <Stack gap={6}>
        <FieldInput
          model={model}
          field={field}
          idPrefix="inline"
          value={form.values[field.name]}
          onChange={(v) => form.setValue(field.name, v)}
          error={form.errors[field.name]}
          description=""
        />
        {elsewhere.length > 0 && (
          <Alert color="red" variant="light" p="xs" role="alert">
            {elsewhere.join(' ')}
          </Alert>
        )}
        <Group gap="xs" justify="flex-end">
          <Button size="xs" variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button size="xs" type="submit" loading={save.isPending}>
            Save
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function PencilIcon() {
  return (
    <svg
      width="14"
      height="14"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      aria-hidden="true"
    >
      <path d="M12 20h9" />
      <path d="M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4Z" />
    </svg>
  );
}
