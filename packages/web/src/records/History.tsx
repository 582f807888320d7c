import { Anchor, Badge, Group, List, Text, Timeline } from '@mantine/core';
import type { Entity, Field, Model } from '@ninepoint/spec';
import { Link } from 'react-router';
import { useDevMode } from '../api/dev.ts';
import { fieldLabel } from '../app/screens.ts';
import { Arrow } from '../fields/Arrow.tsx';
import { formatDateTime, formatRelative } from '../fields/display.ts';
import { FieldValue, UserName } from '../fields/FieldValue.tsx';
import { stateColor, stateLabel, transitionLabel } from './access.ts';
import { type HistoryEntry, machineOf } from './calls.ts';
import { actorWords } from './history-actor.ts';
import { studioLineRoute } from './navigation.ts';

/**
 * A record's history as a timeline, newest first: who did what and when, each change from its old
 * value to its new one, each transition with the states it left and entered.
 */
export function HistoryTimeline({ model, entity, entries }: { model: Model; entity: Entity; entries: HistoryEntry[] }) {
  const machine = machineOf(model, entity.name);
  const newestFirst = [...entries].reverse();
  return (
    <Timeline active={newestFirst.length - 1} bulletSize={14} lineWidth={2}>
      {newestFirst.map((entry, index) => {
        const color =
          entry.action === 'delete'
            ? 'red'
            : entry.action === 'transition' && entry.to
              ? stateColor(machine, entry.to)
              : entry.action === 'create'
                ? 'blue'
                : 'gray';
        return (
          <Timeline.Item
            // History entries have no id; their order never changes.
            // biome-ignore lint/suspicious/noArrayIndexKey: entries are append-only, so the index is stable.
            key={`${entry.at}-${index}`}
            color={color}
            title={<EntryTitle model={model} entity={entity} entry={entry} />}
          >
            <Text size="xs" c="dimmed">
              {actorWords(entry.by) ?? <UserName id={entry.by ?? ''} />} ·{' '}
              <time dateTime={entry.at} title={formatDateTime(entry.at)}>
                {formatRelative(entry.at)}
              </time>
            </Text>
            <Changes entity={entity} model={model} entry={entry} />
          </Timeline.Item>
        );
      })}
    </Timeline>
  );
}

function EntryTitle({ model, entity, entry }: { model: Model; entity: Entity; entry: HistoryEntry }) {
  const machine = machineOf(model, entity.name);
  switch (entry.action) {
    case 'create':
      return (
        <Group gap={6}>
          <Text size="sm" fw={600}>
            Created
          </Text>
          {entry.to && (
            <Badge size="xs" variant="light" color={stateColor(machine, entry.to)}>
              {stateLabel(entry.to)}
            </Badge>
          )}
          {entry.spec && <SpecLineLink line={entry.spec.line} text={entry.spec.text} />}
        </Group>
      );
    case 'update':
      return (
        <Text size="sm" fw={600}>
          Changed
        </Text>
      );
    case 'delete':
      return (
        <Text size="sm" fw={600}>
          Deleted
        </Text>
      );
    case 'transition':
      return (
        <Group gap={6}>
          <Text size="sm" fw={600}>
            {transitionLabel(entry.transition ?? 'Moved')}
          </Text>
          {entry.from && entry.to && entry.from === entry.to && (
            <Badge size="xs" variant="light" color={stateColor(machine, entry.to)}>
              {stateLabel(entry.to)}
            </Badge>
          )}
          {entry.from && entry.to && entry.from !== entry.to && (
            <Text span size="xs" c="dimmed">
              <Badge size="xs" variant="light" color={stateColor(machine, entry.from)}>
                {stateLabel(entry.from)}
              </Badge>{' '}
              <Arrow />{' '}
              <Badge size="xs" variant="light" color={stateColor(machine, entry.to)}>
                {stateLabel(entry.to)}
              </Badge>
            </Text>
          )}
          {entry.spec && <SpecLineLink line={entry.spec.line} text={entry.spec.text} />}
        </Group>
      );
  }
}

/**
 * The spec line of point 4 that declares an entry's transition: "line 42", opening the Studio at
 * it under `ninepoint dev`; under `serve`, the same words with the line's text on hover.
 */
function SpecLineLink({ line, text }: { line: number; text: string }) {
  const dev = useDevMode();
  const label = `line ${line}`;
  if (!dev) {
    return (
      <Text span size="xs" c="dimmed" title={text}>
        {label}
      </Text>
    );
  }
  return (
    <Anchor
      component={Link}
      to={studioLineRoute(line, text)}
      size="xs"
      title={text}
      aria-label={`Spec ${label}: ${text}`}
    >
      {label}
    </Anchor>
  );
}

/** The fields an entry changed: "Due: 1 May 2025 → 15 May 2025"; on create, the values it was given. */
function Changes({ model, entity, entry }: { model: Model; entity: Entity; entry: HistoryEntry }) {
  const fields = entity.fields.filter((f) => Object.hasOwn(entry.changes, f.name));
  if (entry.action === 'delete' || fields.length === 0) return null;
  if (entry.action === 'create') {
    const given = fields.filter((f) => !isEmpty(entry.changes[f.name]));
    if (given.length === 0) return null;
    return (
      <details>
        <summary>
          <Text span size="xs" c="dimmed" style={{ cursor: 'pointer' }}>
            {given.length} {given.length === 1 ? 'value' : 'values'} set
          </Text>
        </summary>
        <List size="xs" mt={4} listStyleType="none" spacing={2}>
          {given.map((f) => (
            <List.Item key={f.name}>
              <Text span size="xs" fw={500}>
                {fieldLabel(f)}:
              </Text>{' '}
              <Text span size="xs">
                <FieldValue model={model} field={f} value={entry.changes[f.name]} />
              </Text>
            </List.Item>
          ))}
        </List>
      </details>
    );
  }
  return (
    <List size="xs" mt={4} listStyleType="none" spacing={2}>
      {fields.map((f) => (
        <List.Item key={f.name}>
          <Change model={model} field={f} before={entry.before?.[f.name]} after={entry.changes[f.name]} />
        </List.Item>
      ))}
    </List>
  );
}

function Change({ model, field, before, after }: { model: Model; field: Field; before: unknown; after: unknown }) {
  const known = before !== undefined;
  return (
    <Text span size="xs">
      <Text span size="xs" fw={500}>
        {fieldLabel(field)}:
      </Text>{' '}
      {known && (
        <>
          <Text span size="xs" c="dimmed" td={isEmpty(before) ? undefined : 'line-through'}>
            <FieldValue model={model} field={field} value={before} />
          </Text>{' '}
          <Arrow words="changed to" />{' '}
        </>
      )}
      <FieldValue model={model} field={field} value={after} />
    </Text>
  );
}

function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === '';
}
