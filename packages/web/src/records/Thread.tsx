import { Avatar, Button, Group, Paper, Skeleton, Stack, Text, Textarea, Title } from '@mantine/core';
import { type Entity, type Model, type Thread, threadsOn } from '@ninepoint/spec';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../api/client.ts';
import type { Me } from '../api/session.ts';
import { pluralLabel } from '../app/screens.ts';
import { formatDateTime, formatRelative } from '../fields/display.ts';
import { formatMessage } from '../format.ts';
import { filterParams } from '../list/query.ts';
import { accessTo } from './access.ts';
import { problemOf } from './api.ts';
import { type ApiRecord, callFor, type Page, pathOf } from './calls.ts';
import { ProblemAlert } from './ProblemAlert.tsx';
import { useUserName } from './users.ts';

/** The newest messages a conversation shows; older ones are counted. */
const SHOWN = 50;

/** The threads on a record the user may read, each as a conversation. */
export function Threads({ model, me, parent, record }: { model: Model; me: Me; parent: Entity; record: ApiRecord }) {
  const threads = threadsOn(model, parent.name).filter(
    (t) => accessTo(me, t.entity).read !== 'none' && callFor(model, t.entity, 'list'),
  );
  return (
    <>
      {threads.map((t) => (
        <Conversation key={t.entity} model={model} me={me} thread={t} record={record} />
      ))}
    </>
  );
}

/** The list call's query for a conversation: its newest messages first (shown newest last). */
export function conversationQuery(thread: Thread, id: string): string {
  return new URLSearchParams([
    ['limit', String(SHOWN)],
    ['sort', '-created_at'],
    ['count', 'true'],
    ...filterParams(thread.parentField, { values: [id] }),
  ]).toString();
}

function Conversation({ model, me, thread, record }: { model: Model; me: Me; thread: Thread; record: ApiRecord }) {
  const client = useQueryClient();
  const list = callFor(model, thread.entity, 'list');
  const create = callFor(model, thread.entity, 'create');
  const path = list ? pathOf(list) : '';
  const key = ['list', path, 'thread', record.id];
  const messages = useQuery({
    // Keyed as the entity's list: a message someone else writes arrives by the live-update stream.
    queryKey: key,
    queryFn: async () => (await api<Page>('GET', `${path}?${conversationQuery(thread, record.id)}`)).body,
  });
  const access = accessTo(me, thread.entity);
  const canWrite =
    Boolean(create) &&
    access.create &&
    [thread.parentField, thread.textField].every(
      (f) => access.createFields === null || access.createFields.includes(f),
    );
  const [text, setText] = useState('');
  const send = useMutation({
    mutationFn: () =>
      api<ApiRecord>('POST', pathOf(create as NonNullable<typeof create>), {
        body: { [thread.parentField]: record.id, [thread.textField]: text },
      }),
    onSuccess: () => {
      setText('');
      void client.invalidateQueries({ queryKey: ['list', path] });
    },
  });
  const heading = pluralLabel(thread.entity);
  const id = `thread-${thread.entity}`;
  const items = [...(messages.data?.items ?? [])].reverse();
  const earlier = (messages.data?.total ?? items.length) - items.length;
  const problem = send.isError ? problemOf(send.error) : null;
  const fieldMessage = problem?.problem.errors?.find((e) => e.field === thread.textField)?.message;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim() === '') return;
    send.mutate();
  };

  return (
    <Paper withBorder radius="md" p="lg" component="section" aria-labelledby={id}>
      <Title order={2} size="h4" id={id} mb="md">
        {heading}
      </Title>
      {messages.isPending ? (
        <Stack gap="xs" aria-busy="true" aria-label={`Loading the ${heading.toLowerCase()}`}>
          <Skeleton height={14} width="50%" />
          <Skeleton height={40} />
        </Stack>
      ) : messages.isError ? (
        <Text size="sm" c="red">
          {messages.error instanceof Error ? messages.error.message : 'Could not load the conversation.'}
        </Text>
      ) : (
        <Stack
          gap="md"
          component="ol"
          m={0}
          p={0}
          style={{ listStyle: 'none' }}
          aria-label={heading}
          aria-live="polite"
        >
          {earlier > 0 && (
            <Text component="li" size="xs" c="dimmed">
              {earlier} earlier {earlier === 1 ? 'message' : 'messages'} not shown.
            </Text>
          )}
          {items.length === 0 && (
            <Text component="li" size="sm" c="dimmed">
              No messages yet.
            </Text>
          )}
          {items.map((m) => (
            <Message key={m.id} message={m} text={String(m[thread.textField] ?? '')} />
          ))}
        </Stack>
      )}
      {canWrite && (
        <form onSubmit={submit} aria-label={`Reply: ${heading}`}>
          <Stack gap="xs" mt="md">
            <Textarea
              label="Reply"
              placeholder="Write a message…"
              autosize
              minRows={2}
              maxRows={8}
              value={text}
              onChange={(e) => setText(e.currentTarget.value)}
              error={fieldMessage ? formatMessage(fieldMessage) : undefined}
              onKeyDown={(e) => {
                // Ctrl+Enter (⌘+Enter) sends, as in the chat tools people know.
                if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit(e);
              }}
            />
            {problem && !fieldMessage && <ProblemAlert error={problem} title="Not sent" />}
            <Group justify="flex-end">
              <Button type="submit" size="sm" loading={send.isPending} disabled={text.trim() === ''}>
                Send
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Paper>
  );
}

function Message({ message, text }: { message: ApiRecord; text: string }) {
  const author = useUserName(message.created_by);
  const initials = author.name
    .split(/\s+/)
    .map((w) => w.charAt(0))
    .join('')
    .slice(0, 2)
    .toUpperCase();
  return (
    <Group component="li" gap="sm" align="flex-start" wrap="nowrap">
      <Avatar radius="xl" size="md" color={author.you ? 'blue' : 'gray'} aria-hidden>
        {initials}
      </Avatar>
      <Stack gap={2} style={{ minWidth: 0, flex: 1 }}>
        <Group gap="xs">
          <Text size="sm" fw={600}>
            {author.name}
            {author.you && (
              <Text span c="dimmed" fw={400}>
                {' '}
                (you)
              </Text>
            )}
          </Text>
          <Text size="xs" c="dimmed">
            <time dateTime={message.created_at} title={formatDateTime(message.created_at)}>
              {formatRelative(message.created_at)}
            </time>
          </Text>
        </Group>
        <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {text}
        </Text>
      </Stack>
    </Group>
  );
}
