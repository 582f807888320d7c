import { Badge, Button, Group, Loader, Modal, NativeSelect, Paper, Stack, Text, Title } from '@mantine/core';
import type { Entity, Model, StateMachine, Transition } from '@ninepoint/spec';
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api } from '../api/client.ts';
import type { Me } from '../api/session.ts';
import { type ApiRecord, formatNumber, recordTitle } from '../format.ts';
import { transitionLabel } from '../records/access.ts';
import { refreshRecords } from '../records/api.ts';
import { BulkSetField } from '../records/BulkSetField.tsx';
import { callFor, pathOf, transitionCall } from '../records/calls.ts';
import { ShortReason } from '../records/ShortReason.tsx';
import { transitionFields } from '../records/transitions.tsx';
import { type BulkOutcome, runBulk, selectionCsv } from './bulk.ts';
import { download } from './export.ts';

/** What a bulk action did, row by row, with the records' titles as they were. */
interface BulkReport {
  action: string;
  rows: (BulkOutcome & { title: string })[];
}

/**
 * The transitions a bulk action offers: those point 6 grants the user in some way, served by a
 * call, and needing nothing typed in (a required payload field is for one record at a time).
 * Whether each row may take it now (its state, its guard, whose it is) the server decides per row.
 */
export function bulkTransitions(model: Model, me: Me, entity: string, machine: StateMachine | undefined): Transition[] {
  const access = me.access[entity];
  return (machine?.transitions ?? []).filter(
    (t) =>
      !t.creates &&
      (access?.transitions[t.name] ?? 'none') !== 'none' &&
      transitionCall(model, entity, t.name) !== undefined &&
      transitionFields(model, entity, t).every((f) => !f.required),
  );
}

/**
 * What can be done to the selected rows at once: take a transition, delete them (after asking),
 * export them as CSV. Each row is one call, a few at a time, checked by the server on its own;
 * the outcome of each (done, or refused with the problem's message) is listed afterwards.
 */
