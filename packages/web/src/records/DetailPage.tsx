import {
  Alert,
  Anchor,
  Badge,
  Button,
  DataList,
  Grid,
  Group,
  Modal,
  Paper,
  Skeleton,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useDocumentTitle } from '@mantine/hooks';
import { type Entity, type Model, type Transition, threadsOn } from '@ninepoint/spec';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { type Answer, type ApiError, api } from '../api/client.ts';
import type { Me } from '../api/session.ts';
import type { ScreenProps } from '../app/context.ts';
import { Failure, Loading } from '../app/pages.tsx';
import { fieldLabel, screenTitle } from '../app/screens.ts';
import { formatDateTime, formatRelative, sentence } from '../fields/display.ts';
import { UserName } from '../fields/FieldValue.tsx';
import { accessTo, covers, type Move, movesOf, stateColor, stateLabel, transitionLabel } from './access.ts';
import { problemOf, refreshRecords, useHistory, useRecord } from './api.ts';
import { type ApiRecord, callFor, entityNamed, machineOf, pathOf } from './calls.ts';
import { HistoryTimeline } from './History.tsx';
import { InlineField, inPlaceFields } from './InlineField.tsx';
import { entityLabel, entityWords } from './labels.ts';
import { editRoute, listScreen } from './navigation.ts';
import { useOwned } from './ownership.ts';
import { ProblemAlert } from './ProblemAlert.tsx';
import { RelatedRecords } from './Related.tsx';
import { ShortReason } from './ShortReason.tsx';
import { Threads } from './Thread.tsx';
import { useRecordTitle } from './title.ts';
import {
  ConfirmFinalStep,
  isFinalStep,
  type MoveRefusal,
  TransitionDialog,
  transitionFields,
  useMoveRefusalDetails,
  useTakeTransition,
} from './transitions.tsx';

/** The `detail` screen: one record, what the user may do with it, and its history. */
export function DetailPage({ model, me, screen }: ScreenProps) {
  const params = useParams();
  const id = params[screen.params[0] ?? 'id'];
  const entity = entityNamed(model, screen.entity ?? '');
  const record = useRecord(model, entity?.name ?? '', id);
  if (!entity) return <Failure error={new Error(`The spec has no entity ${screen.entity ?? ''}.`)} />;
  if (!callFor(model, entity.name, 'get')) {
    return (
      <Alert color="yellow" title="Not available">
        This product has no call to read one {entityWords(entity.name)} (point 7 of its spec).
      </Alert>
    );
  }
  if (record.isPending) return <Loading what={`Loading the ${entityWords(entity.name)}`} />;
  if (record.isError) return <Failure error={record.error} retry={() => void record.refetch()} />;
  return <RecordDetail model={model} me={me} entity={entity} answer={record.data} />;
}

