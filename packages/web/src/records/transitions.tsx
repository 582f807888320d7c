import { Badge, Button, Group, Modal, Stack, Text } from '@mantine/core';
import type { Model, Transition } from '@ninepoint/spec';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useContext, useEffect, useMemo, useState } from 'react';
import { type Answer, type ApiError, api, sendForm } from '../api/client.ts';
import { useMe } from '../api/session.ts';
import { ModelContext } from '../app/context.ts';
import { Arrow } from '../fields/Arrow.tsx';
import { sentence } from '../fields/display.ts';
import { FieldInput, inputId } from '../fields/FieldInput.tsx';
import { PendingFilesContext } from '../fields/files/pending-files.ts';
import { usePendingFiles, withPendingFiles } from '../fields/files/use-pending-files.ts';
import { toInput } from '../fields/form-values.ts';
import { formatMessage } from '../format.ts';
import { hasRuleChecks, preloadRuleChecks, refusalBeforeSending } from '../rules/before-sending.ts';
import { type Move, stateColor, stateLabel, transitionLabel } from './access.ts';
import { problemOf, refreshRecords, storeRecord } from './api.ts';
import { type ApiRecord, entityNamed, machineOf, pathOf, payloadFields, transitionCall } from './calls.ts';
import { useFieldForm } from './field-form.ts';
import { ProblemAlert } from './ProblemAlert.tsx';

/** What taking a transition needs: the record (and its ETag, when known), the transition, its payload. */
export interface TakeInput {
  record: ApiRecord;
  etag?: string | null;
  transition: Transition;
  body?: Record<string, unknown>;
  /** Files picked in the dialog, by field: sent with the transition (multipart/form-data). */
  files?: readonly [string, File][];
}

/**
 * The fields a transition's call lets the user send along (point 7's payload), none for most;
 * never one the transition sets itself (point 4's `sets`): the server would replace it.
 */
export function transitionFields(model: Model, entity: string, transition: Transition) {
  const target = entityNamed(model, entity);
  if (!target) return [];
  const fields = payloadFields(target, transitionCall(model, entity, transition.name));
  const sets = transition.sets ?? [];
  return sets.length === 0 ? fields : fields.filter((f) => !sets.some((a) => a.field === f.name));
}

/**
 * Takes a transition through its call; on success the record is stored and every list refreshed.
 * With an ETag, a record someone else changed meanwhile is refused with CONFLICT. The transition's
 * guard and the rules it runs are checked first (`refusalBeforeSending`): a refusal found here is
 * the problem the server would answer, thrown as its `ApiError`.
 */
export function useTakeTransition(shown: Model, entity: string) {
  const client = useQueryClient();
  // The whole model: guards and rules may name fields the user does not see.
  const model = useContext(ModelContext) ?? shown;
  const me = useMe();
  const user = me.data?.user ?? null;
  const checked = model.machines
    .find((m) => m.entity === entity)
    ?.transitions.some((t) => !t.creates && hasRuleChecks(model, entity, 'transition', t.name));
  useEffect(() => {
    if (checked) preloadRuleChecks();
  }, [checked]);
  return useMutation({
    mutationFn: async ({ record, etag, transition, body, files = [] }: TakeInput): Promise<Answer<ApiRecord>> => {
      const call = transitionCall(model, entity, transition.name);
      if (!call) throw new Error(`${transition.name} has no call.`);
      const write = { kind: 'transition' as const, transition: transition.name, current: record };
      const checked = withPicked(model, entity, record, body ?? {}, new Set(files.map(([field]) => field)));
      const refusal = await refusalBeforeSending(client, model, { ...write, entity, body: checked, user });
      if (refusal) throw refusal;
      const path = pathOf(call, record.id);
      if (files.length === 0) {
        return api<ApiRecord>(call.method, path, {
          ...(body && Object.keys(body).length > 0 ? { body } : {}),
          ifMatch: etag ?? null,
        });
      }
      // With files, the transition and its files go together: all or nothing.
      const form = new FormData();
      form.append('record', JSON.stringify(body ?? {}));
      for (const [field, file] of files) form.append(field, file, file.name);
      return sendForm<ApiRecord>(call.method, path, form, { ifMatch: etag ?? null });
    },
    onSuccess: async (answer) => {
      storeRecord(client, entity, answer);
      await refreshRecords(client);
    },
  });
}

/**
 * The payload as the rules see the record once the picked files arrive (`has(receipt)` holds): a
 * field of one file has the new one instead, a field of several keeps what it holds as well.
 */