export function BulkBar({
  model,
  me,
  entity,
  machine,
  selected,
  fields,
  filename,
  onClear,
  onDone,
}: {
  model: Model;
  me: Me;
  entity: Entity;
  machine: StateMachine | undefined;
  selected: ApiRecord[];
  /** The fields an export writes. */
  fields: readonly string[];
  filename: string;
  onClear: () => void;
  /** After an action: the ids it was done to, to be unselected. */
  onDone: (ids: string[]) => void;
}) {
  const client = useQueryClient();
  const transitions = bulkTransitions(model, me, entity.name, machine);
  const deleteCall = callFor(model, entity.name, 'delete');
  const mayDelete = deleteCall !== undefined && (me.access[entity.name]?.delete ?? 'none') !== 'none';
  const [transition, setTransition] = useState(transitions[0]?.name ?? '');
  const [running, setRunning] = useState<{ action: string; done: number } | null>(null);
  const [report, setReport] = useState<BulkReport | null>(null);
  const [confirming, setConfirming] = useState(false);
  const selectId = useId();
  const reportId = useId();
  const count = selected.length;
  const rows = `${formatNumber(count)} ${count === 1 ? 'row' : 'rows'}`;

  const run = async (action: string, act: (record: ApiRecord) => Promise<unknown>) => {
    const records = [...selected];
    setReport(null);
    setRunning({ action, done: 0 });
    try {
      const outcomes = await runBulk(records, act, {
        onProgress: (done) => setRunning({ action, done }),
      });
      setReport({
        action,
        rows: outcomes.map((o, i) => ({ ...o, title: recordTitle(entity, records[i]) })),
      });
      onDone(outcomes.filter((o) => o.ok).map((o) => o.id));
    } finally {
      setRunning(null);
      await refreshRecords(client);
    }
  };

  const take = () => {
    const chosen = transitions.find((t) => t.name === transition);
    const call = chosen ? transitionCall(model, entity.name, chosen.name) : undefined;
    if (!chosen || !call) return;
    void run(transitionLabel(chosen), (record) => api(call.method, pathOf(call, String(record.id))));
  };
  const remove = () => {
    setConfirming(false);
    if (!deleteCall) return;
    void run('Delete', (record) => api(deleteCall.method, pathOf(deleteCall, String(record.id))));
  };

  const refused = report?.rows.filter((r) => !r.ok).length ?? 0;
  return (
    <Stack gap="xs">
      {count > 0 && (
        <Paper withBorder radius="lg" p="sm" role="region" aria-label="Selected rows">
          <Group gap="sm" wrap="wrap" align="center">
            <Text size="sm" fw={600} aria-live="polite">
              {rows} selected
            </Text>
            {transitions.length > 0 && (
              <Group gap={6} wrap="nowrap" align="center">
                <NativeSelect
                  id={selectId}
                  size="xs"
                  aria-label="Transition to take"
                  value={transition}
                  onChange={(e) => setTransition(e.currentTarget.value)}
                  data={transitions.map((t) => ({ value: t.name, label: transitionLabel(t) }))}
                />
                <Button size="xs" onClick={take} disabled={running !== null}>
                  Apply to {rows}
                </Button>
              </Group>
            )}
            <BulkSetField
              model={model}
              me={me}
              entity={entity}
              rows={rows}
              disabled={running !== null}
              onRun={(action, act) => void run(action, act)}
            />
            {mayDelete && (
              <Button
                size="xs"
                color="red"
                variant="light"
                onClick={() => setConfirming(true)}
                disabled={running !== null}
              >
                Delete {rows}
              </Button>
            )}
            <Button
              size="xs"
              variant="default"
              onClick={() => download(selectionCsv(fields, selected), filename)}
              disabled={running !== null}
            >
              Export {rows} as CSV
            </Button>
            <Button size="xs" variant="subtle" color="gray" onClick={onClear} disabled={running !== null}>
              Clear selection
            </Button>
            {running && (
              <Text size="sm" c="dimmed" style={{ display: 'inline-flex', alignItems: 'center', gap: 6 }}>
                <Loader size={14} aria-hidden="true" />
                {running.action}: {formatNumber(running.done)} of {formatNumber(count)}
              </Text>
            )}
          </Group>
        </Paper>
      )}

      {report && (
        <Paper withBorder radius="lg" p="sm" role="region" aria-labelledby={reportId}>
          <Group justify="space-between" mb={6}>
            <Title order={2} size="h5" id={reportId}>
              {report.action}: {formatNumber(report.rows.length - refused)} done
              {refused > 0 ? `, ${formatNumber(refused)} refused` : ''}
            </Title>
            <Button size="compact-xs" variant="subtle" color="gray" onClick={() => setReport(null)}>
              Dismiss
            </Button>
          </Group>
          <Stack gap={6} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
            {report.rows.map((row) => (
              <Group key={row.id} component="li" gap="sm" wrap="nowrap" align="flex-start">
                {row.ok ? (
                  <Badge color="green" variant="light" style={{ textTransform: 'none', flexShrink: 0 }}>
                    Done
                  </Badge>
                ) : (
                  <Badge color="red" variant="light" style={{ textTransform: 'none', flexShrink: 0 }}>
                    Refused
                  </Badge>
                )}
                {row.ok ? (
                  <Text size="sm" fw={600}>
                    {row.title}
                  </Text>
                ) : (
                  <ShortReason
                    size="sm"
                    lead={
                      <>
                        <Text span fw={600} size="sm">
                          {row.title}
                        </Text>
                        {': '}
                      </>
                    }
                    reason={row.message}
                  />
                )}
              </Group>
            ))}
          </Stack>
        </Paper>
      )}

      <Modal opened={confirming} onClose={() => setConfirming(false)} title={`Delete ${rows}?`} centered>
        <Stack gap="md">
          <Text size="sm">
            {count === 1 ? 'This record is' : `These ${formatNumber(count)} records are`} deleted for everyone. Records
            others still refer to are kept, and listed as refused.
          </Text>
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
            <Button color="red" onClick={remove}>
              Delete {rows}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