function RecordDetail({
  model,
  me,
  entity,
  answer,
}: {
  model: Model;
  me: Me;
  entity: Entity;
  answer: Answer<ApiRecord>;
}) {
  const record = answer.body;
  const navigate = useNavigate();
  const client = useQueryClient();
  const title = useRecordTitle(model, entity.name, record);
  useDocumentTitle(`${title} · ${model.product.name}`);
  const machine = machineOf(model, entity.name);
  const access = accessTo(me, entity.name);
  const owned = useOwned(model, me, entity.name, record);
  const moves = movesOf(model, me, entity.name, record, owned.update);
  const edit = covers(access.update, owned.update, access.updateStates, record.state)
    ? editRoute(model, me, entity.name, record.id)
    : null;
  const deleteCall = covers(access.delete, owned.delete, access.deleteStates, record.state)
    ? callFor(model, entity.name, 'delete')
    : undefined;
  const back = listScreen(model, me, entity.name);
  const hasHistory = callFor(model, entity.name, 'history') !== undefined;

  const take = useTakeTransition(model, entity.name);
  const [dialog, setDialog] = useState<Transition | null>(null);
  const [pending, setPending] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<{ done: string } | { error: ApiError } | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);

  const refusals = useMoveRefusalDetails(model, entity.name, record, moves);
  const inPlace = inPlaceFields(model, me, entity, record, owned.update);
  const [editingField, setEditingField] = useState<string | null>(null);
  /** Opens a field's input in place, from a refusal that asks for it ("Set an assignee first"). */
  const offer = (name: string) => {
    setEditingField(name);
    requestAnimationFrame(() => document.getElementById(`inline-${name}`)?.focus());
  };
  const [confirming, setConfirming] = useState<Move | null>(null);

  const start = (move: Move, confirmed = false) => {
    setOutcome(null);
    if (transitionFields(model, entity.name, move.transition).length > 0) {
      setDialog(move.transition);
      return;
    }
    if (!confirmed && isFinalStep(model, entity.name, move.transition)) {
      setConfirming(move);
      return;
    }
    setPending(move.transition.name);
    take.mutate(
      { record, etag: answer.etag, transition: move.transition },
      {
        onSuccess: (next) => setOutcome({ done: doneMessage(move.transition, next.body) }),
        onError: (error) => setOutcome({ error: problemOf(error) }),
        onSettled: () => setPending(null),
      },
    );
  };

  const remove = useMutation({
    mutationFn: () =>
      api<null>('DELETE', pathOf(deleteCall as NonNullable<typeof deleteCall>, record.id), { ifMatch: answer.etag }),
    onSuccess: () => {
      void refreshRecords(client);
      navigate(back?.route ?? '/');
    },
  });

  const reload = () => {
    setOutcome(null);
    void client.invalidateQueries({ queryKey: ['record', entity.name, record.id] });
  };

  return (
    <Stack gap="lg">
      <Stack gap={6}>
        {back && (
          <Anchor component={Link} to={back.route} size="sm" w="fit-content">
            ← {screenTitle(back, model)}
          </Anchor>
        )}
        <Group justify="space-between" align="flex-start" gap="md">
          <Stack gap={4} style={{ flex: '1 1 320px', minWidth: 0 }}>
            <Text size="xs" c="dimmed" tt="uppercase" fw={700} style={{ letterSpacing: '0.04em' }}>
              {entityLabel(entity.name)}
            </Text>
            <Group gap="sm" align="center">
              <Title order={1} style={{ overflowWrap: 'anywhere' }}>
                {title}
              </Title>
              {typeof record.state === 'string' && (
                <Badge size="lg" variant="light" color={stateColor(machine, record.state)}>
                  {stateLabel(record.state)}
                </Badge>
              )}
            </Group>
          </Stack>
          <Group gap="xs" role="group" aria-label={`What you can do with this ${entityWords(entity.name)}`}>
            {moves.map((move, i) => (
              <Button
                key={move.transition.name}
                variant={i === 0 ? 'filled' : 'light'}
                loading={pending === move.transition.name}
                disabled={(pending !== null && pending !== move.transition.name) || refusals.has(move.transition.name)}
                aria-describedby={refusals.has(move.transition.name) ? reasonId(move) : undefined}
                onClick={() => start(move)}
                title={`${transitionLabel(move.transition)}: ${stateLabel(String(record.state))} → ${stateLabel(move.to)}`}
              >
                {transitionLabel(move.transition)}
              </Button>
            ))}
            {edit && (
              <Button component={Link} to={edit} variant="default">
                Edit
              </Button>
            )}
            {deleteCall && (
              <Button variant="subtle" color="red" onClick={() => setConfirmDelete(true)}>
                Delete
              </Button>
            )}
          </Group>
        </Group>
        {entity.doc && (
          <Text c="dimmed" size="sm">
            {sentence(entity.doc)}
          </Text>
        )}
        {refusals.size > 0 && (
          <Stack gap={2} component="ul" m={0} p={0} style={{ listStyle: 'none' }} aria-label="Not possible now">
            {moves
              .filter((move) => refusals.has(move.transition.name))
              .map((move) => {
                const refusal = refusals.get(move.transition.name) as MoveRefusal;
                const full = reasonWords(move, refusal.reason);
                const settable = refusal.empty.filter((name) => inPlace.has(name));
                return (
                  <Group key={move.transition.name} component="li" gap="xs" wrap="wrap">
                    <ShortReason
                      size="sm"
                      c="dimmed"
                      id={reasonId(move)}
                      lead={refusal.empty.length > 0 ? `${transitionLabel(move.transition)}: ` : undefined}
                      reason={refusal.empty.length > 0 ? refusal.reason : full}
                    />
                    {settable.map((name) => {
                      const field = entity.fields.find((f) => f.name === name);
                      return field ? (
                        <Button key={name} size="compact-xs" variant="light" onClick={() => offer(name)}>
                          Set {fieldLabel(field).toLowerCase()}
                        </Button>
                      ) : null;
                    })}
                  </Group>
                );
              })}
          </Stack>
        )}
      </Stack>

      {outcome && 'done' in outcome && (
        <Alert color="green" role="status" withCloseButton onClose={() => setOutcome(null)} closeButtonLabel="Dismiss">
          {outcome.done}
        </Alert>
      )}
      {outcome && 'error' in outcome && (
        <ProblemAlert error={outcome.error} title="Not done" onClose={() => setOutcome(null)}>
          {(outcome.error.problem.empty ?? [])
            .filter((name) => inPlace.has(name))
            .map((name) => (
              <Button key={name} size="xs" mt="xs" mr="xs" variant="white" color="red" onClick={() => offer(name)}>
                Set {fieldLabel(entity.fields.find((f) => f.name === name) ?? { name }).toLowerCase()}
              </Button>
            ))}
          {outcome.error.problem.code === 'CONFLICT' && (
            <Button size="xs" mt="xs" variant="white" color="orange" onClick={reload}>
              Show the latest version
            </Button>
          )}
        </ProblemAlert>
      )}

      <Grid gap="lg">
        <Grid.Col span={hasHistory ? { base: 12, md: 7, lg: 8 } : { base: 12, lg: 9 }}>
          <Paper withBorder radius="md" p="lg" component="section" aria-labelledby="detail-fields">
            <Title order={2} size="h4" id="detail-fields" mb="md">
              Details
            </Title>
            <DataList withDivider labelWidth={170}>
              {entity.fields.map((field) => (
                <DataList.Item key={field.name}>
                  <DataList.ItemLabel>{fieldLabel(field)}</DataList.ItemLabel>
                  <DataList.ItemValue style={{ overflowWrap: 'anywhere', minWidth: 0 }}>
                    <InlineField
                      model={model}
                      me={me}
                      entity={entity}
                      field={field}
                      answer={answer}
                      editable={inPlace.has(field.name)}
                      editing={editingField === field.name}
                      onEditing={(on) => setEditingField(on ? field.name : null)}
                      onSaved={(saved) => setOutcome({ done: `${fieldLabel(saved)} saved.` })}
                    />
                  </DataList.ItemValue>
                </DataList.Item>
              ))}
            </DataList>
            <Text size="xs" c="dimmed" mt="md">
              Created <When at={record.created_at} />
              {record.created_by && (
                <>
                  {' '}
                  by <UserName id={record.created_by} />
                </>
              )}
              {record.updated_at !== record.created_at && (
                <>
                  {' '}
                  · last changed <When at={record.updated_at} />
                </>
              )}
            </Text>
          </Paper>
          <Stack gap="lg" mt={threadsOn(model, entity.name).length > 0 ? 'lg' : 0}>
            <Threads model={model} me={me} parent={entity} record={record} />
          </Stack>
        </Grid.Col>
        {hasHistory && (
          <Grid.Col span={{ base: 12, md: 5, lg: 4 }}>
            <HistorySection model={model} entity={entity} id={record.id} />
          </Grid.Col>
        )}
      </Grid>
      <RelatedRecords model={model} me={me} parent={entity} record={record} />

      {dialog && (
        <TransitionDialog
          model={model}
          entity={entity.name}
          record={record}
          etag={answer.etag}
          transition={dialog}
          title={title}
          onClose={() => setDialog(null)}
          onDone={(next) => setOutcome({ done: doneMessage(dialog, next.body) })}
        />
      )}
      {confirming && (
        <ConfirmFinalStep
          model={model}
          entity={entity.name}
          record={record}
          transition={confirming.transition}
          title={title}
          onConfirm={() => start(confirming, true)}
          onClose={() => setConfirming(null)}
        />
      )}
      <Modal
        opened={confirmDelete}
        onClose={() => {
          setConfirmDelete(false);
          remove.reset();
        }}
        title={`Delete ${title}?`}
        centered
      >
        <Stack>
          <Text size="sm">This {entityWords(entity.name)} will be gone for everyone. This cannot be undone.</Text>
          {remove.isError && <ProblemAlert error={problemOf(remove.error)} title="Not deleted" />}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirmDelete(false)} data-autofocus>
              Keep it
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
              Delete
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