function withPicked(
  model: Model,
  entity: string,
  record: ApiRecord,
  body: Record<string, unknown>,
  picked: ReadonlySet<string>,
): Record<string, unknown> {
  if (picked.size === 0) return body;
  const fields = entityNamed(model, entity)?.fields ?? [];
  const held = [...picked].map((name) => {
    const field = fields.find((f) => f.name === name);
    const several = field?.type.kind === 'file' && field.type.maxFiles > 1;
    return [name, several && typeof record[name] === 'string' ? record[name] : ''] as const;
  });
  return withPendingFiles({ ...body, ...Object.fromEntries(held) }, picked);
}

/** Whether a transition leads into a state no transition leaves: a step that cannot be undone. */
export function isFinalStep(model: Model, entity: string, transition: Transition): boolean {
  const machine = machineOf(model, entity);
  if (!machine || transition.from.includes(transition.to)) return false;
  return !machine.transitions.some((t) => !t.creates && t.from.includes(transition.to));
}

/**
 * Why each of a record's moves would be refused now, by transition name: the guard's words (or
 * a rule's), as the server would answer, worked out in the browser with the spec package's
 * evaluation. A move that sends fields is left out (its dialog asks for them, and the guard may
 * need them); so is what the browser cannot decide (counts, records it may not read): the server
 * decides those when the move is taken.
 */
export function useMoveRefusals(shown: Model, entity: string, record: ApiRecord, moves: Move[]): Map<string, string> {
  const details = useMoveRefusalDetails(shown, entity, record, moves);
  return new Map([...details].map(([name, d]) => [name, d.reason]));
}

/** Why a move is not possible now, and the record's empty fields its guard reads (`Problem.empty`). */
export interface MoveRefusal {
  reason: string;
  empty: string[];
}

/**
 * `useMoveRefusals` with the empty fields each refusal names, so a page can offer them ("Set an
 * assignee first" beside the assignee's input).
 */
export function useMoveRefusalDetails(
  shown: Model,
  entity: string,
  record: ApiRecord,
  moves: Move[],
): Map<string, MoveRefusal> {
  const client = useQueryClient();
  const model = useContext(ModelContext) ?? shown;
  const me = useMe();
  const user = me.data?.user ?? null;
  const checked = moves.filter(
    (m) =>
      transitionFields(model, entity, m.transition).length === 0 &&
      hasRuleChecks(model, entity, 'transition', m.transition.name),
  );
  const names = checked.map((m) => m.transition.name);
  const refusals = useQuery({
    queryKey: ['move-refusals', entity, record.id, record.updated_at, record.state, user?.id ?? null, names],
    queryFn: async () => {
      const found: [string, MoveRefusal][] = [];
      for (const move of checked) {
        const write = { kind: 'transition' as const, transition: move.transition.name, current: record };
        const refusal = await refusalBeforeSending(client, model, { ...write, entity, body: {}, user });
        if (!refusal) continue;
        // A rule's refusal lists what failed under a general title: its own words say why.
        const said = refusal.problem.errors?.map((e) => e.message).join(' ') || refusal.message;
        found.push([move.transition.name, { reason: formatMessage(said), empty: refusal.problem.empty ?? [] }]);
      }
      return found;
    },
    enabled: checked.length > 0 && me.data !== undefined,
    // Guards may read the clock ("4 hours after it was created"): look again now and then.
    staleTime: 30_000,
    refetchInterval: 60_000,
  });
  return new Map(refusals.data ?? []);
}

/**
 * A refusal's first sentence when it says what to do ("Set an assignee first."), for a menu or a
 * line beside a button; the whole text goes on hover. Other refusals are said whole.
 */
export function shortReason(reason: string): string {
  const first = /^Set .+? first\./.exec(reason);
  return first ? first[0] : reason;
}

/** What a move into a final state means, in words: the record's new state, its meaning, no way back. */
export function FinalConsequence({
  model,
  entity,
  transition,
  title,
}: {
  model: Model;
  entity: string;
  transition: Transition;
  title: string;
}) {
  const state = machineOf(model, entity)?.states.find((s) => s.name === transition.to);
  const to = stateLabel(transition.to);
  return (
    <Text size="sm">
      “{title}” becomes <strong>{to}</strong>
      {state?.doc ? ` (${state.doc.trim().replace(/[.]$/, '')})` : ''}. {to} is final: no step leads out of it, so this
      cannot be undone.
    </Text>
  );
}

/**
 * Asks before a move into a final state (closing, paying, writing off): names what it does and
 * that it cannot be undone; `onConfirm` takes it.
 */
