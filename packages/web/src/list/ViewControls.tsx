import {
  Anchor,
  Badge,
  Button,
  Checkbox,
  CloseButton,
  Group,
  NativeSelect,
  Popover,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { api } from '../api/client.ts';
import type { SavedView } from '../api/wire.ts';
import { label } from '../app/screens.ts';
import { problemOf } from '../records/api.ts';
import { ProblemAlert } from '../records/ProblemAlert.tsx';
import type { ListField } from './query.ts';

/**
 * Which columns the list shows: a checkbox per column; at least one stays. `shown` is in the
 * columns' own order; `onChange(null)` goes back to the screen's own choice.
 */
export function ColumnsButton({
  choices,
  shown,
  onChange,
}: {
  choices: ListField[];
  shown: string[];
  onChange: (columns: string[] | null) => void;
}) {
  return (
    <Popover position="bottom-end" shadow="md" trapFocus withinPortal>
      <Popover.Target>
        <Button variant="default">Columns</Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="xs">
          <TickedGroup
            label="Columns shown"
            options={choices.map((c) => ({ value: c.name, label: c.label }))}
            value={shown}
            onChange={onChange}
            keepOne
          />
          <Button size="compact-sm" variant="subtle" onClick={() => onChange(null)}>
            Reset columns
          </Button>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}

/** The user's saved views of a screen, and those shared with their roles (`GET /api/views?screen=…`). */
export function savedViewsQuery(screen: string) {
  return {
    queryKey: ['views', screen],
    queryFn: async () =>
      (await api<{ items: SavedView[] }>('GET', `/api/views?screen=${encodeURIComponent(screen)}`)).body.items,
  };
}

/**
 * The user's saved views of this list, kept on the server per user (so they follow them to any
 * device): each opens the list as it was saved (filters, sort, columns); the view on screen can
 * be saved under a name (the same name replaces it), and a view deleted. A view may be shared
 * with a role (`shareRoles`: those the user may share with): everyone holding it finds it here.
 */
export function SavedViewsButton({
  screen,
  path,
  current,
  shareRoles = [],
}: {
  screen: string;
  path: string;
  current: string;
  shareRoles?: readonly string[];
}) {
  const client = useQueryClient();
  const viewsQuery = savedViewsQuery(screen);
  const views = useQuery(viewsQuery);
  const key = viewsQuery.queryKey;
  const [name, setName] = useState('');
  const [role, setRole] = useState('');
  const save = useMutation({
    mutationFn: (viewName: string) =>
      api<SavedView>('POST', '/api/views', {
        body: { screen, name: viewName, query: current, ...(role !== '' ? { role } : {}) },
      }),
    onSuccess: async () => {
      setName('');
      await client.invalidateQueries({ queryKey: key });
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => api('DELETE', `/api/views/${encodeURIComponent(id)}`),
    onSettled: () => client.invalidateQueries({ queryKey: key }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() !== '') save.mutate(name.trim());
  };
  const items = views.data ?? [];
  return (
    <Popover position="bottom-end" shadow="md" trapFocus withinPortal width={300}>
      <Popover.Target>
        <Button variant="default">Saved views</Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap="sm">
          <Text size="sm" fw={600} id={`${screen}-views`}>
            Saved views
          </Text>
          {views.isPending ? (
            <Text size="sm" c="dimmed">
              Loading…
            </Text>
          ) : items.length === 0 ? (
            <Text size="sm" c="dimmed">
              None yet. Save the filters, sort and columns on screen under a name.
            </Text>
          ) : (
            <Stack gap={4} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
              {items.map((view) => (
                <Group key={view.id} component="li" justify="space-between" wrap="nowrap" gap="xs">
                  <Group gap={6} wrap="nowrap" miw={0}>
                    <Anchor component={Link} to={`${path}${view.query ? `?${view.query}` : ''}`} size="sm">
                      {view.name}
                    </Anchor>
                    {view.role && (
                      <Badge size="xs" variant="light" color="grape" style={{ textTransform: 'none' }}>
                        Shared with {label(view.role).toLowerCase()}
                      </Badge>
                    )}
                  </Group>
                  {view.mayChange && (
                    <CloseButton
                      size="sm"
                      aria-label={`Delete the view ${view.name}${view.role ? ` shared with ${view.role}` : ''}`}
                      onClick={() => remove.mutate(view.id)}
                    />
                  )}
                </Group>
              ))}
            </Stack>
          )}
          <form onSubmit={submit}>
            <Group gap="xs" align="flex-end" wrap="nowrap">
              <TextInput
                label="Save this view as"
                placeholder="Name"
                value={name}
                maxLength={80}
                onChange={(e) => setName(e.currentTarget.value)}
                style={{ flex: 1 }}
              />
              <Button type="submit" loading={save.isPending} disabled={name.trim() === ''}>
                Save
              </Button>
            </Group>
            {shareRoles.length > 0 && (
              <NativeSelect
                mt="xs"
                label="Who sees it"
                value={role}
                onChange={(e) => setRole(e.currentTarget.value)}
                data={[
                  { value: '', label: 'Only me' },
                  ...shareRoles.map((r) => ({ value: r, label: `Everyone who is ${label(r).toLowerCase()}` })),
                ]}
              />
            )}
          </form>
          {save.isError && <ProblemAlert error={problemOf(save.error)} />}
          {remove.isError && <ProblemAlert error={problemOf(remove.error)} />}
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
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