function HistorySection({ model, entity, id }: { model: Model; entity: Entity; id: string }) {
  const history = useHistory(model, entity.name, id);
  return (
    <Paper withBorder radius="md" p="lg" component="section" aria-labelledby="detail-history">
      <Title order={2} size="h4" id="detail-history" mb="md">
        History
      </Title>
      {history.isPending ? (
        <Stack gap="xs" aria-busy="true" aria-label="Loading the history">
          <Skeleton height={14} width="60%" />
          <Skeleton height={10} width="40%" />
          <Skeleton height={14} width="70%" mt="md" />
          <Skeleton height={10} width="35%" />
        </Stack>
      ) : history.isError ? (
        <Failure error={history.error} retry={() => void history.refetch()} />
      ) : history.data.length === 0 ? (
        <Text size="sm" c="dimmed">
          Nothing has happened yet.
        </Text>
      ) : (
        <HistoryTimeline model={model} entity={entity} entries={history.data} />
      )}
    </Paper>
  );
}

function When({ at }: { at: string }) {
  return (
    <time dateTime={at} title={formatDateTime(at)}>
      {formatRelative(at)}
    </time>
  );
}

/** The id of the words that say why a move is not possible now. */
function reasonId(move: Move): string {
  return `cannot-${move.transition.name.replace(/\W+/g, '-')}`;
}

/** Why a move is not possible, naming it once: a guard's words already start with it ("Escalate is allowed only when…"). */
function reasonWords(move: Move, reason: string): string {
  const name = transitionLabel(move.transition);
  // "Set an assignee first. Assign is allowed only when…" names it too.
  return reason.startsWith(`${name} `) || reason.startsWith('Set ') ? reason : `${name} is not possible now: ${reason}`;
}

/** "Return done: it is now Returned." — or "…: it stays Out." for a transition back to its own state. */
function doneMessage(transition: Transition, record: ApiRecord): string {
  const state = typeof record.state === 'string' ? stateLabel(record.state) : '';
  const stays = transition.from.length === 1 && transition.from[0] === transition.to;
  return `${transitionLabel(transition)} done${state ? `: it ${stays ? 'stays' : 'is now'} ${state}` : ''}.`;
}