export function ConfirmFinalStep({
  model,
  entity,
  record,
  transition,
  title,
  onConfirm,
  onClose,
}: {
  model: Model;
  entity: string;
  record: ApiRecord;
  transition: Transition;
  title: string;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    // No close button: "Close" is the name of many a final step (a ticket's), and Cancel says it.
    <Modal
      opened
      onClose={onClose}
      title={`${transitionLabel(transition)} “${title}”?`}
      centered
      withCloseButton={false}
    >
      <Stack gap="md">
        <StateChange model={model} entity={entity} from={String(record.state ?? '')} to={transition.to} />
        <FinalConsequence model={model} entity={entity} transition={transition} title={title} />
        {transition.doc && (
          <Text size="sm" c="dimmed">
            {sentence(transition.doc)}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} data-autofocus>
            Cancel
          </Button>
          <Button
            onClick={() => {
              onClose();
              onConfirm();
            }}
          >
            {transitionLabel(transition)}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** From → to, as badges: what a transition does to the record. */
export function StateChange({ model, entity, from, to }: { model: Model; entity: string; from: string; to: string }) {
  const machine = machineOf(model, entity);
  if (from === to) {
    return (
      <Group gap={6} wrap="nowrap">
        <Text span size="sm" c="dimmed">
          Stays
        </Text>
        <Badge color={stateColor(machine, to)} variant="light">
          {stateLabel(to)}
        </Badge>
      </Group>
    );
  }
  return (
    <Group gap={6} wrap="nowrap">
      <Badge color={stateColor(machine, from)} variant="light">
        {stateLabel(from)}
      </Badge>
      <Text span c="dimmed">
        <Arrow />
      </Text>
      <Badge color={stateColor(machine, to)} variant="light">
        {stateLabel(to)}
      </Badge>
    </Group>
  );
}

/**
 * A transition that sends fields (a return's condition note, a rejection's reason): a small form
 * over those fields, checked like the record's form, with the server's refusal shown at its fields.
 */
export function TransitionDialog({
  model,
  entity,
  record,
  etag,
  transition,
  title,
  onClose,
  onDone,
}: {
  model: Model;
  entity: string;
  record: ApiRecord;
  etag?: string | null;
  transition: Transition;
  /** The record's title, for the dialog's heading. */
  title: string;
  onClose: () => void;
  onDone?: (answer: Answer<ApiRecord>) => void;
}) {
  const fields = transitionFields(model, entity, transition);
  const [initial] = useState(() => Object.fromEntries(fields.map((f) => [f.name, toInput(f, record[f.name])])));
  const form = useFieldForm(model, entity, fields, 'change', initial);
  const take = useTakeTransition(model, entity);
  const [problem, setProblem] = useState<{ error: ApiError; messages: string[] } | null>(null);
  // A transition adds the files picked here to what the record holds; it never removes one.
  const pending = usePendingFiles();
  const adding = useMemo(() => ({ ...pending, addOnly: true }), [pending]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    const prepared = form.prepare(record, pending.fields());
    if ('invalid' in prepared) {
      document.getElementById(inputId({ name: prepared.invalid } as never, 'move'))?.focus();
      return;
    }
    // A file field's value never changes here (files are only added), so the body names none.
    take.mutate(
      { record, etag: etag ?? null, transition, body: prepared.body, files: pending.all() },
      {
        onSuccess: (answer) => {
          onDone?.(answer);
          onClose();
        },
        onError: (error) => {
          const refusal = problemOf(error);
          setProblem({ error: refusal, messages: form.showProblem(refusal) });
        },
      },
    );
  };

  return (
    <Modal opened onClose={onClose} title={`${transitionLabel(transition)}: ${title}`} size="lg" centered>
      <form noValidate onSubmit={submit}>
        <Stack gap="md">
          <StateChange model={model} entity={entity} from={String(record.state ?? '')} to={transition.to} />
          {transition.doc && (
            <Text size="sm" c="dimmed">
              {sentence(transition.doc)}
            </Text>
          )}
          {isFinalStep(model, entity, transition) && (
            <FinalConsequence model={model} entity={entity} transition={transition} title={title} />
          )}
          {problem && <ProblemAlert error={problem.error} messages={problem.messages} title="Not done" />}
          <PendingFilesContext.Provider value={adding}>
            {fields.map((field) => (
              <FieldInput
                idPrefix="move"
                key={field.name}
                model={model}
                field={field}
                value={form.values[field.name]}
                onChange={(v) => form.setValue(field.name, v)}
                error={form.errors[field.name]}
              />
            ))}
          </PendingFilesContext.Provider>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={take.isPending} data-autofocus={fields.length === 0 ? true : undefined}>
              {transitionLabel(transition)}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
