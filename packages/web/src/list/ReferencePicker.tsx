import { Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { type Model, USER_ENTITY } from '@ninepoint/spec';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/client.ts';
import type { Me } from '../api/session.ts';
import { type DirectoryUser, offered } from '../api/users.ts';
import { callOf, entityOf } from '../app/screens.ts';
import { type ApiRecord, recordTitle, shortId } from '../format.ts';
import { DebouncedInput } from './inputs.tsx';
import { searchableFields, validFilterValue } from './query.ts';
import { useRecordTitles, userLabel } from './references.tsx';

const OPTIONS = 20;

/**
 * Picks a record of an entity (or a user) by what it is called, for a reference filter: the
 * options come from the entity's list call, searched as one types when it has text fields; users
 * from the user directory. When the user may not list them, it takes an id typed in.
 */
export function ReferencePicker({
  model,
  me,
  entity,
  label,
  value,
  onChange,
}: {
  model: Model;
  me: Me;
  entity: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
}) {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 250);
  const users = entity === USER_ENTITY;
  const list = users ? null : callOf(model, entity, 'list');
  const target = entityOf(model, entity);
  const access = me.access[entity];
  const listable = users ? me.user !== null : Boolean(list && target && access && access.read !== 'none');
  const searchable = users || searchableFields(target).length > 0;
  const options = useQuery({
    queryKey: ['reference-options', entity, searchable ? debounced : ''],
    enabled: listable,
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: 30_000,
    queryFn: async (): Promise<{ value: string; label: string }[]> => {
      const q = searchable && debounced.trim() !== '' ? `&q=${encodeURIComponent(debounced.trim())}` : '';
      if (users) {
        const found = (
          await api<{ items: DirectoryUser[] }>('GET', `/api/users?limit=${OPTIONS}${q}`)
        ).body.items.filter(offered);
        // Others show only their names: two of one name are told apart by their ids' ends.
        const named = new Map<string, number>();
        for (const u of found) named.set(u.name, (named.get(u.name) ?? 0) + 1);
        return found.map((u) => ({
          value: u.id,
          label: u.email
            ? `${u.name} (${u.email})`
            : (named.get(u.name) ?? 0) > 1
              ? `${u.name} (…${u.id.slice(-4)})`
              : u.name,
        }));
      }
      if (!list || !target) return [];
      const page = (await api<{ items: ApiRecord[] }>('GET', `${list.path}?limit=${OPTIONS}${q}`)).body.items;
      return page.map((r) => ({ value: String(r.id), label: recordTitle(target, r) }));
    },
  });
  const titles = useRecordTitles(model, me, value && !users ? [{ entity, id: value }] : []);

  // Without the directory (members may not search it), a user filter still offers oneself.
  if (!listable || (options.isError && !users)) {
    return (
      <DebouncedInput
        label={`${label} (id)`}
        placeholder="Paste an id"
        value={value}
        onCommit={onChange}
        valid={(v) => validFilterValue('reference', v)}
        invalidMessage="An id looks like 0190f3a2-…"
      />
    );
  }

  const data = [...(options.data ?? [])];
  if (users && me.user && !data.some((o) => o.value === me.user?.id)) {
    data.unshift({ value: me.user.id, label: `${me.user.name} (you)` });
  }
  if (value && !data.some((o) => o.value === value)) {
    const shown = users
      ? userLabel(value, new Map(), me)
      : (titles.get(`${entity}:${value}`) ?? `${entity} ${shortId(value)}`);
    data.unshift({ value, label: shown });
  }
  return (
    <Select
      label={label}
      placeholder={users ? 'Anyone' : 'Any'}
      data={data}
      value={value || null}
      onChange={(next) => onChange(next ?? '')}
      searchable
      searchValue={search}
      onSearchChange={setSearch}
      // The server searched already: show what it answered.
      filter={searchable ? ({ options }) => options : undefined}
      clearable
      nothingFoundMessage={options.isFetching ? 'Searching…' : 'Nothing found'}
      comboboxProps={{ withinPortal: true }}
    />
  );
}
