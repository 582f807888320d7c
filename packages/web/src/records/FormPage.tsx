import {
  Alert,
  Anchor,
  Badge,
  Button,
  DataList,
  Grid,
  Group,
  Paper,
  Progress,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import type { Entity, Field, Model } from '@ninepoint/spec';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type RefObject, useContext, useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { type Answer, type ApiError, api, sendForm } from '../api/client.ts';
import type { Me } from '../api/session.ts';
import { ModelContext, type ScreenProps } from '../app/context.ts';
import { Failure, Loading } from '../app/pages.tsx';
import { fieldLabel, screenTitle } from '../app/screens.ts';
import { FieldInput, inputId, isNarrow } from '../fields/FieldInput.tsx';
import { FieldValue } from '../fields/FieldValue.tsx';
import { alwaysSet } from '../fields/field-kinds.ts';
import { fileIds, forgetFiles } from '../fields/files/FileList.tsx';
import { PendingFilesContext } from '../fields/files/pending-files.ts';
import { usePendingFiles, withPendingFiles } from '../fields/files/use-pending-files.ts';
import { changed, defaultInput, type InputValues, toInput } from '../fields/form-values.ts';
import { hasRuleChecks, preloadRuleChecks, refusalBeforeSending } from '../rules/before-sending.ts';
import { stateColor, stateLabel } from './access.ts';
import { problemOf, refreshRecords, storeRecord, useRecord } from './api.ts';
import { type ApiRecord, callFor, entityNamed, machineOf, pathOf, payloadFields, writableFields } from './calls.ts';
import { type SendMode, useFieldForm } from './field-form.ts';
import { entityWords } from './labels.ts';
import { detailRoute, listScreen } from './navigation.ts';
import { ProblemAlert } from './ProblemAlert.tsx';
import { useRecordTitle } from './title.ts';

/** The `form` screen: a new record (route without a parameter) or an edit of one (`/books/:id/edit`). */
export function FormPage({ model, me, screen }: ScreenProps) {
  const params = useParams();
  const entity = entityNamed(model, screen.entity ?? '');
  const editing = screen.params.length > 0;
  const id = editing ? params[screen.params[0] ?? 'id'] : undefined;
  const record = useRecord(model, entity?.name ?? '', id);
  if (!entity) return <Failure error={new Error(`The spec has no entity ${screen.entity ?? ''}.`)} />;
  if (!editing)
    return <RecordForm model={model} me={me} entity={entity} base={null} title={screenTitle(screen, model)} />;
  if (record.isPending) return <Loading what={`Loading the ${entityWords(entity.name)}`} />;
  if (record.isError) return <Failure error={record.error} retry={() => void record.refetch()} />;
  return (
    <RecordForm
      key={record.data.body.id}
      model={model}
      me={me}
      entity={entity}
      base={record.data}
      title={screenTitle(screen, model)}
    />
  );
}

interface RecordFormProps {
  model: Model;
  me: Me;
  entity: Entity;
  /** The record being edited, with its ETag; null for a new record. */
  base: Answer<ApiRecord> | null;
  title: string;
}

function RecordForm({ model, me, entity, base: loaded, title }: RecordFormProps) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const editing = loaded !== null;
  /** The whole model: rules may name fields the user does not see (`model` has only those they do). */
  const whole = useContext(ModelContext) ?? model;
  const call = callFor(model, entity.name, editing ? 'update' : 'create');
  // A new record may be given a field the user does not see when point 6 says so (`create (speaker)`);
  // an edit shows only what they see, since it starts from the record as the API sent it.
  const inputs = editing ? entity : (entityNamed(whole, entity.name) ?? entity);
  const fields = writableFields(payloadFields(inputs, call), me.access[entity.name], editing);
  const mode: SendMode = !editing ? 'create' : call?.method === 'PUT' ? 'replace' : 'change';
  /** The version the user is editing: its ETag goes with the save, so a change made meanwhile is not lost. */
  const [base, setBase] = useState(loaded);
  // "Add" on a record's related panel opens a new record's form with its reference given (`?doctor=…`).
  const [given] = useSearchParams();
  const [initial] = useState<InputValues>(() =>
    Object.fromEntries(
      fields.map((f) => [
        f.name,
        loaded
          ? toInput(f, loaded.body[f.name])
          : f.type.kind === 'reference' && given.get(f.name)
            ? toInput(f, given.get(f.name))
            : defaultInput(f, me.user?.id ?? null),
      ]),
    ),
  );
  const form = useFieldForm(model, entity.name, fields, mode, initial);
  const pending = usePendingFiles();
  /** How much of an upload has gone, 0..1; null when nothing is being uploaded. */
  const [progress, setProgress] = useState<number | null>(null);
  const [problem, setProblem] = useState<{ error: ApiError; messages: string[] } | null>(null);
  const [theirChanges, setTheirChanges] = useState<{ theirs: string[]; both: string[] } | null>(null);
  const alertRef = useRef<HTMLDivElement>(null);
  const recordTitle = useRecordTitle(model, entity.name, base?.body);
  const heading = editing ? `Edit ${recordTitle}` : title;
  useDocumentTitle(`${heading} · ${model.product.name}`);

  const kind = editing ? 'update' : 'create';
  useEffect(() => {
    if (hasRuleChecks(whole, entity.name, kind)) preloadRuleChecks();
  }, [whole, entity.name, kind]);

  const save = useMutation({
    mutationFn: async (body: Record<string, unknown>) => {
      // The spec's rules, checked here first: a refusal reads as the server's would.
      const write = base ? { kind: 'update' as const, current: base.body } : { kind: 'create' as const };
      const refusal = await refusalBeforeSending(client, whole, {
        ...write,
        entity: entity.name,
        body: withPendingFiles(body, pending.fields()),
        user: me.user,
      });
      if (refusal) throw refusal;
      const method = call?.method ?? 'POST';
      const path = pathOf(call as NonNullable<typeof call>, base?.body.id);
      const files = pending.all();
      if (files.length === 0) return api<ApiRecord>(method, path, { body, ifMatch: base?.etag ?? null });
      // With files, the record and its files go together (multipart/form-data): all or nothing.
      const form = new FormData();
      form.append('record', JSON.stringify(body));
      for (const [field, file] of files) form.append(field, file, file.name);
      setProgress(0);
      try {
        return await sendForm<ApiRecord>(method, path, form, { ifMatch: base?.etag ?? null, onProgress: setProgress });
      } finally {
        setProgress(null);
      }
    },
    onSuccess: async (answer) => {
      // The files the record no longer holds were removed: what the page knew of them is out of date.
      forgetFiles(
        entity.fields
          .filter((f) => f.type.kind === 'file')
          .flatMap((f) => {
            const held = fileIds(answer.body[f.name]);
            return fileIds(base?.body[f.name]).filter((id) => !held.includes(id));
          }),
      );
      storeRecord(client, entity.name, answer);
      void refreshRecords(client);
      const to = detailRoute(model, me, entity.name, answer.body.id);
      const back = listScreen(model, me, entity.name);
      navigate(to ?? back?.route ?? '/');
    },
    onError: (error) => {
      const refusal = problemOf(error);
      const messages = refusal.problem.code === 'CONFLICT' ? [] : form.showProblem(refusal);
      setProblem({ error: refusal, messages });
      setTheirChanges(null);
      focusFirst(fields, refusal.problem.errors?.map((e) => e.field) ?? [], alertRef);
    },
  });

  const reload = useMutation({
    mutationFn: () => {
      const get = callFor(model, entity.name, 'get');
      return api<ApiRecord>('GET', pathOf(get as NonNullable<typeof get>, base?.body.id));
    },
    onSuccess: (answer) => {
      storeRecord(client, entity.name, answer);
      const before: Record<string, unknown> = base?.body ?? {};
      const theirs = entity.fields.filter(
        (f) => JSON.stringify(answer.body[f.name] ?? null) !== JSON.stringify(before[f.name] ?? null),
      );
      // Inputs the user left alone take their new values; the user's own changes stay as typed.
      const next = { ...form.values };
      const both: Field[] = [];
      for (const f of fields) {
        if (!theirs.includes(f)) continue;
        if (changed(f, form.values[f.name], before[f.name])) both.push(f);
        else next[f.name] = toInput(f, answer.body[f.name]);
      }
      form.reset(next);
      setTheirChanges({
        theirs: theirs.filter((f) => !both.includes(f)).map((f) => fieldLabel(f)),
        both: both.map((f) => fieldLabel(f)),
      });
      setBase(answer);
      setProblem(null);
    },
    onError: (error) => setProblem({ error: problemOf(error), messages: [] }),
  });

  if (!call) {
    return (
      <Stack maw={720}>
        <Title order={1}>{heading}</Title>
        <Alert color="yellow" title="Not available">
          This product has no call to {editing ? 'change' : 'create'} a {entityWords(entity.name)} (point 7 of its
          spec).
        </Alert>
      </Stack>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    const prepared = form.prepare(base?.body ?? null, pending.fields());
    if ('invalid' in prepared) {
      document.getElementById(inputId({ name: prepared.invalid } as Field))?.focus();
      return;
    }
    // Nothing changed and nothing picked: no write. Files picked alone are a write (a PATCH adds them).
    if (editing && Object.keys(prepared.body).length === 0 && pending.all().length === 0) {
      navigate(detailRoute(model, me, entity.name, base?.body.id ?? '') ?? '/');
      return;
    }
    save.mutate(prepared.body);
  };

  const readOnly = editing ? entity.fields.filter((f) => !fields.includes(f)) : [];
  const machine = machineOf(model, entity.name);
  const back = editing
    ? detailRoute(model, me, entity.name, base?.body.id ?? '')
    : (listScreen(model, me, entity.name)?.route ?? null);
  const conflict = problem?.error.problem.code === 'CONFLICT' && editing;
  const hasRequired = fields.some((f) => f.required && !alwaysSet(f.type));

  return (
    <Stack maw={760} gap="lg">
      <Stack gap={4}>
        {back && (
          <Anchor component={Link} to={back} size="sm">
            ← {editing ? `Back to ${recordTitle}` : 'Back'}
          </Anchor>
        )}
        <Title order={1}>{heading}</Title>
        {!editing && entity.doc && <Text c="dimmed">{entity.doc}</Text>}
        {!editing && machine && (
          <Group gap={6}>
            <Text size="sm" c="dimmed">
              A new {entityWords(entity.name)} starts as
            </Text>
            <Badge color={stateColor(machine, machine.initial)} variant="light">
              {stateLabel(machine.initial)}
            </Badge>
          </Group>
        )}
      </Stack>
      <Paper withBorder p="lg" radius="md">
        <form noValidate onSubmit={submit} aria-label={heading}>
          <Stack gap="md">
            {problem && (
              <div ref={alertRef} tabIndex={-1}>
                <ProblemAlert error={problem.error} messages={problem.messages}>
                  {conflict && (
                    <Stack gap={6} mt="xs">
                      <Text size="sm">Your changes are still here. Load their version, then save again.</Text>
                      <Button
                        size="xs"
                        variant="white"
                        color="orange"
                        w="fit-content"
                        loading={reload.isPending}
                        onClick={() => reload.mutate()}
                      >
                        Load their version and keep my changes
                      </Button>
                    </Stack>
                  )}
                </ProblemAlert>
              </div>
            )}
            {theirChanges && (
              <Alert
                color="blue"
                title="Their version is loaded"
                role="status"
                withCloseButton
                onClose={() => setTheirChanges(null)}
                closeButtonLabel="Dismiss"
              >
                <Text size="sm">{theirSummary(theirChanges)}</Text>
              </Alert>
            )}
            {hasRequired && (
              <Text size="xs" c="dimmed">
                Fields marked{' '}
                <Text span c="red" size="xs" aria-hidden>
                  *
                </Text>{' '}
                are required.
              </Text>
            )}
            <PendingFilesContext.Provider value={pending}>
              <Grid gap="md">
                {fields.map((field) => (
                  <Grid.Col key={field.name} span={{ base: 12, sm: isNarrow(field) ? 6 : 12 }}>
                    <FieldInput
                      model={model}
                      field={field}
                      value={form.values[field.name]}
                      onChange={(v) => form.setValue(field.name, v)}
                      error={form.errors[field.name]}
                    />
                  </Grid.Col>
                ))}
              </Grid>
            </PendingFilesContext.Provider>
            <Group justify="flex-end" mt="sm">
              {back && (
                <Button component={Link} to={back} variant="default">
                  Cancel
                </Button>
              )}
              {progress !== null && (
                <Progress
                  value={Math.round(progress * 100)}
                  aria-label="Upload progress"
                  style={{ flex: 1 }}
                  animated={progress >= 1}
                />
              )}
              <Button type="submit" loading={save.isPending}>
                {editing ? 'Save changes' : `Create ${entityWords(entity.name)}`}
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
      {readOnly.length > 0 && base && (
        <Paper withBorder p="lg" radius="md" component="section" aria-labelledby="form-read-only">
          <Title order={2} size="h5" id="form-read-only" mb="xs">
            Not changed here
          </Title>
          <DataList size="sm">
            {readOnly.map((f) => (
              <DataList.Item key={f.name}>
                <DataList.ItemLabel>{fieldLabel(f)}</DataList.ItemLabel>
                <DataList.ItemValue>
                  <FieldValue model={model} field={f} value={base.body[f.name]} />
                </DataList.ItemValue>
              </DataList.Item>
            ))}
          </DataList>
        </Paper>
      )}
    </Stack>
  );
}

/** Focuses the first field the server found at fault, else the alert that says what is wrong. */
function focusFirst(fields: readonly Field[], named: (string | null)[], alert: RefObject<HTMLElement | null>): void {
  requestAnimationFrame(() => {
    const first = fields.find((f) => named.includes(f.name));
    const target = first ? document.getElementById(inputId(first)) : alert.current;
    target?.focus();
  });
}

/** What a reload after a conflict did, in words. */
function theirSummary({ theirs, both }: { theirs: string[]; both: string[] }): string {
  const parts: string[] = [];
  if (theirs.length > 0) parts.push(`They changed ${list(theirs)}: the form now shows their values.`);
  if (both.length > 0) parts.push(`You both changed ${list(both)}: yours ${both.length === 1 ? 'is' : 'are'} kept.`);
  if (parts.length === 0) parts.push('They changed nothing this form shows.');
  return `${parts.join(' ')} Save to apply your changes.`;
}

function list(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
